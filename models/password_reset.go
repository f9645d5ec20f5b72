package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// ResetLinkTTL is how long a password reset link works.
const ResetLinkTTL = 30 * time.Minute

// ErrResetLink is a reset token that is unknown, already used or expired;
// the page says the same for all three, so a guess learns nothing.
var ErrResetLink = errors.New("the password reset link is invalid, used or expired")

// passwordReset is one issued reset link; only the token's sha256 is kept.
type passwordReset struct {
	ID        int64
	UserID    string `gorm:"type:uuid"`
	TokenHash []byte
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

func (passwordReset) TableName() string { return "password_resets" }

// PasswordResets issues and redeems single-use password reset links.
type PasswordResets struct {
	db *gorm.DB
	// Hashing bounds the hashing of new passwords (see Users.Hashing).
	Hashing *Hashing
}

// NewPasswordResets returns the reset link store.
func NewPasswordResets(db *gorm.DB) *PasswordResets { return &PasswordResets{db: db} }

// Issue makes a reset token for the user valid for ResetLinkTTL from now.
// The token is returned once and never stored.
func (s *PasswordResets) Issue(ctx context.Context, userID string, now time.Time) (string, error) {
	if !validID(userID) {
		return "", ErrNotFound
	}
	token := newSecret()
	row := passwordReset{UserID: userID, TokenHash: hashToken(token), CreatedAt: now, ExpiresAt: now.Add(ResetLinkTTL)}
	if err := conn(ctx, s.db).Create(&row).Error; err != nil {
		return "", fmt.Errorf("issue reset link: %w", err)
	}
	return token, nil
}

// Check returns the user a still-valid token belongs to, without using it,
// so the page can show the new-password form only for a working link.
func (s *PasswordResets) Check(ctx context.Context, token string, now time.Time) (*User, error) {
	var u User
	err := conn(ctx, s.db).Joins("JOIN password_resets r ON r.user_id = users.id").
		Where("r.token_hash = ? AND r.used_at IS NULL AND r.expires_at > ?", hashToken(token), now).
		Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrResetLink
	}
	if err != nil {
		return nil, fmt.Errorf("check reset link: %w", err)
	}
	return &u, nil
}

// Redeem sets a new password with a token, in one transaction: the token
// and every other open link of the user are spent, and every session of the
// account is revoked, so whoever held the old password is signed out.
func (s *PasswordResets) Redeem(ctx context.Context, token, password string, now time.Time) (*User, error) {
	if err := ValidatePassword(password); err != nil {
		return nil, err
	}
	hash, err := s.Hashing.hash(ctx, password)
	if err != nil {
		return nil, err
	}
	var u User
	err = WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		var r passwordReset
		err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).
			Where("token_hash = ? AND used_at IS NULL AND expires_at > ?", hashToken(token), now).Take(&r).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return ErrResetLink
		}
		if err != nil {
			return err
		}
		if err := tx.Model(&passwordReset{}).Where("user_id = ? AND used_at IS NULL", r.UserID).
			Update("used_at", now).Error; err != nil {
			return err
		}
		if err := tx.Model(&User{}).Where("id = ?", r.UserID).
			Updates(map[string]any{"password_hash": hash, "updated_at": now}).Error; err != nil {
			return err
		}
		if err := tx.Exec(`DELETE FROM sessions WHERE user_id = ?`, r.UserID).Error; err != nil {
			return err
		}
		return tx.Where("id = ?", r.UserID).Take(&u).Error
	})
	if errors.Is(err, ErrResetLink) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("redeem reset link: %w", err)
	}
	return &u, nil
}

// ResetThrottle limits "forgot password" requests per address and per
// email, counted in the database so every process sees the same numbers.
type ResetThrottle struct {
	db *gorm.DB
	// Window is how far back requests count.
	Window time.Duration
	// PerEmail and PerAddress are the requests allowed within Window.
	PerEmail, PerAddress int
}

// NewResetThrottle allows 3 requests per email and 10 per address an hour.
func NewResetThrottle(db *gorm.DB) *ResetThrottle {
	return &ResetThrottle{db: db, Window: time.Hour, PerEmail: 3, PerAddress: 10}
}

// resetEmailKey hashes the address, so the table holds no readable email.
func resetEmailKey(email string) string {
	sum := sha256.Sum256([]byte(NormalizeEmail(email)))
	return "email:" + hex.EncodeToString(sum[:])
}

// Allow records a request and reports whether it is within both limits.
// Requests over the limit are recorded too, so hammering keeps it closed.
func (t *ResetThrottle) Allow(ctx context.Context, email, ip string, now time.Time) (bool, error) {
	var n struct{ ByEmail, ByAddress int }
	err := WithTx(ctx, t.db, func(ctx context.Context) error {
		tx := conn(ctx, t.db)
		if err := tx.Exec(`DELETE FROM password_reset_requests WHERE requested_at < ?`, now.Add(-24*time.Hour)).Error; err != nil {
			return err
		}
		if err := tx.Exec(`INSERT INTO password_reset_requests (key, requested_at) VALUES (?, ?), (?, ?)`,
			resetEmailKey(email), now, "ip:"+ip, now).Error; err != nil {
			return err
		}
		return tx.Raw(`SELECT count(*) FILTER (WHERE key = ?) AS by_email, count(*) FILTER (WHERE key = ?) AS by_address
			FROM password_reset_requests WHERE key IN (?, ?) AND requested_at > ?`,
			resetEmailKey(email), "ip:"+ip, resetEmailKey(email), "ip:"+ip, now.Add(-t.Window)).Scan(&n).Error
	})
	if err != nil {
		return false, fmt.Errorf("reset throttle: %w", err)
	}
	return n.ByEmail <= t.PerEmail && n.ByAddress <= t.PerAddress, nil
}
