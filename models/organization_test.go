package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

// newOrg creates an organization with seats, failing the test on error.
func newOrg(t *testing.T, orgs *models.Organizations, slug string, seats int) *models.Organization {
	t.Helper()
	o, err := orgs.Create(context.Background(), models.NewOrganization{Name: "Org " + slug, Slug: slug, Seats: seats}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func planOf(t *testing.T, db *pgtest.DB, id string) string {
	t.Helper()
	var plan string
	if err := db.Raw(`SELECT plan FROM users WHERE id = ?`, id).Scan(&plan).Error; err != nil {
		t.Fatal(err)
	}
	return plan
}

// Membership: seats hold, a user is in one organization, staff cannot
// join, the only admin stays, another organization's ids are not found,
// and leaving or a deleted organization returns members to FREE with
// their threads kept.
func TestOrganizationMembershipRules(t *testing.T) {
	db := pgtest.New(t)
	ctx, now := context.Background(), time.Now()
	orgs := models.NewOrganizations(db.DB)
	root := account(t, db, "root@example.com", models.PlanSuperAdmin)
	a := account(t, db, "a@example.com", models.PlanFree)
	b := account(t, db, "b@example.com", models.PlanPro)
	c := account(t, db, "c@example.com", models.PlanFree)
	o1, o2 := newOrg(t, orgs, "one", 2), newOrg(t, orgs, "two", 5)

	if _, err := orgs.NameAdmin(ctx, root.ID, o1.ID, "A@example.com", now); err != nil {
		t.Fatal(err)
	}
	token, err := orgs.NewLink(ctx, a.ID, o1.ID, now.Add(24*time.Hour), now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := orgs.JoinByLink(ctx, token, b.ID, now); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"no seat left", func() error { _, err := orgs.JoinByLink(ctx, token, c.ID, now); return err }(), models.ErrNoSeats},
		{"joining twice", func() error { _, err := orgs.JoinByLink(ctx, token, b.ID, now); return err }(), models.ErrAlreadyMember},
		{"a second organization", func() error { _, err := orgs.NameAdmin(ctx, root.ID, o2.ID, b.Email, now); return err }(), models.ErrInOtherOrg},
		{"a staff account", func() error { _, err := orgs.NameAdmin(ctx, root.ID, o2.ID, root.Email, now); return err }(), models.ErrStaffAccount},
		{"the only admin demoted", orgs.SetRole(ctx, a.ID, o1.ID, a.ID, models.RoleMember, now), models.ErrLastOrgAdmin},
		{"the only admin removed", orgs.Remove(ctx, a.ID, o1.ID, a.ID, now), models.ErrLastOrgAdmin},
		{"seats below members", orgs.Update(ctx, o1.ID, "One", 1, now), models.ErrSeatsBelowMembers},
		{"another organization's member removed", orgs.Remove(ctx, root.ID, o2.ID, b.ID, now), models.ErrNotFound},
		{"another organization's member promoted", orgs.SetRole(ctx, root.ID, o2.ID, b.ID, models.RoleAdmin, now), models.ErrNotFound},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if p := planOf(t, db, a.ID); p != models.PlanCorporateAdmin {
		t.Errorf("the named admin's plan is %s", p)
	}
	if p := planOf(t, db, b.ID); p != models.PlanCorporateUser {
		t.Errorf("the member's plan is %s", p)
	}
	// A co-admin lets the first admin step down.
	if err := orgs.SetRole(ctx, a.ID, o1.ID, b.ID, models.RoleAdmin, now); err != nil {
		t.Fatal(err)
	}
	if err := orgs.SetRole(ctx, a.ID, o1.ID, a.ID, models.RoleMember, now); err != nil {
		t.Fatalf("demote with a co-admin: %v", err)
	}
	if err := orgs.Leave(ctx, a.ID, now); err != nil {
		t.Fatal(err)
	}
	if p := planOf(t, db, a.ID); p != models.PlanFree {
		t.Errorf("after leaving the plan is %s", p)
	}
	if err := orgs.Delete(ctx, root.ID, o1.ID, now); err != nil {
		t.Fatal(err)
	}
	if p := planOf(t, db, b.ID); p != models.PlanFree {
		t.Errorf("after the organization's deletion the plan is %s", p)
	}
	var threads, changes int64
	db.Raw(`SELECT count(*) FROM messages WHERE user_id IN (?, ?)`, a.ID, b.ID).Scan(&threads)
	db.Raw(`SELECT count(*) FROM plan_changes WHERE user_id = ? AND to_plan = 'FREE'`, b.ID).Scan(&changes)
	if threads == 0 || changes != 1 {
		t.Errorf("after leaving: %d messages kept, %d audited returns to FREE", threads, changes)
	}
}

// A join link explains itself: unknown, revoked, expired; a new link
// revokes the old one.
func TestJoinLinkStates(t *testing.T) {
	db := pgtest.New(t)
	ctx, now := context.Background(), time.Now()
	orgs := models.NewOrganizations(db.DB)
	o := newOrg(t, orgs, "links", 3)
	old, _ := orgs.NewLink(ctx, "", o.ID, now.Add(time.Hour), now)
	fresh, _ := orgs.NewLink(ctx, "", o.ID, now.Add(time.Hour), now)
	if _, err := orgs.LinkOrg(ctx, fresh, now); err != nil {
		t.Fatalf("the new link: %v", err)
	}
	for _, tc := range []struct {
		name, token string
		at          time.Time
		want        error
	}{
		{"unknown", otherFirst(fresh), now, models.ErrLinkUnknown},
		{"regenerated", old, now, models.ErrLinkRevoked},
		{"expired", fresh, now.Add(2 * time.Hour), models.ErrLinkExpired},
	} {
		if _, err := orgs.LinkOrg(ctx, tc.token, tc.at); !errors.Is(err, tc.want) {
			t.Errorf("%s link: %v, want %v", tc.name, err, tc.want)
		}
	}
	if err := orgs.RevokeLink(ctx, o.ID, now); err != nil {
		t.Fatal(err)
	}
	if _, err := orgs.LinkOrg(ctx, fresh, now); !errors.Is(err, models.ErrLinkRevoked) {
		t.Errorf("revoked link: %v", err)
	}
	for _, exp := range []time.Time{now, now.Add(-time.Hour), now.Add(400 * 24 * time.Hour)} {
		if _, err := orgs.NewLink(ctx, "", o.ID, exp, now); !errors.Is(err, models.ErrLinkExpiry) {
			t.Errorf("expiry %v: %v", exp.Sub(now), err)
		}
	}
}

func TestNewOrganizationValidation(t *testing.T) {
	for _, tc := range []struct {
		n    models.NewOrganization
		want error
	}{
		{models.NewOrganization{Name: " ", Slug: "a", Seats: 1}, models.ErrOrgName},
		{models.NewOrganization{Name: strings.Repeat("n", 101), Slug: "a", Seats: 1}, models.ErrOrgName},
		{models.NewOrganization{Name: "N", Slug: "Bad Slug", Seats: 1}, models.ErrOrgSlug},
		{models.NewOrganization{Name: "N", Slug: "-a", Seats: 1}, models.ErrOrgSlug},
		{models.NewOrganization{Name: "N", Slug: strings.Repeat("a", 65), Seats: 1}, models.ErrOrgSlug},
		{models.NewOrganization{Name: "N", Slug: "a", Seats: 0}, models.ErrOrgSeats},
		{models.NewOrganization{Name: "N", Slug: "a", Seats: -3}, models.ErrOrgSeats},
		{models.NewOrganization{Name: "N", Slug: "a", Seats: models.MaxSeats + 1}, models.ErrOrgSeats},
		{models.NewOrganization{Name: "Colegio Ñandú", Slug: "colegio-nandu-2", Seats: 30}, nil},
	} {
		if err := tc.n.Validate(); !errors.Is(err, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.n, err, tc.want)
		}
	}
}

// otherFirst is token with its first character changed: "x" + token[1:]
// was the token itself whenever the token began with "x" (CI saw it).
func otherFirst(token string) string {
	if token[0] == 'x' {
		return "y" + token[1:]
	}
	return "x" + token[1:]
}
