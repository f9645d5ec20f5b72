package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

// Every plan change, whoever makes it, keeps plan and membership in step:
// the audit's and the upgrade's refuse what disagrees, the organization's
// turns a member's corporate plan into their role.
func TestPlanFollowsMembershipInEveryStore(t *testing.T) {
	db := pgtest.New(t)
	ctx, now := context.Background(), time.Now()
	orgs, audit := models.NewOrganizations(db.DB), models.NewAudit(db.DB)
	root := account(t, db, "root@example.com", models.PlanSuperAdmin)
	a := account(t, db, "a@example.com", models.PlanFree)
	m := account(t, db, "m@example.com", models.PlanFree)
	free := account(t, db, "free@example.com", models.PlanFree)
	o := newOrg(t, orgs, "one", 5)
	for _, u := range []*models.User{a, m} {
		if _, err := orgs.NameAdmin(ctx, root.ID, o.ID, u.Email, now); err != nil {
			t.Fatal(err)
		}
	}
	if err := orgs.SetRole(ctx, a.ID, o.ID, m.ID, models.RoleMember, now); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		change     func() error
		want       error
		user, plan string
	}{
		{"audit: corporate outside", func() error {
			_, err := audit.ChangePlan(ctx, root.ID, free.ID, models.PlanCorporateUser, now)
			return err
		},
			models.ErrCorporateNeedsOrg, free.ID, models.PlanFree},
		{"audit: a member to PRO", func() error { _, err := audit.ChangePlan(ctx, root.ID, m.ID, models.PlanPro, now); return err },
			models.ErrPlanFollowsOrg, m.ID, models.PlanCorporateUser},
		{"audit: a member to admin without the role", func() error {
			_, err := audit.ChangePlan(ctx, root.ID, m.ID, models.PlanCorporateAdmin, now)
			return err
		}, models.ErrPlanFollowsOrg, m.ID, models.PlanCorporateUser},
		{"orgs: a member to FREE", func() error { _, err := orgs.ChangePlan(ctx, root.ID, m.ID, models.PlanFree, now); return err },
			models.ErrPlanFollowsOrg, m.ID, models.PlanCorporateUser},
		{"orgs: the last admin demoted", func() error {
			_, err := orgs.ChangePlan(ctx, root.ID, a.ID, models.PlanCorporateUser, now)
			return err
		}, models.ErrLastOrgAdmin, a.ID, models.PlanCorporateAdmin},
		{"orgs: unknown plan", func() error { _, err := orgs.ChangePlan(ctx, root.ID, m.ID, "GOLD", now); return err },
			models.ErrUnknownPlan, m.ID, models.PlanCorporateUser},
		{"orgs: a member promoted", func() error {
			ch, err := orgs.ChangePlan(ctx, root.ID, m.ID, models.PlanCorporateAdmin, now)
			if err == nil && (ch == nil || ch.ToPlan != models.PlanCorporateAdmin) {
				return errors.New("no plan change returned")
			}
			return err
		}, nil, m.ID, models.PlanCorporateAdmin},
		{"orgs: outside, a plain plan", func() error { _, err := orgs.ChangePlan(ctx, root.ID, free.ID, models.PlanPro, now); return err },
			nil, free.ID, models.PlanPro},
	} {
		if err := tc.change(); !errors.Is(err, tc.want) || planOf(t, db, tc.user) != tc.plan {
			t.Errorf("%s: %v (want %v), plan %s (want %s)", tc.name, err, tc.want, planOf(t, db, tc.user), tc.plan)
		}
	}
	var role string
	db.Raw(`SELECT role FROM organization_members WHERE user_id = ?`, m.ID).Scan(&role)
	if role != models.RoleAdmin {
		t.Errorf("the member promoted by plan has role %s", role)
	}
}

// An admin invitation takes a seat, turns the address's pending member
// invitation into itself, and is accepted only by the invited address.
func TestAdminInvitationRules(t *testing.T) {
	db := pgtest.New(t)
	ctx, now := context.Background(), time.Now()
	orgs := models.NewOrganizations(db.DB)
	root := account(t, db, "root@example.com", models.PlanSuperAdmin)
	o := newOrg(t, orgs, "one", 2)
	if _, _, err := orgs.Invite(ctx, root.ID, o.ID, []models.Invitee{{Line: 1, Email: "luz@example.com", Locale: "en"}}, now); err != nil {
		t.Fatal(err)
	}
	sent, err := orgs.InviteAdmin(ctx, root.ID, o.ID, "LUZ@example.com", "es", now)
	if err != nil || sent.Role != models.RoleAdmin || sent.Locale != "es" {
		t.Fatalf("the member invitation made an admin one: %v %+v", err, sent)
	}
	if _, err := orgs.InviteAdmin(ctx, root.ID, o.ID, "luz@example.com", "es", now); !errors.Is(err, models.ErrInvitePending) {
		t.Errorf("twice: %v", err)
	}
	if _, err := orgs.InviteAdmin(ctx, root.ID, o.ID, "eva@example.com", "en", now); err != nil {
		t.Fatal(err)
	}
	for email, want := range map[string]error{"x@example.com": models.ErrNoSeats, "nope": models.ErrInviteAddress} {
		if _, err := orgs.InviteAdmin(ctx, root.ID, o.ID, email, "en", now); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", email, err, want)
		}
	}
	if _, err := orgs.InviteAdmin(ctx, root.ID, o.ID, "ok@example.com", "fr", now); !errors.Is(err, models.ErrInviteLanguage) {
		t.Errorf("a letter in French: %v", err)
	}
	other := account(t, db, "other@example.com", models.PlanFree)
	if _, err := orgs.AcceptInvitation(ctx, sent.Token, other.ID, now); !errors.Is(err, models.ErrInviteOtherAccount) {
		t.Fatalf("another account accepted: %v", err)
	}
	luz := account(t, db, "luz@example.com", models.PlanFree)
	if _, err := orgs.AcceptInvitation(ctx, sent.Token, luz.ID, now); err != nil || planOf(t, db, luz.ID) != models.PlanCorporateAdmin {
		t.Fatalf("luz accepts: %v, plan %s", err, planOf(t, db, luz.ID))
	}
	pending, _, err := orgs.PendingAdminInvitations(ctx, o.ID, nil, 10)
	if err != nil || len(pending) != 1 || pending[0].Email != "eva@example.com" {
		t.Errorf("pending admin invitations: %v %+v", err, pending)
	}
}
