package models

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// MaxJoinLinkLife is the furthest expiry a join link may have.
const MaxJoinLinkLife = 366 * 24 * time.Hour

// Errors of join links: each is explained on the join page.
var (
	ErrLinkUnknown = errors.New("no organization has this join link")
	ErrLinkExpired = errors.New("the join link has expired")
	ErrLinkRevoked = errors.New("the join link was revoked")
	// ErrLinkExpiry is an expiry in the past or beyond MaxJoinLinkLife.
	ErrLinkExpiry = errors.New("a join link expires after now and within a year")
)

// JoinLink is an organization's join link; its token is shown once and
// only its SHA-256 is kept.
type JoinLink struct {
	ID             int64
	OrganizationID string
	CreatedAt      time.Time
	ExpiresAt      time.Time
	RevokedAt      *time.Time
}

// Expired reports whether the link no longer works at now.
func (l *JoinLink) Expired(now time.Time) bool { return !now.Before(l.ExpiresAt) }

// CurrentLink returns the organization's live (not revoked) link, nil when none.
func (s *Organizations) CurrentLink(ctx context.Context, orgID string) (*JoinLink, error) {
	var out []JoinLink
	err := conn(ctx, s.db).Raw(`SELECT id, organization_id, created_at, expires_at, revoked_at
		FROM organization_links WHERE organization_id = ? AND revoked_at IS NULL`, orgID).Scan(&out).Error
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}

// NewLink makes a join link expiring at expires (256 random bits), revoking
// the live one; the token is returned once.
func (s *Organizations) NewLink(ctx context.Context, byID, orgID string, expires, now time.Time) (string, error) {
	if !expires.After(now) || expires.After(now.Add(MaxJoinLinkLife)) {
		return "", ErrLinkExpiry
	}
	token := newSecret()
	var by *string
	if validID(byID) {
		by = &byID
	}
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		if _, err := s.lock(ctx, orgID); err != nil {
			return err
		}
		tx := conn(ctx, s.db)
		if err := tx.Exec(`UPDATE organization_links SET revoked_at = ? WHERE organization_id = ? AND revoked_at IS NULL`,
			now, orgID).Error; err != nil {
			return fmt.Errorf("revoke the old join link: %w", err)
		}
		return tx.Exec(`INSERT INTO organization_links (organization_id, token_hash, created_by, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?)`, orgID, hashToken(token), by, now, expires).Error
	})
	if err != nil {
		return "", fmt.Errorf("new join link: %w", err)
	}
	return token, nil
}

// RevokeLink ends the organization's live link; none is ErrNotFound.
func (s *Organizations) RevokeLink(ctx context.Context, orgID string, now time.Time) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		if _, err := s.lock(ctx, orgID); err != nil {
			return err
		}
		res := conn(ctx, s.db).Exec(`UPDATE organization_links SET revoked_at = ? WHERE organization_id = ? AND revoked_at IS NULL`,
			now, orgID)
		if res.Error != nil {
			return fmt.Errorf("revoke join link: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// LinkOrg returns the organization a working join link opens; an unknown,
// expired or revoked link is ErrLinkUnknown, ErrLinkExpired or ErrLinkRevoked.
func (s *Organizations) LinkOrg(ctx context.Context, token string, now time.Time) (*Organization, error) {
	var l []JoinLink
	if err := conn(ctx, s.db).Raw(`SELECT id, organization_id, created_at, expires_at, revoked_at
		FROM organization_links WHERE token_hash = ?`, hashToken(token)).Scan(&l).Error; err != nil {
		return nil, fmt.Errorf("join link: %w", err)
	}
	switch {
	case len(l) == 0:
		return nil, ErrLinkUnknown
	case l[0].RevokedAt != nil:
		return nil, ErrLinkRevoked
	case l[0].Expired(now):
		return nil, ErrLinkExpired
	}
	return s.Get(ctx, l[0].OrganizationID)
}

// JoinByLink adds the user to the organization of a working join link as a
// member; the link is checked again under the organization's lock, so a
// revocation or a regeneration meanwhile is honoured.
func (s *Organizations) JoinByLink(ctx context.Context, token, userID string, now time.Time) (*Organization, error) {
	var o *Organization
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		var err error
		if o, err = s.LinkOrg(ctx, token, now); err != nil {
			return err
		}
		if err = s.join(ctx, userID, o.ID, userID, RoleMember, 0, now); err != nil {
			return err
		}
		// Checked again under the organization's lock (join took it), which
		// revoking and regenerating take too: a link revoked while this
		// join waited does not let it in.
		_, err = s.LinkOrg(ctx, token, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}
