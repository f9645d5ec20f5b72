package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// LoginThrottle counts failed sign-ins per account and per address in the
// database, so every process sees the same counts.
type LoginThrottle struct {
	db *gorm.DB
	// Window is how far back failures count.
	Window time.Duration
	// PerAccount and PerAddress are the failures allowed within Window.
	PerAccount, PerAddress int
}

// NewLoginThrottle allows 5 failures per account and 20 per address in 15 minutes.
func NewLoginThrottle(db *gorm.DB) *LoginThrottle {
	return &LoginThrottle{db: db, Window: 15 * time.Minute, PerAccount: 5, PerAddress: 20}
}

func accountKey(email string) string { return "acct:" + NormalizeEmail(email) }
func addressKey(ip string) string    { return "ip:" + ip }

// Blocked reports whether sign-in for this email or from this address is throttled.
func (t *LoginThrottle) Blocked(ctx context.Context, email, ip string) (bool, error) {
	var rows []struct {
		Key string
		N   int
	}
	err := conn(ctx, t.db).Raw(`SELECT key, count(*) AS n FROM login_failures
		WHERE key IN (?, ?) AND attempted_at > now() - make_interval(secs => ?) GROUP BY key`,
		accountKey(email), addressKey(ip), t.Window.Seconds()).Scan(&rows).Error
	if err != nil {
		return false, fmt.Errorf("check login throttle: %w", err)
	}
	for _, r := range rows {
		if (r.Key == accountKey(email) && r.N >= t.PerAccount) || (r.Key == addressKey(ip) && r.N >= t.PerAddress) {
			return true, nil
		}
	}
	return false, nil
}

// Fail records a failed sign-in.
func (t *LoginThrottle) Fail(ctx context.Context, email, ip string) error {
	return conn(ctx, t.db).Exec(`INSERT INTO login_failures (key) VALUES (?), (?)`,
		accountKey(email), addressKey(ip)).Error
}

// Succeed clears the account's failures after a successful sign-in.
func (t *LoginThrottle) Succeed(ctx context.Context, email string) error {
	return conn(ctx, t.db).Exec(`DELETE FROM login_failures WHERE key = ?`, accountKey(email)).Error
}
