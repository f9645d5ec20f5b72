package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// ErrQuotaExceeded means the user has used every question of the month's plan.
var ErrQuotaExceeded = errors.New("monthly question quota exceeded")

// QuotaError says how much of the quota is used and when it resets;
// errors.Is(err, ErrQuotaExceeded) holds for it.
type QuotaError struct {
	Plan    string
	Used    int
	Limit   int
	ResetAt time.Time // start of the next period (UTC)
}

// Error describes the exhausted quota.
func (e *QuotaError) Error() string {
	return fmt.Sprintf("monthly question quota exceeded: %d of %d used on plan %s, resets %s",
		e.Used, e.Limit, e.Plan, e.ResetAt.Format(time.DateOnly))
}

// Is makes errors.Is(err, ErrQuotaExceeded) true.
func (e *QuotaError) Is(target error) bool { return target == ErrQuotaExceeded }

// QuotaUsage is a user's question count in one period.
type QuotaUsage struct {
	Plan    string
	Period  time.Time
	Used    int
	Limit   int // 0: unlimited
	ResetAt time.Time
}

// Remaining is how many questions are left; -1 means unlimited.
func (u QuotaUsage) Remaining() int {
	if u.Limit == 0 {
		return -1
	}
	return max(u.Limit-u.Used, 0)
}

// Quotas is the store of monthly question counts (plan_usage).
type Quotas struct {
	db *gorm.DB
	// usage reads the counts that requests arriving together ask for in one statement.
	usage *reader[usageKey, *usageRow]
}

// NewQuotas returns the quota store.
func NewQuotas(db *gorm.DB) *Quotas { return &Quotas{db: db, usage: newReader(db, findUsages)} }

// Usage is the user's count for the period now falls in. Every question
// asked on the site shows it afterwards, so the reads of requests
// arriving together share one statement (see batcher).
func (s *Quotas) Usage(ctx context.Context, userID string, now time.Time) (QuotaUsage, error) {
	id, err := uuid.Parse(userID)
	if err != nil {
		return QuotaUsage{}, ErrNotFound
	}
	u := QuotaUsage{Period: Period(now), ResetAt: NextPeriod(now)}
	k := usageKey{UserID: id.String(), Period: u.Period.Format(time.DateOnly)}
	r, err := s.usage.get(ctx, k)
	if err != nil {
		return u, fmt.Errorf("read usage: %w", err)
	}
	if r == nil {
		return u, fmt.Errorf("read usage: %w", ErrNotFound)
	}
	u.Plan, u.Used, u.Limit = r.Plan, r.Used, r.Lim
	return u, nil
}

// reserveQuota counts one question for the period now falls in, or
// returns a *QuotaError when the user's limit is reached (their plan's,
// or their organization's cap: see limitSQL), or ErrHelpModeOff for a
// question in the help thread conversationID ("" none) of a member whose
// organization turned help mode off; call it inside the transaction that
// records the question (see WithTx). The conditional upsert is the whole
// race guard: concurrent reservations queue on the plan_usage row and
// each re-checks the committed count. Unlimited plans are counted too,
// for the dashboards.
func reserveQuota(ctx context.Context, db *gorm.DB, userID, conversationID string, now time.Time) (period time.Time, err error) {
	period = Period(now)
	tx := conn(ctx, db)
	var r struct {
		Plan    string
		Lim     int
		HelpOff bool
	}
	var cid *string
	if conversationID != "" {
		cid = &conversationID
	}
	if err := tx.Raw(`SELECT u.plan, `+limitSQL("u")+` AS lim,
		coalesce((SELECT `+helpOffSQL("u", "c.mode")+` FROM conversations c WHERE c.id = CAST(? AS uuid)), false) AS help_off
		FROM users u WHERE u.id = ?`, cid, userID).Take(&r).Error; err != nil {
		return period, fmt.Errorf("reserve quota: read plan: %w", notFound(err))
	}
	if r.HelpOff {
		return period, ErrHelpModeOff
	}
	var used int
	err = tx.Raw(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 1)
		ON CONFLICT (user_id, period) DO UPDATE SET questions = plan_usage.questions + 1
		WHERE ? = 0 OR plan_usage.questions < ?
		RETURNING questions`, userID, period, r.Lim, r.Lim).Row().Scan(&used)
	if errors.Is(err, sql.ErrNoRows) { // the upsert's WHERE refused: the limit is reached
		return period, quotaRefusal(tx, userID, r.Plan, now)
	}
	if err != nil {
		return period, fmt.Errorf("reserve quota: %w", err)
	}
	return period, nil
}

// count is a user's questions this month and their limit (0: unlimited).
type count struct{ used, limit int }

// quotaOf is the count of used questions out of limit.
func quotaOf(used, limit int) count { return count{used: used, limit: limit} }

// quotaRefusal is the *QuotaError of a user whose reservation the
// plan_usage upsert refused, with the count it holds and their limit.
func quotaRefusal(tx *gorm.DB, userID, plan string, now time.Time) error {
	var c struct{ Used, Lim int }
	_ = tx.Raw(`SELECT coalesce(p.questions, 0) AS used, `+limitSQL("u")+` AS lim
		FROM users u LEFT JOIN plan_usage p ON p.user_id = u.id AND p.period = ? WHERE u.id = ?`, Period(now), userID).
		Take(&c).Error
	return &QuotaError{Plan: plan, Used: c.Used, Limit: c.Lim, ResetAt: NextPeriod(now)}
}

// Refund gives back the question counted for an assistant message, once:
// clearing messages.quota_period and decrementing plan_usage happen in one
// statement, so racing refunds (failure, cancel, restart) cannot double it.
// It reports whether anything was refunded.
func (s *Quotas) Refund(ctx context.Context, messageID string) (bool, error) {
	if !validID(messageID) {
		return false, ErrNotFound
	}
	res := conn(ctx, s.db).Exec(`WITH old AS (
			SELECT id, user_id, quota_period FROM messages
			WHERE id = ? AND quota_period IS NOT NULL FOR UPDATE
		), m AS (
			UPDATE messages SET quota_period = NULL FROM old WHERE messages.id = old.id
			RETURNING old.user_id, old.quota_period AS period
		)
		UPDATE plan_usage p SET questions = p.questions - 1
		FROM m WHERE p.user_id = m.user_id AND p.period = m.period AND p.questions > 0`, messageID)
	if res.Error != nil {
		return false, fmt.Errorf("refund question: %w", res.Error)
	}
	return res.RowsAffected > 0, nil
}
