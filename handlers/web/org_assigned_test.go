package web_test

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// pathID is the id of the path with slug, as the assignment form sends it.
func pathID(t *testing.T, s *apptest.Server, slug string) string {
	t.Helper()
	var id int64
	if err := s.DB.Raw(`SELECT id FROM paths WHERE slug = ?`, slug).Scan(&id).Error; err != nil || id == 0 {
		t.Fatalf("path %s: %v", slug, err)
	}
	return strconv.FormatInt(id, 10)
}

// firstAssignment is the id of the assignment of lesson.
func firstAssignment(t *testing.T, s *apptest.Server, lesson string) string {
	t.Helper()
	var id int64
	s.DB.Raw(`SELECT id FROM organization_assignments WHERE lesson_id = ? ORDER BY id LIMIT 1`, lesson).Scan(&id)
	return strconv.FormatInt(id, 10)
}

// A member sees exactly their assignments (through a group and the whole
// organization's) on /learn and /dashboard, by due date, the past one
// overdue, each lesson's state following the rows of their progress; the
// page costs the same statements whatever the number of assignments.
func TestAssignedToYou(t *testing.T) {
	s := assignedOrg(t)
	m1 := userID(t, s, "m1@example.com")
	c1, c2, cb := s.SignIn(t, "m1@example.com", orgPass), s.SignIn(t, "m2@example.com", orgPass), s.SignIn(t, "mb@example.com", orgPass)
	p := c1.Get("/learn")
	titles := p.Doc.Find("#assigned .assigned-item strong").Map(func(_ int, sel *goquery.Selection) string { return sel.Text() })
	if strings.Join(titles, "|") != "What a VLAN is and why it matters|Networking fundamentals|Subnetting IPv4" {
		t.Fatalf("m1's assignments: %q", titles)
	}
	vlan := p.Doc.Find("#assigned .assigned-item").First()
	if vlan.AttrOr("data-overdue", "") != "true" || !strings.Contains(vlan.Text(), "Overdue") {
		t.Errorf("the past due date is not marked overdue: %q", vlan.Text())
	}
	if n := p.Doc.Find(`#assigned .assigned-item[data-overdue=true]`).Length(); n != 1 {
		t.Errorf("%d overdue, want 1", n)
	}
	if got := p.Doc.Find("#assigned li[data-state=not_started]").Length(); got != 6 {
		t.Errorf("%d lessons not started, want 6 (1 + 4 of the path + 1)", got)
	}
	if d := c1.Get("/dashboard"); d.Doc.Find("#assigned .assigned-item").Length() != 3 {
		t.Errorf("the dashboard shows %q", d.Text("#assigned"))
	}
	if got := c2.Get("/learn").Doc.Find("#assigned .assigned-item").Length(); got != 2 {
		t.Errorf("m2 (not in Red) sees %d assignments, want 2", got)
	}
	if cb.Get("/learn").Doc.Find("#assigned").Length() != 0 {
		t.Error("a member of another organization sees assignments")
	}

	statements := func(c *webtest.Client) int64 {
		before := s.SQLs.Load()
		c.Get("/learn")
		return s.SQLs.Load() - before
	}
	if n1, n2 := statements(c1), statements(c2); n1 != n2 {
		t.Errorf("/learn ran %d statements for 3 assignments and %d for 2", n1, n2)
	}

	assignedStates(t, s, c1, m1)
}

// assignedStates follows m1's state on the overdue vlan-basics (check
// required) as rows of their progress appear: read, a failed check
// (checked, still overdue), then a passed one (mastered, no longer overdue).
func assignedStates(t *testing.T, s *apptest.Server, c1 *webtest.Client, m1 string) {
	t.Helper()
	state := func() string {
		return c1.Get("/learn").Doc.Find(`#assigned-`+firstAssignment(t, s, "vlan-basics")+` li[data-lesson=vlan-basics]`).AttrOr("data-state", "")
	}
	c1.Post("/learn/networking/vlan-basics/read", url.Values{"_csrf": {c1.Get("/learn/networking/vlan-basics").CSRF()}})
	if got := state(); got != models.StateRead {
		t.Errorf("after reading: %q", got)
	}
	anchor := ""
	s.DB.Raw(`SELECT anchor FROM lesson_chunks WHERE lesson_id = 'vlan-basics' ORDER BY position LIMIT 1`).Scan(&anchor)
	if err := s.DB.Exec(`INSERT INTO section_mastery (user_id, lesson_id, anchor, streak, step, last_verdict, last_checked_at, due_at)
		VALUES (?, 'vlan-basics', ?, 1, 1, 'not_yet', now(), now())`, m1, anchor).Error; err != nil {
		t.Fatal(err)
	}
	if got, still := state(), c1.Get("/learn").Doc.Find(`#assigned .assigned-item[data-overdue=true]`).Length(); got != models.StateChecked || still != 1 {
		t.Errorf("after a failed check: %q, %d overdue (want checked, still overdue: check required)", got, still)
	}
	s.DB.Exec(`UPDATE section_mastery SET last_verdict = 'correct', streak = 2, mastered_at = now() WHERE user_id = ?`, m1)
	p := c1.Get("/learn")
	if got := state(); got != models.StateMastered || p.Doc.Find(`#assigned .assigned-item[data-overdue=true]`).Length() != 0 {
		t.Errorf("after passing the check: %q, overdue %q", got, p.Text("#assigned"))
	}
	c1.Lang = "es"
	if got := c1.Get("/learn").Text("#assigned h2"); got != "Asignado a ti" {
		t.Errorf("in Spanish: %q", got)
	}
}

// assignedOrg makes organization A (admin a, members m1 in group Red and
// m2) and B (member mb); a assigns subnetting to everyone, the networking
// path to everyone due in a year, and vlan-basics to Red, due in 2020 with
// a check required.
func assignedOrg(t *testing.T) *apptest.Server {
	t.Helper()
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	orgA := orgWith(t, s, root, "org-a", "a@example.com", "m1@example.com", "m2@example.com")
	orgWith(t, s, root, "org-b", "b@example.com", "mb@example.com")
	a := s.SignIn(t, "a@example.com", orgPass)
	red := newGroup(t, s, a, orgA, "Red")
	m1 := userID(t, s, "m1@example.com")
	a.Submit(a.Get("/org"), "#bulk-form", map[string]string{"group": red, "action": "add", "member": m1})
	future := time.Now().AddDate(1, 0, 0).Format(time.DateOnly)
	for _, f := range []map[string]string{
		{"lesson": "subnetting"},
		{"path": pathID(t, s, "networking"), "due": future},
		{"group": red, "lesson": "vlan-basics", "due": "2020-01-15", "check": "1"},
	} {
		if p := a.Submit(a.Get("/org"), "#assign-form", f); p.Status != 200 || p.Text("#admin-error") != "" {
			t.Fatalf("assign %v: %d %q", f, p.Status, p.Text("#admin-error"))
		}
	}
	return s
}
