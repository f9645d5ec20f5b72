package web_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

// at fixes the tutor's clock (and so the dashboards' and quota's) at now.
func at(now time.Time) func(*tutor.Config) {
	return func(c *tutor.Config) { c.Now = func() time.Time { return now } }
}

// askAt inserts a question and a complete answer in conv at when.
func askAt(t *testing.T, s *apptest.Server, conv, user string, seq int, when time.Time) {
	t.Helper()
	for _, role := range []string{"user", "assistant"} {
		if err := s.DB.Exec(`INSERT INTO messages (conversation_id, user_id, seq, role, status, created_at) VALUES (?, ?, ?, ?, 'complete', ?)`,
			conv, user, seq, role, when).Error; err != nil {
			t.Fatal(err)
		}
		seq++
	}
}

// lessonConv inserts a live conversation about a demo lesson, last active at last.
func lessonConv(t *testing.T, s *apptest.Server, user, lesson string, last time.Time) string {
	t.Helper()
	var id string
	err := s.DB.Raw(`INSERT INTO conversations (user_id, mode, lesson_id, module_id, next_seq, title, created_at, last_activity_at)
		SELECT ?, 'lesson', l.id, l.module_id, 100, 'About ' || l.title, ?, ? FROM lessons l WHERE l.id = ? RETURNING id`,
		user, last, last, lesson).Row().Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestDashboardFigures(t *testing.T) {
	// Monday 3 March 2025, 00:30 UTC: a new week, and the month began on Saturday.
	now := time.Date(2025, 3, 3, 0, 30, 0, 0, time.UTC)
	s := apptest.New(t, at(now))
	u := s.User(t, "ana@example.com", "pass-phrase-1", models.PlanFree)
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	vlan := lessonConv(t, s, u.ID, "vlan-basics", now)                    // module "Switching and VLANs"
	subnet := lessonConv(t, s, u.ID, "subnetting", now)                   // module of the subnetting lesson
	askAt(t, s, vlan, u.ID, 0, now.Add(-31*time.Minute))                  // 2 March 23:59: Sunday, last week; March
	askAt(t, s, vlan, u.ID, 2, now.Add(-30*time.Minute))                  // 3 March 00:00: this week
	askAt(t, s, subnet, u.ID, 0, now.Add(-49*time.Hour))                  // 28 Feb 23:30: February, last week
	askAt(t, s, subnet, u.ID, 2, now.Add(-7*24*time.Hour-31*time.Minute)) // 23 Feb 23:59: Sunday, two weeks ago
	if err := s.DB.Exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, '2025-03-01', 2)`, u.ID).Error; err != nil {
		t.Fatal(err)
	}
	var module string
	s.DB.Raw(`SELECT m.title FROM modules m JOIN lessons l ON l.module_id = m.id WHERE l.id = 'vlan-basics'`).Scan(&module)

	p := c.Get("/dashboard")
	if p.Status != 200 {
		t.Fatalf("status %d", p.Status)
	}
	// By hand: March has 2 and 3 March (2 sessions, 2 questions, both in the
	// VLAN lesson's module); the week of 17 Feb has 1 (23 Feb), that of 24 Feb
	// 2 (28 Feb, 2 Mar), this week 1 (3 Mar).
	checks := map[string]string{
		"#kpi-sessions .kpi-value":  "2",
		"#kpi-questions .kpi-value": "2",
		"#kpi-module .kpi-value":    module,
	}
	for sel, want := range checks {
		if got := p.Doc.Find(sel).AttrOr("data-value", "?"); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	if got := p.Doc.Find("svg#weekly").AttrOr("data-values", ""); got != "0,0,0,0,0,1,2,1" {
		t.Errorf("weekly sparkline values %q, want 0,0,0,0,0,1,2,1", got)
	}
	if p.Doc.Find("svg#weekly polyline").Length() != 1 || p.Doc.Find("svg#weekly circle").Length() != 8 {
		t.Error("the sparkline is not an inline SVG line with 8 points")
	}
	if p.Doc.Find("script:not([src])").Length() != 0 || p.Doc.Find("[style]").Length() != 0 {
		t.Error("the dashboard has an inline script or style attribute (the CSP forbids them)")
	}
	if got := p.Doc.Find("#usage").AttrOr("data-used", ""); got != "2" || !strings.Contains(p.Text("#usage"), "2 of 3 questions this month") ||
		!strings.Contains(p.Text("#usage"), "April 1, 2025") {
		t.Errorf("usage bar used=%q text %q", got, p.Text("#usage"))
	}
	if n := p.Doc.Find("#history .history-item").Length(); n != 2 {
		t.Errorf("%d history items, want 2", n)
	}
	if href := p.Doc.Find("#h-"+vlan+" a").AttrOr("href", ""); href != "/chat/"+vlan {
		t.Errorf("history item links %q", href)
	}
	if !strings.Contains(p.Text("#h-"+vlan), module) {
		t.Errorf("history item %q lacks its module %q", p.Text("#h-"+vlan), module)
	}

	c.Lang = "es"
	s.DB.Exec(`UPDATE users SET locale = 'es' WHERE id = ?`, u.ID)
	if p := c.Get("/dashboard"); !strings.Contains(p.Text("h1"), "Tu panel") || !strings.Contains(p.Text("#usage"), "2 de 3 preguntas este mes") {
		t.Errorf("Spanish dashboard: %q / %q", p.Text("h1"), p.Text("#usage"))
	}
}

func TestDashboardHistoryLoadMore(t *testing.T) {
	now := time.Date(2025, 3, 5, 12, 0, 0, 0, time.UTC)
	s := apptest.New(t, at(now))
	u := s.User(t, "ana@example.com", "pass-phrase-1", models.PlanPro)
	other := s.User(t, "bob@example.com", "pass-phrase-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	var ids []string // newest first
	for i := range 25 {
		ids = append(ids, lessonConv(t, s, u.ID, "vlan-basics", now.Add(-time.Duration(i)*time.Hour)))
	}
	lessonConv(t, s, other.ID, "vlan-basics", now)

	count := func() int64 {
		s.SQLs.Store(0)
		if p := c.Get("/dashboard"); p.Status != 200 {
			t.Fatalf("status %d", p.Status)
		}
		return s.SQLs.Load()
	}
	count()
	stmts := count()
	t.Logf("/dashboard runs %d statements", stmts)
	if stmts > 8 {
		t.Errorf("/dashboard runs %d statements, want a small constant", stmts)
	}

	p := c.Get("/dashboard")
	items := p.Doc.Find("#history .history-item")
	if items.Length() != 20 || items.First().AttrOr("id", "") != "h-"+ids[0] || items.Last().AttrOr("id", "") != "h-"+ids[19] {
		t.Fatalf("first page: %d items", items.Length())
	}
	more := p.Doc.Find("#load-more a")
	href := more.AttrOr("href", "")
	if !strings.HasPrefix(href, "/dashboard/history?after=") || more.AttrOr("hx-get", "") != href {
		t.Fatalf("load more link %q (hx-get %q)", href, more.AttrOr("hx-get", ""))
	}
	// Without JavaScript: a page of its own.
	next := c.Get(href)
	if next.Status != 200 || next.Doc.Find("html").Length() != 1 || next.Doc.Find("#history .history-item").Length() != 5 ||
		next.Doc.Find("#history .history-item").First().AttrOr("id", "") != "h-"+ids[20] || next.Doc.Find("#load-more").Length() != 0 {
		t.Errorf("second page: status %d, %d items", next.Status, next.Doc.Find("#history .history-item").Length())
	}
	// With HTMX: the rows alone.
	req, _ := http.NewRequest("GET", s.URL+href, nil)
	req.Header.Set("HX-Request", "true")
	frag := c.Do(req)
	if frag.Status != 200 || strings.Contains(frag.Body, "<html") || strings.Count(frag.Body, `class="history-item"`) != 5 {
		t.Errorf("fragment: status %d body %.200s", frag.Status, frag.Body)
	}
	// A deleted thread leaves the history; in another's cursor nothing of theirs shows.
	s.DB.Exec(`UPDATE conversations SET deleted_at = now() WHERE id = ?`, ids[0])
	if c.Get("/dashboard").Doc.Find("#h-"+ids[0]).Length() != 0 {
		t.Error("a deleted thread is still in the history")
	}

	for _, bad := range []string{"garbage", "%00%01", "MTIzNDU", "", "x.y"} {
		if p := c.Get("/dashboard/history?after=" + bad); p.Status != http.StatusBadRequest || p.Text(".error-page") == "" {
			t.Errorf("cursor %q: status %d, want 400 with a message", bad, p.Status)
		}
	}
}

func TestUpgradePageListsPlans(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "pass-phrase-1", models.PlanFree)
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	p := c.Get("/upgrade")
	if p.Status != 200 || p.Doc.Find("#plans tbody tr").Length() != len(models.StudentPlans) {
		t.Fatalf("status %d, %d plans", p.Status, p.Doc.Find("#plans tbody tr").Length())
	}
	for plan, want := range map[string]string{"FREE": "3 questions a month", "STARTER": "40 questions a month", "PRO": "Unlimited questions"} {
		if got := p.Text("#plan-" + plan + " td"); got != want {
			t.Errorf("%s: %q, want %q", plan, got, want)
		}
	}
	if p.Doc.Find(`#plan-FREE[aria-current="true"]`).Length() != 1 {
		t.Error("the student's own plan is not marked")
	}
}

// The dashboard's counts agree with their nouns in both languages: with
// 0, 1 and 2 sessions, questions and questions in the top module.
func TestDashboardCountsAgree(t *testing.T) {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	s := apptest.New(t, at(now))
	u := s.User(t, "ana@example.com", "pass-phrase-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	conv := lessonConv(t, s, u.ID, "vlan-basics", now)
	want := map[string][3][2]string{ // language → count → sessions label, top module label
		"en": {
			{"sessions this month (days with a question)", "no module consulted this month yet"},
			{"session this month (days with a question)", "most consulted module this month (1 question)"},
			{"sessions this month (days with a question)", "most consulted module this month (2 questions)"},
		},
		"es": {
			{"sesiones este mes (días con alguna pregunta)", "aún no has consultado ningún módulo este mes"},
			{"sesión este mes (días con alguna pregunta)", "módulo más consultado este mes (1 pregunta)"},
			{"sesiones este mes (días con alguna pregunta)", "módulo más consultado este mes (2 preguntas)"},
		},
	}
	questions := map[string][3]string{"en": {"questions this month", "question this month", "questions this month"},
		"es": {"preguntas este mes", "pregunta este mes", "preguntas este mes"}}
	for n := range 3 {
		if n > 0 { // one more day with a question, and one more question
			askAt(t, s, conv, u.ID, 2*n, now.Add(-time.Duration(n-1)*24*time.Hour))
			if err := s.DB.Exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, '2025-03-01', ?)
				ON CONFLICT (user_id, period) DO UPDATE SET questions = excluded.questions`, u.ID, n).Error; err != nil {
				t.Fatal(err)
			}
		}
		for _, lang := range []string{"en", "es"} {
			c.Lang = lang
			s.DB.Exec(`UPDATE users SET locale = ? WHERE id = ?`, lang, u.ID)
			p := c.Get("/dashboard")
			got := [3]string{p.Text("#kpi-sessions .kpi-label"), p.Text("#kpi-questions .kpi-label"), p.Text("#kpi-module .kpi-label")}
			if w := [3]string{want[lang][n][0], questions[lang][n], want[lang][n][1]}; got != w ||
				p.Text("#kpi-sessions .kpi-value") != strconv.Itoa(n) {
				t.Errorf("%s with %d: %s %q, want %q", lang, n, p.Text("#kpi-sessions .kpi-value"), got, w)
			}
		}
	}
}
