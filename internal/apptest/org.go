package apptest

import (
	"context"
	"testing"
	"time"

	"aula/models"
)

// OrgPassword is the password of every account Org creates.
const OrgPassword = "org-pass-123"

// Org creates an organization of 10 seats through the store, as a
// SUPER_ADMIN and its join link would: admin is named its admin, each of
// members joins by the link (every account is created here, FREE before).
// It returns the organization's id.
func (s *Server) Org(t testing.TB, slug, admin string, members ...string) string {
	t.Helper()
	ctx, now := context.Background(), time.Now()
	orgs := models.NewOrganizations(s.DB.DB)
	o, err := orgs.Create(ctx, models.NewOrganization{Name: "Org " + slug, Slug: slug, Seats: 10}, now)
	if err != nil {
		t.Fatalf("create organization %s: %v", slug, err)
	}
	s.User(t, admin, OrgPassword, models.PlanFree)
	if _, err := orgs.NameAdmin(ctx, "", o.ID, admin, now); err != nil {
		t.Fatalf("name %s admin of %s: %v", admin, slug, err)
	}
	link, err := orgs.NewLink(ctx, "", o.ID, now.Add(24*time.Hour), now)
	if err != nil {
		t.Fatalf("join link of %s: %v", slug, err)
	}
	for _, m := range members {
		u := s.User(t, m, OrgPassword, models.PlanFree)
		// Each joins a moment later, so the member list's order is theirs.
		if _, err := orgs.JoinByLink(ctx, link, u.ID, time.Now()); err != nil {
			t.Fatalf("%s joins %s: %v", m, slug, err)
		}
	}
	return o.ID
}

// UserID is the id of the account with email.
func (s *Server) UserID(t testing.TB, email string) string {
	t.Helper()
	var id string
	if err := s.DB.Raw(`SELECT id FROM users WHERE email = ?`, email).Scan(&id).Error; err != nil || id == "" {
		t.Fatalf("user %s: %v", email, err)
	}
	return id
}
