package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// SignupThrottle limits how many accounts one address creates: a burst of
// Burst within BurstWindow and Daily within a day. Every process sees the
// same counts (they live in the database).
type SignupThrottle struct {
	db *gorm.DB
	// Burst sign-ups are allowed within BurstWindow, Daily within 24 hours.
	Burst, Daily int
	// BurstWindow is the window of Burst.
	BurstWindow time.Duration
}

// NewSignupThrottle allows 3 sign-ups per address in 10 minutes, 10 a day.
func NewSignupThrottle(db *gorm.DB) *SignupThrottle {
	return &SignupThrottle{db: db, Burst: 3, BurstWindow: 10 * time.Minute, Daily: 10}
}

// Reserve counts a sign-up from ip, or refuses it with a *ThrottleError.
// Call it before the account is created (the password hash is costly).
func (t *SignupThrottle) Reserve(ctx context.Context, ip string) error {
	err := WithTx(ctx, t.db, func(ctx context.Context) error {
		db := conn(ctx, t.db)
		if err := db.Exec("SELECT pg_advisory_xact_lock(hashtextextended(?, 2))", ip).Error; err != nil {
			return err
		}
		var n struct {
			Burst, Daily int
			Oldest       time.Time
		}
		if err := db.Raw(`SELECT
				count(*) FILTER (WHERE attempted_at > now() - make_interval(secs => ?)) AS burst,
				count(*) AS daily, coalesce(min(attempted_at), now()) AS oldest
			FROM signup_attempts WHERE address = ? AND attempted_at > now() - interval '1 day'`,
			t.BurstWindow.Seconds(), ip).Scan(&n).Error; err != nil {
			return err
		}
		switch {
		case n.Daily >= t.Daily:
			return &ThrottleError{RetryAfter: max(time.Until(n.Oldest.Add(24*time.Hour)), time.Minute)}
		case n.Burst >= t.Burst:
			return &ThrottleError{RetryAfter: t.BurstWindow}
		}
		return db.Exec(`INSERT INTO signup_attempts (address) VALUES (?)`, ip).Error
	})
	if err != nil && !errors.Is(err, ErrThrottled) {
		return fmt.Errorf("reserve a sign-up: %w", err)
	}
	return err
}

// Sweep deletes sign-ups older than a day.
func (t *SignupThrottle) Sweep(ctx context.Context) (int64, error) {
	res := conn(ctx, t.db).Exec(`DELETE FROM signup_attempts WHERE attempted_at < now() - interval '1 day'`)
	return res.RowsAffected, res.Error
}
