package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// AddressThrottle limits how often one address does something (create an
// account, join an organization): a burst of Burst within BurstWindow and
// Daily within a day. Every process sees the same counts (they live in
// the database, in table).
type AddressThrottle struct {
	db *gorm.DB
	// table holds the attempts (address, attempted_at); lockSpace keeps
	// its advisory locks apart from another throttle's.
	table     string
	lockSpace int
	// Burst sign-ups are allowed within BurstWindow, Daily within 24 hours.
	Burst, Daily int
	// BurstWindow is the window of Burst.
	BurstWindow time.Duration
}

// NewSignupThrottle allows 3 sign-ups per address in 10 minutes, 10 a day.
func NewSignupThrottle(db *gorm.DB) *AddressThrottle {
	return &AddressThrottle{db: db, table: "signup_attempts", lockSpace: 2, Burst: 3, BurstWindow: 10 * time.Minute, Daily: 10}
}

// NewJoinThrottle allows 60 organization joins per address in 10 minutes,
// 300 a day: a classroom behind one address joins at once, a guesser of
// links is stopped (a link has 256 bits anyway).
func NewJoinThrottle(db *gorm.DB) *AddressThrottle {
	return &AddressThrottle{db: db, table: "join_attempts", lockSpace: 3, Burst: 60, BurstWindow: 10 * time.Minute, Daily: 300}
}

// NewClassSignupThrottle allows 60 sign-ups per address in 10 minutes,
// 300 a day, for sign-ups on their way into an organization through a live
// join link or invitation: a class behind one school address signs up at
// once, and the organization's seats bound what the link can bring in.
func NewClassSignupThrottle(db *gorm.DB) *AddressThrottle {
	return &AddressThrottle{db: db, table: "class_signup_attempts", lockSpace: 4, Burst: 60, BurstWindow: 10 * time.Minute, Daily: 300}
}

// Reserve counts an attempt from ip, or refuses it with a *ThrottleError.
// Call it before the costly work (a sign-up's password hash).
func (t *AddressThrottle) Reserve(ctx context.Context, ip string) error {
	err := WithTx(ctx, t.db, func(ctx context.Context) error {
		db := conn(ctx, t.db)
		if err := db.Exec("SELECT pg_advisory_xact_lock(hashtextextended(?, ?))", ip, t.lockSpace).Error; err != nil {
			return err
		}
		var n struct {
			Burst, Daily int
			Oldest       time.Time
		}
		if err := db.Raw(`SELECT
				count(*) FILTER (WHERE attempted_at > now() - make_interval(secs => ?)) AS burst,
				count(*) AS daily, coalesce(min(attempted_at), now()) AS oldest
			FROM `+t.table+` WHERE address = ? AND attempted_at > now() - interval '1 day'`,
			t.BurstWindow.Seconds(), ip).Scan(&n).Error; err != nil {
			return err
		}
		switch {
		case n.Daily >= t.Daily:
			return &ThrottleError{RetryAfter: max(time.Until(n.Oldest.Add(24*time.Hour)), time.Minute)}
		case n.Burst >= t.Burst:
			return &ThrottleError{RetryAfter: t.BurstWindow}
		}
		return db.Exec(`INSERT INTO `+t.table+` (address) VALUES (?)`, ip).Error
	})
	if err != nil && !errors.Is(err, ErrThrottled) {
		return fmt.Errorf("reserve an attempt in %s: %w", t.table, err)
	}
	return err
}

// Sweep deletes attempts older than a day.
func (t *AddressThrottle) Sweep(ctx context.Context) (int64, error) {
	res := conn(ctx, t.db).Exec(`DELETE FROM ` + t.table + ` WHERE attempted_at < now() - interval '1 day'`)
	return res.RowsAffected, res.Error
}
