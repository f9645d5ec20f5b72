package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// PlanChange is one entry of the plan audit log.
type PlanChange struct {
	ID             int64
	UserID         string
	UserEmail      string
	ChangedBy      *string
	ChangedByEmail string
	FromPlan       string
	ToPlan         string
	CreatedAt      time.Time
}

// Audit is the store of plan changes made by admins (plan_changes).
type Audit struct{ db *gorm.DB }

// NewAudit returns the plan audit store.
func NewAudit(db *gorm.DB) *Audit { return &Audit{db: db} }

// ChangePlan sets the user's plan and records who changed it, from what
// and to what, in one transaction. An unknown plan is ErrUnknownPlan and
// an unknown user ErrNotFound, with nothing changed; setting the plan the
// user already has changes nothing and records nothing (nil, nil).
// Demoting the last SUPER_ADMIN is ErrLastSuperAdmin; a plan that
// disagrees with membership is ErrPlanFollowsOrg or ErrCorporateNeedsOrg
// (Organizations.ChangePlan routes a member's corporate plan to their role).
func (s *Audit) ChangePlan(ctx context.Context, adminID, userID, plan string, now time.Time) (*PlanChange, error) {
	return changePlan(ctx, s.db, adminID, userID, plan, now)
}

// changePlan is ChangePlan for every store that changes a plan (an
// approved upgrade request too), joining the caller's transaction.
func changePlan(ctx context.Context, db *gorm.DB, adminID, userID, plan string, now time.Time) (*PlanChange, error) {
	if !ValidPlan(plan) {
		return nil, ErrUnknownPlan
	}
	if !validID(userID) {
		return nil, ErrNotFound
	}
	var by *string
	if validID(adminID) {
		by = &adminID
	}
	var ch *PlanChange
	err := WithTx(ctx, db, func(ctx context.Context) error {
		tx := conn(ctx, db)
		admins, err := lockSuperAdmins(tx)
		if err != nil {
			return err
		}
		var from, email string
		var role *string
		err = tx.Raw(`SELECT u.plan, u.email, m.role FROM users u LEFT JOIN organization_members m ON m.user_id = u.id
			WHERE u.id = ? FOR UPDATE OF u`, userID).Row().Scan(&from, &email, &role)
		if err != nil {
			return fmt.Errorf("read plan: %w", notFound(err))
		}
		if from == plan {
			return nil
		}
		if err := planFitsMembership(plan, role); err != nil {
			return err
		}
		if from == PlanSuperAdmin && len(admins) <= 1 {
			return ErrLastSuperAdmin
		}
		if err := tx.Exec(`UPDATE users SET plan = ?, updated_at = ? WHERE id = ?`, plan, now, userID).Error; err != nil {
			return fmt.Errorf("set plan: %w", err)
		}
		ch = &PlanChange{UserID: userID, UserEmail: email, ChangedBy: by, FromPlan: from, ToPlan: plan, CreatedAt: now}
		if err := tx.Raw(`INSERT INTO plan_changes (user_id, changed_by, from_plan, to_plan, created_at)
			VALUES (?, ?, ?, ?, ?) RETURNING id`, userID, by, from, plan, now).Row().Scan(&ch.ID); err != nil {
			return fmt.Errorf("record plan change: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ch, nil
}

// Recent returns the newest plan changes first, at most limit.
func (s *Audit) Recent(ctx context.Context, limit int) ([]PlanChange, error) {
	var out []PlanChange
	err := conn(ctx, s.db).Raw(`SELECT p.id, p.user_id, u.email AS user_email, p.changed_by,
			coalesce(a.email, '') AS changed_by_email, p.from_plan, p.to_plan, p.created_at
		FROM plan_changes p JOIN users u ON u.id = p.user_id LEFT JOIN users a ON a.id = p.changed_by
		ORDER BY p.created_at DESC, p.id DESC LIMIT ?`, min(max(limit, 1), 200)).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("plan changes: %w", err)
	}
	return out, nil
}
