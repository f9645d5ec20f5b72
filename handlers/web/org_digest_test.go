package web_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/digest"
	"aula/internal/apptest"
	"aula/internal/smtptest"
	"aula/internal/webtest"
	"aula/models"
)

// digestOrgs are newUnderstandingOrgs with assignments overdue (in A
// subnetting for group Red, m1 "Marta Late", and go-functions-errors with
// a check required for everyone, which m2 passed; in B subnetting for
// everyone, mb "Bruno Behind")
// and two more organizations: C, whose admin turns the digest on then
// off, and D, with nothing to report. a (English), b (Spanish) and d opt
// in with the /org form.
func digestOrgs(t *testing.T) (understandingOrgs, *smtptest.Server) {
	t.Helper()
	o := newUnderstandingOrgs(t)
	s := o.s
	box := s.WithMail(t)
	for email, name := range map[string]string{"m1@example.com": "Marta Late", "m2@example.com": "Mario Done",
		"mb@example.com": "Bruno Behind", "b@example.com": "Beatriz Admin"} {
		if err := s.DB.Exec(`UPDATE users SET name = ? WHERE email = ?`, name, email).Error; err != nil {
			t.Fatal(err)
		}
	}
	s.DB.Exec(`UPDATE users SET locale = 'es' WHERE email = 'b@example.com'`)
	for c, f := range map[*webtest.Client]map[string]string{
		o.a: {"group": o.red, "lesson": "subnetting", "due": "2020-01-15"},
		o.b: {"lesson": "subnetting", "due": "2020-01-15"},
	} {
		if p := c.Submit(c.Get("/org"), "#assign-form", f); p.Status != http.StatusOK || p.Text("#admin-error") != "" {
			t.Fatalf("assign %v: %d %q", f, p.Status, p.Text("#admin-error"))
		}
	}
	// m2 passed the check of a section of go-functions-errors, m1 did not.
	for c, f := range map[*webtest.Client]map[string]string{
		o.a: {"lesson": "go-functions-errors", "due": "2020-02-01", "check": "1"},
	} {
		if p := c.Submit(c.Get("/org"), "#assign-form", f); p.Status != http.StatusOK || p.Text("#admin-error") != "" {
			t.Fatalf("assign %v: %d %q", f, p.Status, p.Text("#admin-error"))
		}
	}
	root := s.SignIn(t, "root@example.com", orgPass)
	orgWith(t, s, root, "org-c", "c@example.com")
	orgWith(t, s, root, "org-d", "d@example.com")
	c, d := s.SignIn(t, "c@example.com", orgPass), s.SignIn(t, "d@example.com", orgPass)
	o.b.Lang = "es"
	for _, step := range []struct {
		c     *webtest.Client
		state string
		flash string
	}{
		{o.a, "on", "You will get the weekly digest"},
		{o.b, "on", "Recibirás el resumen semanal"},
		{d, "on", "You will get the weekly digest"},
		{c, "on", "You will get the weekly digest"},
		{c, "off", "The weekly digest is off."},
	} {
		p := step.c.Submit(step.c.Get("/org"), "#digest-form", nil)
		if p.Doc.Find("#digest-state").AttrOr("data-state", "") != step.state || !strings.Contains(p.Text("#admin-flash"), step.flash) {
			t.Fatalf("digest toggle: %q %q, want %s", p.Text("#digest-state"), p.Text("#admin-flash"), step.state)
		}
	}
	return o, box
}

// quietLog discards a sender's log.
func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// The weekly digest: eight senders at once send each opted-in admin
// exactly one letter, in their language, naming who is behind and the
// section their members struggle with and nothing of another
// organization; an admin who turned it off gets none, one with nothing
// to report reads "all on track"; a second round that week sends nothing
// and the next week's sends again.
func TestWeeklyDigest(t *testing.T) {
	o, box := digestOrgs(t)
	s := o.s
	headings := map[string]string{}
	var rows []struct{ Anchor, Heading string }
	s.DB.Raw(`SELECT DISTINCT anchor, heading FROM lesson_chunks WHERE lesson_id = 'go-functions-errors' AND anchor IN ?`,
		[]string{o.first, o.second}).Scan(&rows)
	for _, r := range rows {
		headings[r.Anchor] = r.Heading
	}
	clock := time.Now()
	now := func() time.Time { return clock }
	overdueAsMembersSee(t, s, clock, "org-a", "org-b")
	if n := sendAtOnce(t, s, now, 8); n != 3 {
		t.Fatalf("eight senders at once sent %d letters, want 3", n)
	}
	got := letters(t, box, 3)
	if len(box.Messages) != 0 {
		t.Fatalf("%d letters more than one per admin", len(box.Messages))
	}
	a := got["a@example.com"]
	wantIn(t, "A's letter", a.Subject+"\n"+a.Text, "org-a this week", "Marta Late — 2 assignments overdue", "Test FREE — 1 assignment overdue",
		"Functions and errors › "+headings[o.first], "/org/understanding", "/org#digest", "Stop the weekly digest")
	wantOut(t, "A's letter", a.Text+a.HTML, "Bruno", "Beatriz", "Mario", headings[o.second], "I do not know")
	b := got["b@example.com"]
	wantIn(t, "B's letter", b.Subject+"\n"+b.Text, "org-b esta semana", "Bruno Behind — 1 tarea atrasada",
		"Beatriz Admin — 1 tarea atrasada", headings[o.second], "Dejar de recibir el resumen semanal")
	wantOut(t, "B's letter", b.Text+b.HTML, "Marta", headings[o.first])
	wantIn(t, "D's letter", got["d@example.com"].Text, "All on track")
	noCheckText(t, s, a.Text+b.Text)

	if n := sendAtOnce(t, s, now, 2); n != 0 || len(box.Messages) != 0 {
		t.Errorf("a second round this week sent %d", n)
	}
	clock = clock.AddDate(0, 0, 7)
	if n := sendAtOnce(t, s, now, 2); n != 3 {
		t.Errorf("next week's round sent %d, want 3", n)
	}
	letters(t, box, 3)
}

// sendAtOnce runs n senders at once and returns the letters they sent.
func sendAtOnce(t *testing.T, s *apptest.Server, now func() time.Time, n int) int {
	t.Helper()
	if err := models.Warm(t.Context(), s.DB.DB); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	start, total := make(chan struct{}), 0
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			sent, err := digest.New(s.DB.DB, s.App.Post, quietLog(), now).SendDue(context.Background())
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total += sent
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	return total
}

// wantIn fails unless text holds every want.
func wantIn(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// wantOut fails if text holds any of bad.
func wantOut(t *testing.T, what, text string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if b != "" && strings.Contains(text, b) {
			t.Errorf("%s shows %q", what, b)
		}
	}
}

// noCheckText fails when text quotes a check's question or feedback.
func noCheckText(t *testing.T, s *apptest.Server, text string) {
	t.Helper()
	var texts []string
	s.DB.Raw(`SELECT question FROM check_items UNION SELECT feedback FROM check_items WHERE feedback <> ''`).Scan(&texts)
	for _, x := range texts {
		if len(x) > 8 && strings.Contains(text, x) {
			t.Errorf("a letter quotes a check: %q", x)
		}
	}
}

// However many claim at once, one admin's digest is claimed once a week;
// a claim given back (its letter failed) is claimed again.
func TestWeeklyDigestClaimedOnce(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	orgID := orgWith(t, s, root, "org-a", "a@example.com")
	orgs, ctx, now := s.App.Orgs, context.Background(), time.Now()
	if err := orgs.SetWeeklyDigest(ctx, orgID, userID(t, s, "a@example.com"), true); err != nil {
		t.Fatal(err)
	}
	// Open the pool's connections first, or opening them would stagger the claims.
	if err := models.Warm(ctx, s.DB.DB); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var claims []*models.DigestAdmin
	start := make(chan struct{})
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := orgs.ClaimDigest(ctx, now)
			if err != nil && !errors.Is(err, models.ErrNoDigestDue) {
				t.Error(err)
			}
			if c != nil {
				mu.Lock()
				claims = append(claims, c)
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(claims) != 1 || claims[0].Email != "a@example.com" || claims[0].OrgName != "org-a" {
		t.Fatalf("twenty claims at once: %+v", claims)
	}
	if err := orgs.ReleaseDigest(ctx, claims[0]); err != nil {
		t.Fatal(err)
	}
	if c, err := orgs.ClaimDigest(ctx, now); err != nil || c.Email != "a@example.com" {
		t.Errorf("a claim given back is not claimed again: %v", err)
	}
}

// The digest toggle: a member, another organization's member or a FREE
// user gets 404, a bad value a 400 in the admin's language; a server
// without email says no digest goes out.
func TestWeeklyDigestToggleRefusals(t *testing.T) {
	o := newUnderstandingOrgs(t)
	s := o.s
	if p := o.a.Get("/org"); p.Doc.Find("#digest-no-mail").Length() != 1 {
		t.Errorf("without email /org does not say so: %q", p.Text("#digest"))
	}
	token := o.a.Get("/org").CSRF()
	for _, v := range []string{"maybe", "", "on\x00"} {
		p := o.a.Post("/org/digest", url.Values{"_csrf": {token}, "digest": {v}})
		if v == "on\x00" {
			if p.Status != http.StatusBadRequest {
				t.Errorf("digest %q: %d", v, p.Status)
			}
			continue
		}
		if p.Status != http.StatusBadRequest || p.Text("#admin-error") != "Choose on or off." {
			t.Errorf("digest %q: %d %q", v, p.Status, p.Text("#admin-error"))
		}
	}
	for _, email := range []string{"m1@example.com", "mb@example.com"} {
		c := s.SignIn(t, email, orgPass)
		if p := c.Post("/org/digest", url.Values{"_csrf": {c.Get("/settings").CSRF()}, "digest": {"on"}}); p.Status != http.StatusNotFound {
			t.Errorf("%s turned a digest on: %d", email, p.Status)
		}
	}
	free := signedInFree(t, s)
	if p := free.Post("/org/digest", url.Values{"_csrf": {free.Get("/settings").CSRF()}, "digest": {"on"}}); p.Status != http.StatusNotFound {
		t.Errorf("a FREE user: %d", p.Status)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organization_members WHERE weekly_digest`); n != 0 {
		t.Errorf("%d digests on after refusals", n)
	}
	o.a.Lang = "es"
	if p := o.a.Post("/org/digest", url.Values{"_csrf": {token}, "digest": {"x"}}); p.Text("#admin-error") != "Elige activar o desactivar." {
		t.Errorf("Spanish refusal %q", p.Text("#admin-error"))
	}
}

// overdueAsMembersSee checks that the digest counts, for every member of
// the organizations, the overdue assignments their Assigned to you marks.
func overdueAsMembersSee(t *testing.T, s *apptest.Server, now time.Time, slugs ...string) {
	t.Helper()
	ctx := context.Background()
	for _, slug := range slugs {
		var orgID string
		s.DB.Raw(`SELECT id FROM organizations WHERE slug = ?`, slug).Scan(&orgID)
		behind, total, err := s.App.Orgs.OverdueMembers(ctx, orgID, now, 100)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, m := range behind {
			got[m.UserID] = m.Overdue
		}
		var members []string
		s.DB.Raw(`SELECT user_id FROM organization_members WHERE organization_id = ?`, orgID).Scan(&members)
		want := map[string]int{}
		for _, id := range members {
			as, err := s.App.Orgs.AssignedTo(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range as {
				if a.Overdue(now) {
					want[id]++
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || total != len(want) || total == 0 {
			t.Errorf("%s: the digest counts %v overdue (%d behind), Assigned to you %v", slug, got, total, want)
		}
	}
}
