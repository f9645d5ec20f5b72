package models

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrLastSuperAdmin refuses a change that would leave aula without a SUPER_ADMIN.
var ErrLastSuperAdmin = errors.New("the last SUPER_ADMIN cannot be removed")

// Profile is what a user edits about themselves on the settings page.
type Profile struct {
	Name, Locale string
}

// UpdateProfile sets the user's display name and interface language.
func (s *Users) UpdateProfile(ctx context.Context, id string, p Profile) (*User, error) {
	p.Name = strings.TrimSpace(p.Name)
	if !validName(p.Name) {
		return nil, ErrInvalidName
	}
	if p.Locale != "en" && p.Locale != "es" {
		return nil, ErrUnknownLocale
	}
	if !validID(id) {
		return nil, ErrNotFound
	}
	res := conn(ctx, s.db).Model(&User{}).Where("id = ?", id).
		Updates(map[string]any{"name": p.Name, "locale": p.Locale, "updated_at": time.Now()})
	if res.Error != nil {
		return nil, fmt.Errorf("update profile: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return nil, ErrNotFound
	}
	return s.Get(ctx, id)
}

// SetOptionalEmail turns non-essential email (welcome, upgrade news) on or off.
func (s *Users) SetOptionalEmail(ctx context.Context, id string, on bool) error {
	if !validID(id) {
		return ErrNotFound
	}
	res := conn(ctx, s.db).Model(&User{}).Where("id = ?", id).
		Updates(map[string]any{"optional_email": on, "updated_at": time.Now()})
	if res.Error != nil {
		return fmt.Errorf("set optional email: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// ChangePassword checks the current password and sets the next one; every
// session of the account is revoked in the same transaction, so the caller
// renews its own session (a new id) and every other device is signed out.
// A wrong current password is ErrBadCredentials.
func (s *Users) ChangePassword(ctx context.Context, id, current, next string) error {
	u, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if ok, err := s.Hashing.check(ctx, u.PasswordHash, current); err != nil || !ok {
		return cmp.Or(err, ErrBadCredentials)
	}
	if err := ValidatePassword(next); err != nil {
		return err
	}
	return s.SetPassword(ctx, id, next)
}

// SetPassword replaces the password without asking for the old one (the
// operator's `aula user set-password`) and revokes every session.
func (s *Users) SetPassword(ctx context.Context, id, password string) error {
	if err := ValidatePassword(password); err != nil {
		return err
	}
	hash, err := s.Hashing.hash(ctx, password)
	if err != nil {
		return err
	}
	err = WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		res := tx.Model(&User{}).Where("id = ?", id).
			Updates(map[string]any{"password_hash": hash, "updated_at": time.Now()})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		return tx.Exec(`DELETE FROM sessions WHERE user_id = ?`, id).Error
	})
	if errors.Is(err, ErrNotFound) {
		return err
	}
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	return nil
}

// Delete removes the account after checking its password: every row that
// names the user goes (conversations, messages, attachments, ratings, plan
// usage, tokens, sessions, reset links) and the throttling rows keyed by
// its email. The account's messages are deleted before the conversations
// so the rating totals trigger takes its votes out of the counters too.
// The last SUPER_ADMIN is refused with ErrLastSuperAdmin.
func (s *Users) Delete(ctx context.Context, id, password string) error {
	u, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if ok, err := s.Hashing.check(ctx, u.PasswordHash, password); err != nil || !ok {
		return cmp.Or(err, ErrBadCredentials)
	}
	err = WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		if u.Plan == PlanSuperAdmin {
			admins, err := lockSuperAdmins(tx)
			if err != nil {
				return err
			}
			if len(admins) <= 1 {
				return ErrLastSuperAdmin
			}
		}
		for _, q := range []string{
			`DELETE FROM messages WHERE user_id = ?`,
			`DELETE FROM users WHERE id = ?`,
		} {
			if err := tx.Exec(q, id).Error; err != nil {
				return err
			}
		}
		if err := forgetSignIns(tx, u.Email); err != nil {
			return err
		}
		return tx.Exec(`DELETE FROM password_reset_requests WHERE key = ?`, resetEmailKey(u.Email)).Error
	})
	if errors.Is(err, ErrLastSuperAdmin) {
		return err
	}
	if err != nil {
		return fmt.Errorf("delete account: %w", err)
	}
	return nil
}
