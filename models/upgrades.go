package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// StudentPlans are the plans a student can have (and ask for): the staff
// roles are given, never requested.
var StudentPlans = []string{PlanFree, PlanStarter, PlanPro, PlanElite, PlanCorporateUser}

// RequestablePlans are the plans a student can ask an admin for: a
// corporate plan follows organization membership, never a request.
var RequestablePlans = []string{PlanFree, PlanStarter, PlanPro, PlanElite}

// ErrNotRequestable is a request for a staff plan or for the plan one has.
var ErrNotRequestable = errors.New("that plan cannot be requested")

// UpgradeRequest is a student's pending request for another plan.
type UpgradeRequest struct {
	ID        int64
	UserID    string
	UserEmail string
	FromPlan  string
	Plan      string
	CreatedAt time.Time
}

// Upgrades stores students' requests for another plan.
type Upgrades struct{ db *gorm.DB }

// NewUpgrades returns the upgrade request store.
func NewUpgrades(db *gorm.DB) *Upgrades { return &Upgrades{db: db} }

// Request records that userID asks for plan (replacing a pending request).
func (s *Upgrades) Request(ctx context.Context, userID, current, plan string, now time.Time) error {
	if !slices.Contains(RequestablePlans, plan) || plan == current || !slices.Contains(RequestablePlans, current) {
		return ErrNotRequestable
	}
	err := conn(ctx, s.db).Exec(`INSERT INTO upgrade_requests (user_id, plan, created_at) VALUES (?, ?, ?)
		ON CONFLICT (user_id) WHERE status = 'pending' DO UPDATE SET plan = EXCLUDED.plan, created_at = EXCLUDED.created_at`,
		userID, plan, now).Error
	if err != nil {
		return fmt.Errorf("request upgrade: %w", err)
	}
	return nil
}

// PendingFor is userID's pending request, nil when there is none.
func (s *Upgrades) PendingFor(ctx context.Context, userID string) (*UpgradeRequest, error) {
	var out []UpgradeRequest
	if err := conn(ctx, s.db).Raw(pendingSQL+` AND r.user_id = ?`, userID).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("pending upgrade: %w", err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return &out[0], nil
}

// Pending lists the pending requests, oldest first, at most limit.
func (s *Upgrades) Pending(ctx context.Context, limit int) ([]UpgradeRequest, error) {
	var out []UpgradeRequest
	err := conn(ctx, s.db).Raw(pendingSQL+` ORDER BY r.created_at, r.id LIMIT ?`, min(max(limit, 1), 200)).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("pending upgrades: %w", err)
	}
	return out, nil
}

const pendingSQL = `SELECT r.id, r.user_id, u.email AS user_email, u.plan AS from_plan, r.plan, r.created_at
	FROM upgrade_requests r JOIN users u ON u.id = r.user_id WHERE r.status = 'pending'`

// Decide approves or declines a pending request by adminID in one
// transaction; an approval changes the plan through the audit log. It
// returns the request as it was, also beside an approval's refused plan
// change (ErrPlanFollowsOrg, ErrCorporateNeedsOrg: nothing changes);
// ErrNotFound when it is no longer pending.
func (s *Upgrades) Decide(ctx context.Context, adminID string, id int64, approve bool, now time.Time) (*UpgradeRequest, error) {
	var req UpgradeRequest
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		var rows []UpgradeRequest
		if err := tx.Raw(pendingSQL+` AND r.id = ? FOR UPDATE OF r`, id).Scan(&rows).Error; err != nil {
			return fmt.Errorf("read upgrade request: %w", err)
		}
		if len(rows) == 0 {
			return fmt.Errorf("upgrade request %d: %w", id, ErrNotFound)
		}
		req = rows[0]
		status := "declined"
		if approve {
			status = "approved"
			if _, err := changePlan(ctx, s.db, adminID, req.UserID, req.Plan, now); err != nil {
				return err
			}
		}
		return tx.Exec(`UPDATE upgrade_requests SET status = ?, decided_at = ?, decided_by = ? WHERE id = ?`,
			status, now, adminID, id).Error
	})
	if errors.Is(err, ErrPlanFollowsOrg) || errors.Is(err, ErrCorporateNeedsOrg) {
		return &req, err
	}
	if err != nil {
		return nil, err
	}
	return &req, nil
}
