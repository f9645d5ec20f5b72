package models

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Roles of an organization's members.
const (
	RoleAdmin  = "admin"
	RoleMember = "member"
)

// Errors of memberships; the fronts translate them.
var (
	ErrNoSeats = errors.New("the organization has no free seat")
	// ErrInOtherOrg is a user who already belongs to another organization.
	ErrInOtherOrg = errors.New("the user belongs to another organization")
	// ErrAlreadyMember is a user who already belongs to this organization.
	ErrAlreadyMember = errors.New("the user already belongs to this organization")
	// ErrStaffAccount is a CONTENT_ADMIN or SUPER_ADMIN: their plan is
	// their role in aula, which membership would take away.
	ErrStaffAccount = errors.New("a staff account cannot join an organization")
	// ErrLastOrgAdmin is demoting or removing an organization's only admin.
	ErrLastOrgAdmin = errors.New("an organization keeps at least one admin")
	ErrUnknownRole  = errors.New("unknown role")
)

// Membership is the organization a user belongs to, and their role in it.
type Membership struct {
	OrganizationID string
	OrgName        string
	Role           string
	JoinedAt       time.Time
}

// IsAdmin reports whether the member administers the organization.
func (m *Membership) IsAdmin() bool { return m != nil && m.Role == RoleAdmin }

// Member is one row of an organization's member list.
type Member struct {
	UserID, Name, Email, Role string
	JoinedAt                  time.Time
}

// planOfRole is the plan a member has while they belong.
func planOfRole(role string) string {
	if role == RoleAdmin {
		return PlanCorporateAdmin
	}
	return PlanCorporateUser
}

// MembershipOf returns the organization the user belongs to, ErrNotFound when none.
func (s *Organizations) MembershipOf(ctx context.Context, userID string) (*Membership, error) {
	if !validID(userID) {
		return nil, ErrNotFound
	}
	var m Membership
	err := conn(ctx, s.db).Raw(`SELECT m.organization_id, o.name AS org_name, m.role, m.joined_at
		FROM organization_members m JOIN organizations o ON o.id = m.organization_id
		WHERE m.user_id = ?`, userID).Take(&m).Error
	if err != nil {
		return nil, fmt.Errorf("membership: %w", notFound(err))
	}
	return &m, nil
}

// Members pages through an organization's members in the order they
// joined, on the keyset index; it returns the next page's cursor, nil on
// the last page.
func (s *Organizations) Members(ctx context.Context, orgID string, after *TimeCursor, limit int) ([]Member, *TimeCursor, error) {
	if !validID(orgID) {
		return nil, nil, ErrNotFound
	}
	limit = min(max(limit, 1), 100)
	q := conn(ctx, s.db).Table("organization_members m").Joins("JOIN users u ON u.id = m.user_id").
		Select("m.user_id, u.name, u.email, m.role, m.joined_at").Where("m.organization_id = ?", orgID)
	if after != nil {
		q = q.Where("(m.joined_at, m.user_id) > (?, ?)", after.At, after.ID)
	}
	var out []Member
	if err := q.Order("m.joined_at, m.user_id").Limit(limit + 1).Scan(&out).Error; err != nil {
		return nil, nil, fmt.Errorf("list members: %w", err)
	}
	out, next := page(out, limit, func(m Member) TimeCursor { return TimeCursor{At: m.JoinedAt, ID: m.UserID} })
	return out, next, nil
}

// join adds userID to the organization with role, under the organization's
// row lock, so parallel joins never pass its seats; the user's plan becomes
// the role's, an audited change by byID. The seats held by pending
// invitations are not free: only accepting (the id of the invitation the
// user accepts, 0 for none) takes its own.
func (s *Organizations) join(ctx context.Context, byID, orgID, userID, role string, accepting int64, now time.Time) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		seats, err := s.lock(ctx, orgID)
		if err != nil {
			return err
		}
		taken, err := s.seatsPromised(ctx, orgID, accepting, now)
		if err != nil {
			return err
		}
		tx := conn(ctx, s.db)
		var st struct {
			Plan  string
			OrgID *string
		}
		if err := tx.Raw(`SELECT u.plan, m.organization_id AS org_id
			FROM users u LEFT JOIN organization_members m ON m.user_id = u.id WHERE u.id = ?`, userID).
			Take(&st).Error; err != nil {
			return fmt.Errorf("joining user: %w", notFound(err))
		}
		switch {
		case st.OrgID != nil && *st.OrgID == orgID:
			return ErrAlreadyMember
		case st.OrgID != nil:
			return ErrInOtherOrg
		case IsAdminPlan(st.Plan):
			return ErrStaffAccount
		case taken >= seats:
			return ErrNoSeats
		}
		if err := tx.Exec(`INSERT INTO organization_members (organization_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)`,
			orgID, userID, role, now).Error; err != nil {
			// The user joined another organization meanwhile (user_id is the key).
			if uniqueViolation(err) {
				return ErrInOtherOrg
			}
			return fmt.Errorf("add member: %w", err)
		}
		_, err = changePlan(ctx, s.db, byID, userID, planOfRole(role), now)
		return err
	})
}

// NameAdmin makes the user with email an admin of the organization: a
// member is promoted, anyone else joins as an admin (taking a seat).
func (s *Organizations) NameAdmin(ctx context.Context, byID, orgID, email string, now time.Time) (*User, error) {
	u, err := NewUsers(s.db).GetByEmail(ctx, email)
	if err != nil {
		return nil, err
	}
	err = s.join(ctx, byID, orgID, u.ID, RoleAdmin, 0, now)
	if errors.Is(err, ErrAlreadyMember) {
		err = s.SetRole(ctx, byID, orgID, u.ID, RoleAdmin, now)
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

// SetRole promotes a member to admin or demotes an admin to member (plan
// CORPORATE_ADMIN or CORPORATE_USER); the only admin cannot be demoted.
// A user outside the organization is ErrNotFound.
func (s *Organizations) SetRole(ctx context.Context, byID, orgID, userID, role string, now time.Time) error {
	_, err := s.setRole(ctx, byID, orgID, userID, role, now)
	return err
}

// setRole is SetRole returning the plan change it made (nil for none).
func (s *Organizations) setRole(ctx context.Context, byID, orgID, userID, role string, now time.Time) (*PlanChange, error) {
	if role != RoleAdmin && role != RoleMember {
		return nil, ErrUnknownRole
	}
	var ch *PlanChange
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		current, err := s.lockMember(ctx, orgID, userID)
		if err != nil || current == role {
			return err
		}
		if role == RoleMember {
			if err := s.keepAnAdmin(ctx, orgID); err != nil {
				return err
			}
		}
		if err := conn(ctx, s.db).Exec(`UPDATE organization_members SET role = ? WHERE user_id = ?`, role, userID).Error; err != nil {
			return fmt.Errorf("set role: %w", err)
		}
		ch, err = changePlan(ctx, s.db, byID, userID, planOfRole(role), now)
		return err
	})
	return ch, err
}

// lockMember takes the organization's lock and returns the role of userID
// in it; a user outside it is ErrNotFound.
func (s *Organizations) lockMember(ctx context.Context, orgID, userID string) (string, error) {
	if _, err := s.lock(ctx, orgID); err != nil {
		return "", err
	}
	if !validID(userID) {
		return "", ErrNotFound
	}
	var role string
	err := conn(ctx, s.db).Raw(`SELECT role FROM organization_members WHERE organization_id = ? AND user_id = ?`,
		orgID, userID).Row().Scan(&role)
	if err != nil {
		return "", fmt.Errorf("member: %w", notFound(err))
	}
	return role, nil
}

// keepAnAdmin refuses a change that would take the organization's only
// admin away (ErrLastOrgAdmin); the caller holds the organization's lock.
func (s *Organizations) keepAnAdmin(ctx context.Context, orgID string) error {
	var admins int
	if err := conn(ctx, s.db).Raw(`SELECT count(*) FROM organization_members WHERE organization_id = ? AND role = ?`,
		orgID, RoleAdmin).Scan(&admins).Error; err != nil {
		return fmt.Errorf("count admins: %w", err)
	}
	if admins <= 1 {
		return ErrLastOrgAdmin
	}
	return nil
}

// Remove takes a member out of the organization, back to FREE; the only
// admin cannot be removed. A user outside the organization is ErrNotFound.
// What the member wrote stays theirs.
func (s *Organizations) Remove(ctx context.Context, byID, orgID, userID string, now time.Time) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		role, err := s.lockMember(ctx, orgID, userID)
		if err != nil {
			return err
		}
		if role == RoleAdmin {
			if err := s.keepAnAdmin(ctx, orgID); err != nil {
				return err
			}
		}
		if err := s.returnToFree(ctx, byID, orgID, userID, now); err != nil {
			return err
		}
		return conn(ctx, s.db).Exec(`DELETE FROM organization_members WHERE user_id = ?`, userID).Error
	})
}

// Leave takes the user out of their organization (Remove by themself);
// not belonging to one is ErrNotFound.
func (s *Organizations) Leave(ctx context.Context, userID string, now time.Time) error {
	m, err := s.MembershipOf(ctx, userID)
	if err != nil {
		return err
	}
	return s.Remove(ctx, userID, m.OrganizationID, userID, now)
}

// Member returns one member of the organization; a user outside it is ErrNotFound.
func (s *Organizations) Member(ctx context.Context, orgID, userID string) (*Member, error) {
	if !validID(orgID) || !validID(userID) {
		return nil, ErrNotFound
	}
	var m Member
	err := conn(ctx, s.db).Raw(`SELECT m.user_id, u.name, u.email, m.role, m.joined_at
		FROM organization_members m JOIN users u ON u.id = m.user_id
		WHERE m.organization_id = ? AND m.user_id = ?`, orgID, userID).Take(&m).Error
	if err != nil {
		return nil, fmt.Errorf("member: %w", notFound(err))
	}
	return &m, nil
}
