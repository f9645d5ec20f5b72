package models

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// InvitationLife is how long an invitation's link works after it is sent.
const InvitationLife = 14 * 24 * time.Hour

// Errors of invitations: each is explained on the page its link opens, or
// beside its row on /org.
var (
	ErrInviteUnknown  = errors.New("no invitation has this link")
	ErrInviteUsed     = errors.New("the invitation was already used")
	ErrInviteExpired  = errors.New("the invitation has expired")
	ErrInviteCanceled = errors.New("the invitation was canceled")
	// ErrInvitePending is an address with a pending invitation already.
	ErrInvitePending = errors.New("the address has a pending invitation")
)

// Invitation is a pending email invitation to an organization.
type Invitation struct {
	ID             int64
	OrganizationID string
	Email, Locale  string
	Role           string
	CreatedAt      time.Time
	SentAt         *time.Time
	ExpiresAt      time.Time
	AcceptedAt     *time.Time
	CanceledAt     *time.Time
}

// Expired reports whether the invitation's link no longer works at now.
func (i *Invitation) Expired(now time.Time) bool { return !now.Before(i.ExpiresAt) }

// Sent is an invitation just made or renewed: its token goes in the letter
// and is never kept (only its SHA-256 is).
type Sent struct {
	Invitation
	Token string
}

const invitationColumns = `id, organization_id, email, locale, role, created_at, sent_at, expires_at, accepted_at, canceled_at`

// Invite makes an invitation for each row under the organization's lock
// and returns those made (with their tokens) and the rows refused, each
// with its reason. A row is refused when its address is invalid, repeats
// an earlier row, belongs to a member of this or another organization, has
// a pending invitation, or when the seats are all taken or promised: the
// members and the pending (unexpired) invitations together never pass the
// seats, so every invitation sent can be accepted unless another way in
// (the join link) takes the seat first.
func (s *Organizations) Invite(ctx context.Context, byID, orgID string, rows []Invitee, now time.Time) ([]Sent, []Invitee, error) {
	var sent []Sent
	var refused []Invitee
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		sent, refused = nil, nil
		seats, err := s.lock(ctx, orgID)
		if err != nil {
			return err
		}
		taken, err := s.seatsPromised(ctx, orgID, 0, now)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, r := range rows {
			if r.Err == nil && seen[r.Email] {
				r.Err = ErrInviteDuplicate
			}
			seen[r.Email] = true
			if r.Err == nil {
				r.Err = s.inviteable(ctx, orgID, r.Email, now)
			}
			if r.Err == nil && taken >= seats {
				r.Err = ErrNoSeats
			}
			if r.Err != nil {
				refused = append(refused, r)
				continue
			}
			inv, err := s.insertInvitation(ctx, byID, orgID, RoleMember, r, now)
			if err != nil {
				return err
			}
			sent, taken = append(sent, *inv), taken+1
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("invite: %w", err)
	}
	return sent, refused, nil
}

// seatsPromised counts the members and the pending, unexpired invitations
// but the one with id except (0: none).
func (s *Organizations) seatsPromised(ctx context.Context, orgID string, except int64, now time.Time) (int, error) {
	var n int
	err := conn(ctx, s.db).Raw(`SELECT (SELECT count(*) FROM organization_members WHERE organization_id = ?) +
		(SELECT count(*) FROM organization_invitations WHERE organization_id = ?
			AND accepted_at IS NULL AND canceled_at IS NULL AND expires_at > ? AND id <> ?)`, orgID, orgID, now, except).Scan(&n).Error
	if err != nil {
		return 0, fmt.Errorf("seats promised: %w", err)
	}
	return n, nil
}

// SeatsHeld counts the organization's pending, unexpired invitations:
// each holds a seat that no one else can take meanwhile.
func (s *Organizations) SeatsHeld(ctx context.Context, orgID string, now time.Time) (int, error) {
	var n int
	err := conn(ctx, s.db).Raw(`SELECT count(*) FROM organization_invitations WHERE organization_id = ?
		AND accepted_at IS NULL AND canceled_at IS NULL AND expires_at > ?`, orgID, now).Scan(&n).Error
	if err != nil {
		return 0, fmt.Errorf("seats held: %w", err)
	}
	return n, nil
}

// inviteable says why email cannot be invited to the organization, nil
// when it can; an expired pending invitation is closed to make room.
func (s *Organizations) inviteable(ctx context.Context, orgID, email string, now time.Time) error {
	tx := conn(ctx, s.db)
	var st struct {
		OrgID *string
		Plan  *string
	}
	if err := tx.Raw(`SELECT m.organization_id AS org_id, u.plan FROM users u
		LEFT JOIN organization_members m ON m.user_id = u.id WHERE u.email = ?`, email).Scan(&st).Error; err != nil {
		return fmt.Errorf("invitee: %w", err)
	}
	switch {
	case st.OrgID != nil && *st.OrgID == orgID:
		return ErrAlreadyMember
	case st.OrgID != nil:
		return ErrInOtherOrg
	case st.Plan != nil && IsAdminPlan(*st.Plan):
		return ErrStaffAccount
	}
	var pending []Invitation
	if err := tx.Raw(`SELECT `+invitationColumns+` FROM organization_invitations
		WHERE organization_id = ? AND email = ? AND accepted_at IS NULL AND canceled_at IS NULL`, orgID, email).
		Scan(&pending).Error; err != nil {
		return fmt.Errorf("pending invitation: %w", err)
	}
	if len(pending) == 0 {
		return nil
	}
	if !pending[0].Expired(now) {
		return ErrInvitePending
	}
	return tx.Exec(`UPDATE organization_invitations SET canceled_at = ? WHERE id = ?`, now, pending[0].ID).Error
}

// insertInvitation records an invitation with role for row r and returns it with its token.
func (s *Organizations) insertInvitation(ctx context.Context, byID, orgID, role string, r Invitee, now time.Time) (*Sent, error) {
	var by *string
	if validID(byID) {
		by = &byID
	}
	out := Sent{Token: newSecret()}
	err := conn(ctx, s.db).Raw(`INSERT INTO organization_invitations
		(organization_id, email, locale, role, token_hash, invited_by, created_at, sent_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING `+invitationColumns,
		orgID, r.Email, r.Locale, role, hashToken(out.Token), by, now, now, now.Add(InvitationLife)).
		Scan(&out.Invitation).Error
	if err != nil {
		return nil, fmt.Errorf("insert invitation: %w", err)
	}
	return &out, nil
}

// PendingInvitations pages through the organization's invitations neither
// accepted nor canceled (expired ones too, to resend), oldest first.
func (s *Organizations) PendingInvitations(ctx context.Context, orgID string, after *TimeCursor, limit int) ([]Invitation, *TimeCursor, error) {
	return s.pendingInvitations(ctx, orgID, "", after, limit)
}

// pendingInvitations is PendingInvitations of one role ("" for every role).
func (s *Organizations) pendingInvitations(ctx context.Context, orgID, role string, after *TimeCursor, limit int) ([]Invitation, *TimeCursor, error) {
	if !validID(orgID) {
		return nil, nil, ErrNotFound
	}
	limit = min(max(limit, 1), 100)
	q := conn(ctx, s.db).Table("organization_invitations").Select(invitationColumns).
		Where("organization_id = ? AND accepted_at IS NULL AND canceled_at IS NULL", orgID)
	if role != "" {
		q = q.Where("role = ?", role)
	}
	if after != nil {
		id, err := strconv.ParseInt(after.ID, 10, 64)
		if err != nil {
			return nil, nil, ErrNotFound
		}
		q = q.Where("(created_at, id) > (?, ?)", after.At, id)
	}
	var out []Invitation
	if err := q.Order("created_at, id").Limit(limit + 1).Scan(&out).Error; err != nil {
		return nil, nil, fmt.Errorf("list invitations: %w", err)
	}
	out, next := page(out, limit, func(i Invitation) TimeCursor {
		return TimeCursor{At: i.CreatedAt, ID: strconv.FormatInt(i.ID, 10)}
	})
	return out, next, nil
}

// Invitation returns one pending invitation of the organization; another
// organization's, an accepted or a canceled one is ErrNotFound.
func (s *Organizations) Invitation(ctx context.Context, orgID string, id int64) (*Invitation, error) {
	if !validID(orgID) {
		return nil, ErrNotFound
	}
	var inv Invitation
	err := conn(ctx, s.db).Raw(`SELECT `+invitationColumns+` FROM organization_invitations
		WHERE organization_id = ? AND id = ? AND accepted_at IS NULL AND canceled_at IS NULL`, orgID, id).Take(&inv).Error
	if err != nil {
		return nil, fmt.Errorf("invitation: %w", notFound(err))
	}
	return &inv, nil
}

// ResendInvitation gives a pending invitation a new token and a new
// expiry (the old link stops working) and returns it for the letter.
func (s *Organizations) ResendInvitation(ctx context.Context, orgID string, id int64, now time.Time) (*Sent, error) {
	out := Sent{Token: newSecret()}
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		if _, err := s.lock(ctx, orgID); err != nil {
			return err
		}
		return conn(ctx, s.db).Raw(`UPDATE organization_invitations SET token_hash = ?, sent_at = ?, expires_at = ?
			WHERE organization_id = ? AND id = ? AND accepted_at IS NULL AND canceled_at IS NULL
			RETURNING `+invitationColumns, hashToken(out.Token), now, now.Add(InvitationLife), orgID, id).
			Take(&out.Invitation).Error
	})
	if err != nil {
		return nil, fmt.Errorf("resend invitation: %w", notFound(err))
	}
	return &out, nil
}

// CancelInvitation ends a pending invitation: its link stops working.
func (s *Organizations) CancelInvitation(ctx context.Context, orgID string, id int64, now time.Time) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		if _, err := s.lock(ctx, orgID); err != nil {
			return err
		}
		res := conn(ctx, s.db).Exec(`UPDATE organization_invitations SET canceled_at = ?
			WHERE organization_id = ? AND id = ? AND accepted_at IS NULL AND canceled_at IS NULL`, now, orgID, id)
		if res.Error != nil {
			return fmt.Errorf("cancel invitation: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// InvitationOrg returns a working invitation and its organization; an
// unknown, used, expired or canceled one is the matching ErrInvite….
func (s *Organizations) InvitationOrg(ctx context.Context, token string, now time.Time) (*Invitation, *Organization, error) {
	var l []Invitation
	if err := conn(ctx, s.db).Raw(`SELECT `+invitationColumns+` FROM organization_invitations WHERE token_hash = ?`,
		hashToken(token)).Scan(&l).Error; err != nil {
		return nil, nil, fmt.Errorf("invitation: %w", err)
	}
	switch {
	case len(l) == 0:
		return nil, nil, ErrInviteUnknown
	case l[0].AcceptedAt != nil:
		return nil, nil, ErrInviteUsed
	case l[0].CanceledAt != nil:
		return nil, nil, ErrInviteCanceled
	case l[0].Expired(now):
		return nil, nil, ErrInviteExpired
	}
	o, err := s.Get(ctx, l[0].OrganizationID)
	return &l[0], o, err
}

// AcceptInvitation adds the user to the invitation's organization and
// uses the invitation up, under the organization's lock: accepting twice
// at once gives one membership, and the seats still hold.
func (s *Organizations) AcceptInvitation(ctx context.Context, token, userID string, now time.Time) (*Organization, error) {
	var o *Organization
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		_, org, err := s.InvitationOrg(ctx, token, now)
		if err != nil {
			return err
		}
		if _, err := s.lock(ctx, org.ID); err != nil {
			return err
		}
		// Read again under the lock, which resending, canceling and
		// another acceptance take too.
		var inv *Invitation
		if inv, o, err = s.InvitationOrg(ctx, token, now); err != nil {
			return err
		}
		if err := s.adminInviteFor(ctx, inv, userID); err != nil {
			return err
		}
		if err := s.join(ctx, userID, o.ID, userID, inv.Role, inv.ID, now); err != nil {
			return err
		}
		return conn(ctx, s.db).Exec(`UPDATE organization_invitations SET accepted_at = ?, accepted_by = ? WHERE id = ?`,
			now, userID, inv.ID).Error
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}
