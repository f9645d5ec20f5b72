package models_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

// Twenty people accepting one invitation at the same instant give one
// membership and nineteen ErrInviteUsed: the invitation is read again
// under the organization's lock.
func TestInvitationAcceptedOnceAtTheSameInstant(t *testing.T) {
	db := pgtest.New(t)
	ctx, now := context.Background(), time.Now()
	orgs := models.NewOrganizations(db.DB)
	o := newOrg(t, orgs, "one", 50)
	sent, refused, err := orgs.Invite(ctx, "", o.ID, []models.Invitee{{Line: 1, Email: "guest@example.com", Locale: "en"}}, now)
	if err != nil || len(sent) != 1 || len(refused) != 0 {
		t.Fatalf("invite: %v %v %v", sent, refused, err)
	}
	const n = 20
	users := make([]*models.User, n)
	for i := range n {
		users[i] = account(t, db, fmt.Sprintf("p%02d@example.com", i), models.PlanFree)
	}
	// Open the pool's connections first, or opening them would stagger the
	// acceptances so that none overlaps.
	if err := models.Warm(ctx, db.DB); err != nil {
		t.Fatal(err)
	}
	start, errs := make(chan struct{}), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = orgs.AcceptInvitation(ctx, sent[0].Token, users[i].ID, now)
		})
	}
	close(start)
	wg.Wait()
	joined, used := 0, 0
	for i, err := range errs {
		switch {
		case err == nil:
			joined++
		case errors.Is(err, models.ErrInviteUsed):
			used++
		default:
			t.Errorf("person %d: %v", i, err)
		}
	}
	var members int
	db.Raw(`SELECT count(*) FROM organization_members WHERE organization_id = ?`, o.ID).Scan(&members)
	if joined != 1 || used != n-1 || members != 1 {
		t.Fatalf("%d joined, %d used, %d members; want 1, %d, 1", joined, used, members, n-1)
	}
}

// Pending invitations page by keyset, oldest first, and leave out the
// canceled; another organization's are not found.
func TestPendingInvitationsPaged(t *testing.T) {
	db := pgtest.New(t)
	ctx, now := context.Background(), time.Now()
	orgs := models.NewOrganizations(db.DB)
	o, other := newOrg(t, orgs, "one", 50), newOrg(t, orgs, "two", 50)
	var rows []models.Invitee
	for i := range 5 {
		rows = append(rows, models.Invitee{Line: i + 1, Email: fmt.Sprintf("p%d@example.com", i), Locale: "es"})
	}
	sent, _, err := orgs.Invite(ctx, "", o.ID, rows, now)
	if err != nil || len(sent) != 5 {
		t.Fatalf("invite: %d %v", len(sent), err)
	}
	if err := orgs.CancelInvitation(ctx, o.ID, sent[1].ID, now); err != nil {
		t.Fatal(err)
	}
	if err := orgs.CancelInvitation(ctx, other.ID, sent[2].ID, now); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("another organization cancels: %v", err)
	}
	if _, err := orgs.ResendInvitation(ctx, other.ID, sent[2].ID, now); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("another organization resends: %v", err)
	}
	var got []string
	var after *models.TimeCursor
	for range 3 {
		page, next, err := orgs.PendingInvitations(ctx, o.ID, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range page {
			got = append(got, inv.Email)
		}
		if after = next; next == nil {
			break
		}
	}
	if want := "p0@example.com p2@example.com p3@example.com p4@example.com"; fmt.Sprint(got) != "["+want+"]" {
		t.Fatalf("pages: %v, want %s", got, want)
	}
}

// A pending invitation holds its seat: a join link or naming an admin does
// not take it, its own acceptance does, and an expired one holds nothing.
func TestPendingInvitationHoldsItsSeat(t *testing.T) {
	db := pgtest.New(t)
	ctx, now := context.Background(), time.Now()
	orgs := models.NewOrganizations(db.DB)
	o := newOrg(t, orgs, "one", 3)
	old := []models.Invitee{{Line: 1, Email: "late@example.com", Locale: "en"}}
	if _, _, err := orgs.Invite(ctx, "", o.ID, old, now.AddDate(0, 0, -30)); err != nil {
		t.Fatal(err)
	}
	sent, _, err := orgs.Invite(ctx, "", o.ID, []models.Invitee{{Line: 1, Email: "guest@example.com", Locale: "en"}}, now)
	if err != nil || len(sent) != 1 {
		t.Fatalf("invite: %v %v", sent, err)
	}
	token, err := orgs.NewLink(ctx, "", o.ID, now.AddDate(0, 0, 7), now)
	if err != nil {
		t.Fatal(err)
	}
	people := map[string]*models.User{}
	for _, e := range []string{"a", "b", "c", "guest"} {
		people[e] = account(t, db, e+"@example.com", models.PlanFree)
	}
	for _, step := range []struct {
		name string
		err  error
		want error
	}{
		{"the first by the link", join(ctx, orgs, token, people["a"], now), nil},
		{"the second by the link", join(ctx, orgs, token, people["b"], now), nil},
		{"the third by the link: the invitation holds the seat", join(ctx, orgs, token, people["c"], now), models.ErrNoSeats},
		{"named admin", func() error { _, err := orgs.NameAdmin(ctx, "", o.ID, "c@example.com", now); return err }(), models.ErrNoSeats},
		{"the invited", func() error { _, err := orgs.AcceptInvitation(ctx, sent[0].Token, people["guest"].ID, now); return err }(), nil},
	} {
		if !errors.Is(step.err, step.want) {
			t.Errorf("%s: %v, want %v", step.name, step.err, step.want)
		}
	}
	if held, err := orgs.SeatsHeld(ctx, o.ID, now); err != nil || held != 0 {
		t.Fatalf("seats held after the acceptance: %d %v", held, err)
	}
}

// join joins u by the link, for a table of steps.
func join(ctx context.Context, orgs *models.Organizations, token string, u *models.User, now time.Time) error {
	_, err := orgs.JoinByLink(ctx, token, u.ID, now)
	return err
}
