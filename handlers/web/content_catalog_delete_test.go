package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// Deleting a lesson asks first (naming it, its threads and that they stay
// readable); the post deletes it in one go with an audit entry; the
// student's thread about it is still there, marked "This lesson was
// removed: <title>" on the page and in the API. An empty module and an
// empty path go behind a confirmation too; a full one is refused with the
// reason.
func TestContentCatalogDeletes(t *testing.T) {
	s := apptest.New(t)
	c := author(t, s)
	student := s.User(t, "student@example.com", authorPass, models.PlanFree)
	st := s.SignIn(t, "student@example.com", authorPass)
	mid, _ := strconv.ParseInt(moduleIDOf(t, s, "networking", "ip"), 10, 64)
	conv, err := s.App.Conversations.Create(context.Background(), student.ID, models.ModeLesson, "subnetting", mid, "explain")
	if err != nil {
		t.Fatal(err)
	}
	_, qid := askPlain(t, st, conv.ID, "What is a subnet mask?")

	p := c.Get("/admin/content")
	p = c.Get(p.Doc.Find(`#lesson-subnetting a.danger`).AttrOr("href", ""))
	if p.Status != http.StatusOK || !strings.Contains(p.Text("#lesson-delete-confirm h2"), "Subnetting") ||
		!strings.Contains(p.Text("#lesson-delete-threads"), "1 student thread is about it: it stays readable") {
		t.Fatalf("the confirmation: %d %q", p.Status, p.Text("main"))
	}
	p = c.Submit(p, "#lesson-delete-confirm", nil)
	if p.Status != http.StatusOK || p.URL.Path != "/admin/content" || !strings.Contains(p.Text("#admin-flash"), "deleted") ||
		p.Doc.Find("#lesson-subnetting").Length() != 0 {
		t.Fatalf("after the delete: %d at %s %q", p.Status, p.URL, p.Text("#admin-flash"))
	}
	var title string
	s.DB.Raw(`SELECT title FROM lessons WHERE id = 'subnetting'`).Scan(&title)
	if title != "" || apptest.Count(t, s, `SELECT count(*) FROM lesson_chunks WHERE lesson_id = 'subnetting'`) != 0 ||
		apptest.Count(t, s, `SELECT count(*) FROM content_audit WHERE action = 'delete' AND subject = 'subnetting' AND actor_email = 'author@example.com'`) != 1 {
		t.Fatal("the lesson, its sections or the audit entry are not as they should be")
	}
	thread := st.Get("/chat/" + conv.ID)
	if thread.Status != http.StatusOK || !strings.HasPrefix(thread.Text("#lesson-removed"), "This lesson was removed: ") ||
		!strings.Contains(thread.Body, "What is a subnet mask?") || thread.Doc.Find("#m-"+qid).Length() != 1 {
		t.Fatalf("the student's thread: %d %q", thread.Status, thread.Text("#lesson-removed"))
	}
	st.Lang = "es"
	if got := st.Get("/chat/" + conv.ID).Text("#lesson-removed"); !strings.HasPrefix(got, "Esta lección se eliminó: ") {
		t.Fatalf("in Spanish: %q", got)
	}
	tok := apptest.APIToken(t, s, student.ID)
	js := apptest.APIJSON(t, s, tok, http.MethodGet, "/conversations/"+conv.ID, nil, http.StatusOK)
	if got, _ := js["removedLessonTitle"].(string); !strings.HasPrefix(got, "Subnetting") || js["lessonId"] != nil {
		t.Fatalf("the API's conversation: %v", js)
	}
	if p := c.Get("/admin/content/lessons/subnetting/delete"); p.Status != http.StatusNotFound {
		t.Fatalf("deleting it again: %d", p.Status)
	}

	// A module with a lesson is refused with the reason; empty, it goes.
	full := c.Get("/admin/content/modules/" + strconv.FormatInt(mid, 10) + "/delete")
	if full.Doc.Find("#module-delete-yes").Length() != 0 || !strings.Contains(full.Text("#delete-refused"), "It still has 1 lesson") {
		t.Fatalf("a full module's confirmation: %q", full.Text("main"))
	}
	code, _ := noFollow(t, c, "/admin/content/modules/"+strconv.FormatInt(mid, 10)+"/delete", nil)
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("deleting a full module: %d", code)
	}
	newCatalogLesson(t, s, c)
	noFollow(t, c, "/admin/content/lessons/first-steps/delete", nil)
	ops := moduleIDOf(t, s, "ops", "basics")
	p = c.Submit(c.Get("/admin/content/modules/"+ops+"/delete"), "#module-delete-confirm", nil)
	if p.Status != http.StatusOK || p.Doc.Find("#module-"+ops).Length() != 0 {
		t.Fatalf("deleting the empty module: %d", p.Status)
	}
	if p := c.Get("/admin/content/paths/networking/delete"); !strings.Contains(p.Text("#delete-refused"), "It still has 2 modules") {
		t.Fatalf("a full path: %q", p.Text("main"))
	}
	p = c.Submit(c.Get("/admin/content/paths/ops/delete"), "#path-delete-confirm", nil)
	if p.Status != http.StatusOK || p.Doc.Find("#path-ops").Length() != 0 || apptest.Count(t, s, `SELECT count(*) FROM paths WHERE slug = 'ops'`) != 0 {
		t.Fatalf("deleting the empty path: %d", p.Status)
	}
}

// Students and CORPORATE_ADMINs (two of each) get 404 on every route of
// the catalog, GET and POST alike, and change nothing; a POST without its
// CSRF token is refused even for the author.
func TestContentCatalogIsTheAuthorsAlone(t *testing.T) {
	s := apptest.New(t)
	c := author(t, s)
	newCatalogLesson(t, s, c)
	mid := moduleIDOf(t, s, "ops", "basics")
	routes := []struct{ method, path string }{
		{"GET", "/admin/content"}, {"POST", "/admin/content/paths"}, {"POST", "/admin/content/paths/ops"},
		{"POST", "/admin/content/paths/ops/modules"}, {"POST", "/admin/content/paths/ops/order"},
		{"GET", "/admin/content/paths/ops/delete"}, {"POST", "/admin/content/paths/ops/delete"},
		{"POST", "/admin/content/modules/" + mid}, {"POST", "/admin/content/modules/" + mid + "/lessons"},
		{"POST", "/admin/content/modules/" + mid + "/order"}, {"GET", "/admin/content/modules/" + mid + "/delete"},
		{"POST", "/admin/content/modules/" + mid + "/delete"}, {"POST", "/admin/content/lessons/first-steps/order"},
		{"POST", "/admin/content/lessons/first-steps/module"}, {"GET", "/admin/content/lessons/first-steps/delete"},
		{"POST", "/admin/content/lessons/first-steps/delete"}, {"GET", "/admin/content/audit"},
	}
	form := url.Values{"slug": {"x"}, "title": {"Hijacked"}, "id": {"hijack"}, "step": {"1"}, "module": {mid}, "language": {"en"}}
	before := apptest.Count(t, s, `SELECT count(*) FROM content_audit`)
	for _, who := range []struct{ email, plan string }{
		{"free1@example.com", models.PlanFree}, {"pro@example.com", models.PlanPro},
		{"corp1@example.com", models.PlanCorporateAdmin}, {"corp2@example.com", models.PlanCorporateAdmin},
	} {
		pass := authorPass
		if who.plan == models.PlanCorporateAdmin {
			s.Org(t, strings.TrimSuffix(who.email, "@example.com"), who.email) // its admin: CORPORATE_ADMIN
			pass = apptest.OrgPassword
		} else {
			s.User(t, who.email, pass, who.plan)
		}
		u := s.SignIn(t, who.email, pass)
		if got := userPlan(t, s, who.email); got != who.plan {
			t.Fatalf("%s is %s", who.email, got)
		}
		csrf := u.Get("/learn").CSRF()
		for _, r := range routes {
			if p := send(t, u, r.method, r.path, form, csrf); p.Status != http.StatusNotFound {
				t.Errorf("%s: %s %s answered %d", who.plan, r.method, r.path, p.Status)
			}
		}
		if u.Get("/learn").Doc.Find(`a[href="/admin/content"]`).Length() != 0 {
			t.Errorf("%s is shown the catalog", who.plan)
		}
	}
	for _, r := range routes {
		if r.method == "POST" {
			if p := send(t, c, r.method, r.path, form, ""); p.Status != http.StatusForbidden {
				t.Errorf("the author's %s without CSRF: %d", r.path, p.Status)
			}
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM content_audit`); n != before ||
		apptest.Count(t, s, `SELECT count(*) FROM lessons WHERE id = 'first-steps'`) != 1 ||
		apptest.Count(t, s, `SELECT count(*) FROM paths WHERE title = 'Hijacked'`) != 0 {
		t.Fatal("a refused request changed the catalog")
	}
}

// userPlan is the stored plan of the account with email.
func userPlan(t *testing.T, s *apptest.Server, email string) string {
	t.Helper()
	var plan string
	s.DB.Raw(`SELECT plan FROM users WHERE email = ?`, email).Scan(&plan)
	return plan
}

// Markup typed into every field shows as text; NUL bytes and invalid
// UTF-8 are refused (400) before anything is stored.
func TestContentCatalogPayloadsAreInert(t *testing.T) {
	s := apptest.New(t)
	c := author(t, s)
	xss := `<script>alert(1)</script><img src=x onerror=alert(2)>"'`
	p := c.Submit(c.Get("/admin/content"), "#new-path-form", map[string]string{"slug": "xss", "title": xss, "description": xss, "language": "en"})
	p = c.Submit(p, "#new-module-xss form", map[string]string{"slug": "m", "title": xss})
	mid := moduleIDOf(t, s, "xss", "m")
	c.Submit(p, "#new-lesson-"+mid+" form", map[string]string{"id": "xss-lesson", "title": xss}) // to the editor
	if p = c.Submit(c.Get("/admin/content"), "#rename-path-xss form", map[string]string{"title": xss + " 2", "description": xss}); p.Status != http.StatusOK {
		t.Fatalf("rename: %d", p.Status)
	}
	p = c.Get("/admin/content")
	if strings.Contains(p.Body, "<script>alert") || strings.Contains(p.Body, "<img src=x") || p.Doc.Find("#path-xss script, #path-xss img").Length() != 0 {
		t.Fatal("a payload became markup")
	}
	if !strings.Contains(p.Text("#path-xss h3"), "<script>alert(1)</script>") || p.Text("#lesson-xss-lesson .content-lesson-title") != xss {
		t.Fatalf("the payloads do not read as text: %q", p.Text("#path-xss h3"))
	}
	for _, page := range []string{"/admin/content/lessons/xss-lesson/delete", "/admin/content/modules/" + mid + "/delete", "/admin/content/paths/xss/delete", "/admin/content/audit"} {
		if b := c.Get(page).Body; strings.Contains(b, "<script>alert") || strings.Contains(b, "<img src=x") {
			t.Errorf("%s renders a payload as markup", page)
		}
	}
	csrf := p.CSRF()
	for _, bad := range []string{"a\x00b", "a\xffb"} {
		for _, field := range []string{"slug", "title", "description"} {
			f := url.Values{"slug": {"bad"}, "title": {"Bad"}, "description": {""}, "language": {"en"}}
			f.Set(field, bad)
			if p := send(t, c, http.MethodPost, "/admin/content/paths", f, csrf); p.Status != http.StatusBadRequest {
				t.Errorf("%q in %s: %d", bad, field, p.Status)
			}
		}
		if p := send(t, c, http.MethodPost, "/admin/content/modules/"+mid+"/lessons", url.Values{"id": {"bad"}, "title": {bad}}, csrf); p.Status != http.StatusBadRequest {
			t.Errorf("%q in a lesson title: %d", bad, p.Status)
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM paths WHERE slug = 'bad'`) + apptest.Count(t, s, `SELECT count(*) FROM lessons WHERE id = 'bad'`); n != 0 {
		t.Fatalf("%d bad rows stored", n)
	}
}
