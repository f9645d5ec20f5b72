package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// adminRoute is one admin route and who may use it.
type adminRoute struct {
	method, path string
	form         url.Values
	superOnly    bool
}

func adminRouteTable(victimID string) []adminRoute {
	return []adminRoute{
		{"GET", "/admin", nil, false},
		{"GET", "/admin/ratings", nil, false},
		{"GET", "/admin/understanding", nil, false},
		{"GET", "/admin/latency", nil, false},
		{"GET", "/admin/suggestions", nil, false},
		{"POST", "/admin/suggestions/vlan-basics", url.Values{"s1": {"What is a VLAN?"}, "s2": {"Why VLANs?"}, "s3": {"How many VLANs?"}}, false},
		{"GET", "/admin/users", nil, true},
		{"GET", "/admin/users?q=victim", nil, true},
		{"POST", "/admin/users/" + victimID + "/plan", url.Values{"plan": {"PRO"}}, true},
		{"GET", "/admin/routes", nil, true},
		{"POST", "/admin/routes/tutor_chat", url.Values{"provider": {"offline"}, "model": {""}}, true},
		{"POST", "/admin/routes/tutor_chat/test", url.Values{}, true},
		{"GET", "/admin/nope", nil, true}, // an unknown admin page is a 404 for everyone
	}
}

// call sends the route's request on c with the session's CSRF token, so
// a refusal is the admin check's and not the CSRF check's.
func (r adminRoute) call(c *webtest.Client, csrf string) *webtest.Page {
	if r.method == "GET" {
		return c.Get(r.path)
	}
	f := url.Values{"_csrf": {csrf}}
	for k, v := range r.form {
		f[k] = v
	}
	return c.Post(r.path, f)
}

func TestEveryAdminRouteForEveryPlan(t *testing.T) {
	s := apptest.New(t)
	victim := s.User(t, "victim@example.com", "pass-phrase-1", "FREE")
	routes := adminRouteTable(victim.ID)
	clients := map[string]*webtest.Client{}
	csrf := map[string]string{}
	for _, plan := range models.Plans {
		email := strings.ToLower(plan) + "@example.com"
		s.User(t, email, "pass-phrase-1", plan)
		clients[plan] = s.SignIn(t, email, "pass-phrase-1")
		csrf[plan] = clients[plan].Get("/learn").CSRF()
	}
	clients["visitor"] = webtest.New(t, s.URL)
	csrf["visitor"] = clients["visitor"].Get("/login").CSRF()

	for who, c := range clients {
		for _, r := range routes {
			want := http.StatusNotFound
			switch {
			case r.path == "/admin/nope":
			case who == models.PlanSuperAdmin:
				want = http.StatusOK
			case who == models.PlanContentAdmin && !r.superOnly:
				want = http.StatusOK
			}
			t.Run(who+" "+r.method+" "+r.path, func(t *testing.T) {
				p := r.call(c, csrf[who])
				if p.Status != want {
					t.Errorf("status %d, want %d (at %s)", p.Status, want, p.URL)
				}
				if want == http.StatusNotFound && p.URL.Path == "/login" {
					t.Errorf("redirected to sign in: the route's existence shows")
				}
			})
		}
	}
	// The content admin saw the suggestions post through; nobody else changed the victim's plan but the super admin.
	var changes int64
	s.DB.Raw(`SELECT count(*) FROM plan_changes WHERE user_id = ?`, victim.ID).Scan(&changes)
	if changes != 1 {
		t.Errorf("%d plan changes recorded for the victim, want 1 (the super admin's)", changes)
	}
	// The nav links the admin pages for admins only.
	if p := clients[models.PlanFree].Get("/learn"); p.Doc.Find(`.nav a[href="/admin"]`).Length() != 0 {
		t.Error("a FREE student sees the Admin link")
	}
	p := clients[models.PlanContentAdmin].Get("/admin")
	if p.Doc.Find(`#tab-users, #tab-routes`).Length() != 0 || p.Doc.Find(`#tab-suggestions`).Length() != 1 {
		t.Error("the content admin's tabs should list suggestions but not users or AI routes")
	}
}

func TestSuperAdminChangesAPlanWithAuditLog(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", "pass-phrase-1", models.PlanSuperAdmin)
	ana := s.User(t, "ana.lopez@example.com", "pass-phrase-1", models.PlanFree)
	s.User(t, "bob@example.com", "pass-phrase-1", models.PlanFree)
	c := s.SignIn(t, "root@example.com", "pass-phrase-1")

	p := c.Get("/admin/users?q=LOPEZ")
	if p.Status != 200 || p.Doc.Find("#users tbody tr").Length() != 1 || p.Doc.Find("#u-"+ana.ID).Length() != 1 {
		t.Fatalf("search by email part: status %d, %d rows", p.Status, p.Doc.Find("#users tbody tr").Length())
	}
	if n := c.Get("/admin/users?q=test+free").Doc.Find("#users tbody tr").Length(); n != 2 {
		t.Errorf("search by name finds %d users, want 2 (ana and bob are \"Test FREE\")", n)
	}
	if n := c.Get("/admin/users?q=%25").Doc.Find("#users tbody tr").Length(); n != 0 {
		t.Errorf("a %% search matched %d users: LIKE wildcards must be literal", n)
	}

	form := `form[action="/admin/users/` + ana.ID + `/plan"]`
	p = c.Submit(p, form, map[string]string{"plan": "STARTER"})
	if p.Status != 200 || p.URL.Path != "/admin/users" || !strings.Contains(p.Text("#admin-flash"), "ana.lopez@example.com") {
		t.Fatalf("after the change: status %d at %s, flash %q", p.Status, p.URL, p.Text("#admin-flash"))
	}
	row := p.Doc.Find("#audit tbody tr").First()
	if row.Find(".who").Text() != "root@example.com" || row.Find(".user").Text() != "ana.lopez@example.com" ||
		row.Find(".from").Text() != "FREE" || row.Find(".to").Text() != "STARTER" {
		t.Errorf("audit row %q", row.Text())
	}
	// The flash is shown once.
	if c.Get("/admin/users").Doc.Find("#admin-flash").Length() != 0 {
		t.Error("the notice is shown again on the next visit")
	}

	// A plan that does not exist: a clear message, 422, nothing changed.
	p = c.Submit(c.Get("/admin/users?q=ana"), form, map[string]string{"plan": "GOLD"})
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("#admin-error"), "GOLD") {
		t.Errorf("unknown plan: status %d, error %q", p.Status, p.Text("#admin-error"))
	}
	var plan string
	var changes int64
	s.DB.Raw(`SELECT plan FROM users WHERE id = ?`, ana.ID).Scan(&plan)
	s.DB.Raw(`SELECT count(*) FROM plan_changes`).Scan(&changes)
	if plan != "STARTER" || changes != 1 {
		t.Errorf("after a bad plan: plan %s, %d audit rows; want STARTER, 1", plan, changes)
	}
	// Someone else's id that is no user: 404.
	if p := c.Post("/admin/users/00000000-0000-0000-0000-000000000000/plan", url.Values{"_csrf": {p.CSRF()}, "plan": {"PRO"}}); p.Status != 404 {
		t.Errorf("unknown user: status %d", p.Status)
	}
	// Without the CSRF token nothing changes.
	if p := c.Post("/admin/users/"+ana.ID+"/plan", url.Values{"plan": {"PRO"}}); p.Status != http.StatusForbidden {
		t.Errorf("no CSRF token: status %d", p.Status)
	}
}

func TestContentAdminEditsSuggestions(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "content@example.com", "pass-phrase-1", models.PlanContentAdmin)
	c := s.SignIn(t, "content@example.com", "pass-phrase-1")
	before, _ := s.App.Content.Suggestions(context.Background(), "vlan-basics")
	p := c.Get("/admin/suggestions")
	form := `form[action="/admin/suggestions/vlan-basics"]`
	for _, bad := range []map[string]string{
		{"s1": "", "s2": "b", "s3": "c"},
		{"s1": "a", "s2": strings.Repeat("x", 201), "s3": "c"},
	} {
		got := c.Submit(p, form, bad)
		if got.Status != http.StatusUnprocessableEntity || got.Text("#admin-error") == "" {
			t.Errorf("bad suggestion: status %d, error %q", got.Status, got.Text("#admin-error"))
		}
		if v := got.Doc.Find("#sg-vlan-basics-3").AttrOr("value", ""); v != "c" {
			t.Errorf("the form lost what was typed: %q", v)
		}
	}
	after, _ := s.App.Content.Suggestions(context.Background(), "vlan-basics")
	if len(after) != len(before) || after[0].Text != before[0].Text {
		t.Fatalf("a refused edit changed the suggestions: %+v", after)
	}
	p = c.Submit(p, form, map[string]string{"s1": "Is a VLAN a subnet?", "s2": strings.Repeat("y", 200), "s3": "Trunks?"})
	if p.Status != 200 || p.Text("#admin-flash") == "" {
		t.Fatalf("save: status %d", p.Status)
	}
	// The lesson's tutor panel offers the new suggestion.
	if l := c.Get("/learn/networking/vlan-basics"); !strings.Contains(l.Body, "Is a VLAN a subnet?") {
		t.Error("the lesson panel does not show the edited suggestion")
	}
}

func TestAIRoutesSaveRefusesMissingCredentialsAndTests(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", "pass-phrase-1", models.PlanSuperAdmin)
	c := s.SignIn(t, "root@example.com", "pass-phrase-1")
	p := c.Get("/admin/routes")
	if p.Status != 200 || p.Doc.Find(".route").Length() != len(models.UseCases) {
		t.Fatalf("routes page: status %d, %d routes", p.Status, p.Doc.Find(".route").Length())
	}
	got := c.Submit(p, `form[action="/admin/routes/tutor_chat"]`, map[string]string{"provider": "openai", "model": "gpt-4o"})
	if got.Status != http.StatusUnprocessableEntity || !strings.Contains(got.Text("#admin-error"), "OPENAI_API_KEY") {
		t.Errorf("route without credentials: status %d, error %q", got.Status, got.Text("#admin-error"))
	}
	got = c.Submit(p, `form[action="/admin/routes/tutor_chat"]`, map[string]string{"provider": "nonsense"})
	if got.Status != http.StatusUnprocessableEntity || got.Text("#admin-error") == "" {
		t.Errorf("unknown provider: status %d", got.Status)
	}
	info, _ := s.Tutor.SessionInfo(context.Background())
	if info.Provider != "offline" {
		t.Fatalf("a refused route changed the tutor to %s", info.Provider)
	}
	if got := c.Post("/admin/routes/nope", url.Values{"_csrf": {p.CSRF()}, "provider": {"offline"}}); got.Status != 404 {
		t.Errorf("unknown use case: status %d", got.Status)
	}

	got = c.Submit(p, `form[action="/admin/routes/title"]`, map[string]string{"provider": "offline", "model": "offline-tutor"})
	if got.Status != 200 || got.Text("#admin-flash") == "" {
		t.Errorf("save: status %d", got.Status)
	}
	var by string
	s.DB.Raw(`SELECT coalesce(updated_by::text, '') FROM ai_routes WHERE use_case = 'title'`).Scan(&by)
	if by == "" {
		t.Error("the route does not record who changed it")
	}

	got = c.Submit(got, `form[action="/admin/routes/tutor_chat/test"]`, nil)
	if got.Status != 200 || got.URL.Path != "/admin/routes" || got.Text("#test-answer") == "" ||
		got.Doc.Find("#test-latency").AttrOr("data-ms", "") == "" {
		t.Errorf("test: status %d, answer %q, latency %q", got.Status, got.Text("#test-answer"), got.Text("#test-latency"))
	}
}

func TestAdminPagesRunAFixedNumberOfStatements(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", "pass-phrase-1", models.PlanSuperAdmin)
	c := s.SignIn(t, "root@example.com", "pass-phrase-1")
	pages := []string{"/admin", "/admin/ratings", "/admin/understanding", "/admin/latency", "/admin/users", "/admin/suggestions", "/admin/routes"}
	count := func() map[string]int64 {
		out := map[string]int64{}
		for _, pg := range pages {
			s.SQLs.Store(0)
			if p := c.Get(pg); p.Status != 200 {
				t.Fatalf("%s: %d", pg, p.Status)
			}
			out[pg] = s.SQLs.Load()
		}
		return out
	}
	before := count()
	// More users, threads and rated answers must not add statements.
	for i := range 30 {
		u := s.User(t, "s"+string(rune('a'+i))+"@example.com", "pass-phrase-1", models.PlanFree)
		var cid string
		s.DB.Raw(`INSERT INTO conversations (user_id, lesson_id, mode, next_seq) VALUES (?, 'vlan-basics', 'lesson', 2) RETURNING id`, u.ID).Scan(&cid)
		s.DB.Exec(`INSERT INTO messages (conversation_id, user_id, seq, role, status) VALUES (?, ?, 0, 'user', 'complete')`, cid, u.ID)
		s.DB.Exec(`INSERT INTO messages (conversation_id, user_id, seq, role, status, rating, provider, model, ttft_ms, latency_ms)
			VALUES (?, ?, 1, 'assistant', 'complete', 'down', 'offline', 'offline-tutor', 10, 100)`, cid, u.ID)
	}
	after := count()
	for _, pg := range pages {
		t.Logf("%s runs %d statements", pg, after[pg])
		if after[pg] != before[pg] || after[pg] > 8 {
			t.Errorf("%s: %d statements, then %d with more data; want the same small number", pg, before[pg], after[pg])
		}
	}
}

// A SUPER_ADMIN changing their own plan is asked first; the last
// SUPER_ADMIN cannot be demoted even after confirming.
func TestOwnPlanChangeIsConfirmedAndLastSuperAdminStays(t *testing.T) {
	s := apptest.New(t)
	root := s.User(t, "root@example.com", "pass-phrase-1", models.PlanSuperAdmin)
	c := s.SignIn(t, "root@example.com", "pass-phrase-1")
	form := `form[action="/admin/users/` + root.ID + `/plan"].plan-form`
	p := c.Submit(c.Get("/admin/users?q=root"), form, map[string]string{"plan": "FREE"})
	if p.Status != 200 || p.Doc.Find("#confirm-own-plan").Length() != 1 {
		t.Fatalf("own plan change: status %d, no confirmation asked", p.Status)
	}
	if n := apptest.Count(t, s, "SELECT count(*) FROM users WHERE plan = 'SUPER_ADMIN'"); n != 1 {
		t.Fatal("the plan changed before the confirmation")
	}
	p = c.Submit(p, "#confirm-own-plan", nil)
	if p.Status != http.StatusConflict || !strings.Contains(p.Text("#admin-error"), "SUPER_ADMIN") {
		t.Fatalf("confirmed demotion of the last SUPER_ADMIN: %d %q", p.Status, p.Text("#admin-error"))
	}
	if n := apptest.Count(t, s, "SELECT count(*) FROM users WHERE plan = 'SUPER_ADMIN'"); n != 1 {
		t.Fatal("the last SUPER_ADMIN was demoted")
	}
	// With a second SUPER_ADMIN the confirmed change goes through.
	s.User(t, "second@example.com", "pass-phrase-1", models.PlanSuperAdmin)
	p = c.Submit(c.Get("/admin/users?q=root"), form, map[string]string{"plan": "PRO"})
	p = c.Submit(p, "#confirm-own-plan", nil)
	if got := apptest.Count(t, s, "SELECT count(*) FROM users WHERE email = 'root@example.com' AND plan = 'PRO'"); got != 1 {
		t.Errorf("confirmed change with another SUPER_ADMIN: status %d, plan not changed", p.Status)
	}
}
