package models

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Errors of naming an organization's admin and of keeping a plan in step
// with membership; the fronts translate them.
var (
	// ErrInviteOtherAccount is an admin invitation accepted by an account
	// with another address than the one invited.
	ErrInviteOtherAccount = errors.New("the admin invitation is for another address")
	// ErrPlanFollowsOrg is a plan change of a member that their role in
	// the organization does not give: it changes with membership only.
	ErrPlanFollowsOrg = errors.New("a member's plan follows their organization")
	// ErrCorporateNeedsOrg is a corporate plan for someone in no organization.
	ErrCorporateNeedsOrg = errors.New("a corporate plan belongs to an organization's members")
)

// IsCorporatePlan reports whether plan is one an organization gives.
func IsCorporatePlan(plan string) bool {
	return plan == PlanCorporateUser || plan == PlanCorporateAdmin
}

// roleOfPlan is the role a corporate plan stands for.
func roleOfPlan(plan string) string {
	if plan == PlanCorporateAdmin {
		return RoleAdmin
	}
	return RoleMember
}

// planFitsMembership refuses a plan that disagrees with membership: a
// member's plan is their role's (ErrPlanFollowsOrg), and nobody outside
// an organization has a corporate plan (ErrCorporateNeedsOrg). role is
// the user's role, nil outside any organization.
func planFitsMembership(plan string, role *string) error {
	switch {
	case role != nil && plan != planOfRole(*role):
		return ErrPlanFollowsOrg
	case role == nil && IsCorporatePlan(plan):
		return ErrCorporateNeedsOrg
	}
	return nil
}

// ChangePlan is a SUPER_ADMIN's change of a user's plan, kept in step with
// membership: for a member a corporate plan is a role, so it promotes or
// demotes them (never the last admin, ErrLastOrgAdmin), and any other
// plan is ErrPlanFollowsOrg (they leave, or are removed, first); a
// corporate plan for someone in no organization is ErrCorporateNeedsOrg.
func (s *Organizations) ChangePlan(ctx context.Context, adminID, userID, plan string, now time.Time) (*PlanChange, error) {
	m, err := s.MembershipOf(ctx, userID)
	switch {
	case errors.Is(err, ErrNotFound):
		return changePlan(ctx, s.db, adminID, userID, plan, now)
	case err != nil:
		return nil, err
	case !ValidPlan(plan):
		return nil, ErrUnknownPlan
	case IsCorporatePlan(plan):
		return s.setRole(ctx, adminID, m.OrganizationID, userID, roleOfPlan(plan), now)
	case plan == planOfRole(m.Role):
		return nil, nil
	}
	return nil, ErrPlanFollowsOrg
}

// InviteAdmin invites email, which no account has yet, to administer the
// organization, with a letter in locale: accepting it (signing up on the
// way, with that address) makes the person its CORPORATE_ADMIN. It takes
// a seat as any invitation does. A pending member invitation of the
// address becomes the admin one with a new link; a pending admin one is
// ErrInvitePending (resend it instead).
func (s *Organizations) InviteAdmin(ctx context.Context, byID, orgID, email, locale string, now time.Time) (*Sent, error) {
	r := newInvitee(1, email, locale, "")
	if r.Err != nil {
		return nil, r.Err
	}
	var out *Sent
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		seats, err := s.lock(ctx, orgID)
		if err != nil {
			return err
		}
		err = s.inviteable(ctx, orgID, r.Email, now)
		if errors.Is(err, ErrInvitePending) {
			out, err = s.promoteInvitation(ctx, byID, orgID, r, now)
			return err
		}
		if err != nil {
			return err
		}
		taken, err := s.seatsPromised(ctx, orgID, 0, now)
		if err != nil {
			return err
		}
		if taken >= seats {
			return ErrNoSeats
		}
		out, err = s.insertInvitation(ctx, byID, orgID, RoleAdmin, r, now)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("invite admin: %w", err)
	}
	return out, nil
}

// promoteInvitation turns the address's pending member invitation into an
// admin one with a new link and expiry (it keeps the seat it holds); a
// pending admin invitation is ErrInvitePending.
func (s *Organizations) promoteInvitation(ctx context.Context, byID, orgID string, r Invitee, now time.Time) (*Sent, error) {
	var by *string
	if validID(byID) {
		by = &byID
	}
	out := Sent{Token: newSecret()}
	var rows []Invitation
	err := conn(ctx, s.db).Raw(`UPDATE organization_invitations
		SET role = ?, locale = ?, token_hash = ?, invited_by = ?, sent_at = ?, expires_at = ?
		WHERE organization_id = ? AND email = ? AND role = ? AND accepted_at IS NULL AND canceled_at IS NULL
		RETURNING `+invitationColumns, RoleAdmin, r.Locale, hashToken(out.Token), by, now, now.Add(InvitationLife),
		orgID, r.Email, RoleMember).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("promote invitation: %w", err)
	}
	if len(rows) == 0 {
		return nil, ErrInvitePending
	}
	out.Invitation = rows[0]
	return &out, nil
}

// adminInviteFor refuses an admin invitation to any account but the one
// with the invited address (ErrInviteOtherAccount): a forwarded link or
// another signed-in account does not make someone else the admin.
func (s *Organizations) adminInviteFor(ctx context.Context, inv *Invitation, userID string) error {
	if inv.Role != RoleAdmin {
		return nil
	}
	var email string
	if err := conn(ctx, s.db).Raw(`SELECT email FROM users WHERE id = ?`, userID).Row().Scan(&email); err != nil {
		return fmt.Errorf("invited account: %w", notFound(err))
	}
	if email != inv.Email {
		return ErrInviteOtherAccount
	}
	return nil
}

// PendingAdminInvitations pages through the organization's pending admin
// invitations (expired ones too, to resend), oldest first.
func (s *Organizations) PendingAdminInvitations(ctx context.Context, orgID string, after *TimeCursor, limit int) ([]Invitation, *TimeCursor, error) {
	return s.pendingInvitations(ctx, orgID, RoleAdmin, after, limit)
}
