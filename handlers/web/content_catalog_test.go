package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// authorPass is the password of the catalog tests' accounts.
const authorPass = "author-pass-1"

// author signs in a new CONTENT_ADMIN (and makes a FREE student) on s.
func author(t *testing.T, s *apptest.Server) *webtest.Client {
	t.Helper()
	s.User(t, "author@example.com", authorPass, models.PlanContentAdmin)
	return s.SignIn(t, "author@example.com", authorPass)
}

// noFollow posts form to path as c (its CSRF token added) without
// following the redirect; it returns the status and the Location.
func noFollow(t *testing.T, c *webtest.Client, path string, form url.Values) (int, string) {
	t.Helper()
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	f.Set("_csrf", c.Get("/admin/content").CSRF())
	req, _ := http.NewRequest(http.MethodPost, c.Base+path, strings.NewReader(f.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	hc := *c.HTTP
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

// moduleIDOf is the id of module slug in path pathSlug.
func moduleIDOf(t *testing.T, s *apptest.Server, pathSlug, slug string) string {
	t.Helper()
	var id string
	s.DB.Raw(`SELECT m.id::text FROM modules m JOIN paths p ON p.id = m.path_id WHERE p.slug = ? AND m.slug = ?`, pathSlug, slug).Scan(&id)
	if id == "" {
		t.Fatalf("no module %s/%s", pathSlug, slug)
	}
	return id
}

// newCatalogLesson creates path ops (module basics) and lesson "first-steps" as c.
func newCatalogLesson(t *testing.T, s *apptest.Server, c *webtest.Client) {
	t.Helper()
	p := c.Submit(c.Get("/admin/content"), "#new-path-form", map[string]string{
		"slug": "ops", "title": "Operations", "description": "Running things.", "language": "en"})
	if p.Status != http.StatusOK || p.URL.Fragment != "" && p.URL.Fragment != "path-ops" {
		t.Fatalf("create path: %d at %s", p.Status, p.URL)
	}
	p = c.Submit(p, "#new-module-ops form", map[string]string{"slug": "basics", "title": "Basics"})
	if p.Status != http.StatusOK {
		t.Fatalf("create module: %d", p.Status)
	}
	mid := moduleIDOf(t, s, "ops", "basics")
	code, loc := noFollow(t, c, "/admin/content/modules/"+mid+"/lessons", url.Values{"id": {"first-steps"}, "title": {"First steps"}})
	if code != http.StatusSeeOther || loc != "/admin/content/lessons/first-steps" {
		t.Fatalf("create lesson: %d to %q, want 303 to the editor", code, loc)
	}
}

// A content admin finds Content in the admin menu, creates a path, a
// module and a lesson: the lesson is a draft with its version 1, listed
// with its status, language and author, its path "not visible to
// students", and nothing of it reaches a student's /learn.
func TestContentCatalogCreates(t *testing.T) {
	s := apptest.New(t)
	c := author(t, s)
	s.User(t, "student@example.com", authorPass, models.PlanFree)
	if href := c.Get("/admin").Doc.Find("#tab-content").AttrOr("href", ""); href != "/admin/content" {
		t.Fatalf("the admin menu has no Content tab: %q", href)
	}
	p := c.Get("/admin/content")
	if p.Status != http.StatusOK || p.Text(`#tab-content[aria-current="true"]`) != "Content" ||
		p.Text("#lesson-vlan-basics .badge") != "Published" || p.Doc.Find("#path-networking .status-hidden").Length() != 0 ||
		!strings.Contains(p.Text("#lesson-vlan-basics .content-edited"), "by import") || p.Doc.Find("#help tbody tr").Length() == 0 {
		t.Fatalf("the catalog: %d\n%s", p.Status, p.Text("main"))
	}
	newCatalogLesson(t, s, c)
	var l models.Lesson
	s.DB.Where("id = 'first-steps'").Take(&l)
	if l.Status != models.StatusDraft || l.Version != 1 || l.Language != "en" || l.Title != "First steps" || l.PublishedVersion != nil {
		t.Fatalf("stored lesson %+v", l)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM lesson_versions v JOIN users u ON u.id = v.author_id
		WHERE v.lesson_id = 'first-steps' AND v.number = 1 AND u.email = 'author@example.com'`); n != 1 {
		t.Fatalf("%d versions 1 by the author", n)
	}
	p = c.Get("/admin/content")
	row := p.Doc.Find("#path-ops #lesson-first-steps")
	if strings.TrimSpace(row.Find(".badge").Text()) != "Draft" || !strings.Contains(row.Text(), "by author@example.com") ||
		!strings.Contains(row.Text(), "English") || row.Find(`a[href="/admin/content/lessons/first-steps"]`).Length() != 1 ||
		p.Text("#path-ops .content-head .status-hidden") != "Not visible to students" {
		t.Fatalf("the new lesson's row: %q", p.Text("#path-ops"))
	}
	st := s.SignIn(t, "student@example.com", authorPass)
	if learn := st.Get("/learn"); strings.Contains(learn.Body, "Operations") || strings.Contains(learn.Body, "first-steps") {
		t.Fatal("a student's /learn shows the draft path")
	}
	if p := st.Get("/learn/ops"); p.Status != http.StatusNotFound {
		t.Fatalf("a student opens the draft path: %d", p.Status)
	}
	// A lesson in a Spanish path takes the path's language.
	c.Submit(c.Get("/admin/content"), "#new-lesson-"+moduleIDOf(t, s, "redes", moduleSlugOf(t, s, "redes"))+" form",
		map[string]string{"id": "nueva", "title": "Nueva"})
	var lang string
	s.DB.Raw(`SELECT language FROM lessons WHERE id = 'nueva'`).Scan(&lang)
	if lang != "es" {
		t.Fatalf("a lesson of a Spanish path is in %q", lang)
	}
}

// moduleSlugOf is the first module's slug of path pathSlug.
func moduleSlugOf(t *testing.T, s *apptest.Server, pathSlug string) string {
	t.Helper()
	var slug string
	s.DB.Raw(`SELECT m.slug FROM modules m JOIN paths p ON p.id = m.path_id WHERE p.slug = ? ORDER BY m.position LIMIT 1`, pathSlug).Scan(&slug)
	return slug
}

// A taken lesson id, path slug or module slug is refused with 422 naming
// who holds it, in Spanish for a Spanish author, with the form as typed;
// bad slugs and missing titles likewise.
func TestContentCatalogRefusesDuplicatesInSpanish(t *testing.T) {
	s := apptest.New(t)
	c := author(t, s)
	c.Lang = "es"
	newCatalogLesson(t, s, c)
	mid := moduleIDOf(t, s, "ops", "basics")
	for _, tc := range []struct {
		name, form string
		fields     map[string]string
		want, kept string
	}{
		{"lesson id", "#new-lesson-" + mid + " form", map[string]string{"id": "vlan-basics", "title": "Mi VLAN"},
			"El identificador «vlan-basics» ya lo usa la lección «What a VLAN is and why it matters» (ruta «Networking fundamentals»). Elige otro.", "Mi VLAN"},
		{"path slug", "#new-path-form", map[string]string{"slug": "networking", "title": "Redes 2", "description": "Texto <b>", "language": "es"},
			"El slug «networking» ya lo usa la ruta «Networking fundamentals». Elige otro.", "Redes 2"},
		{"module slug", "#new-module-ops form", map[string]string{"slug": "basics", "title": "Otra base"},
			"El slug «basics» ya lo usa el módulo «Basics» de esta ruta. Elige otro.", "Otra base"},
		{"bad slug", "#new-path-form", map[string]string{"slug": "Con Espacios", "title": "Algo", "language": "es"},
			"Un slug o identificador lleva minúsculas (a–z), dígitos y guiones, empieza por letra o dígito y tiene como mucho 80 caracteres.", "Algo"},
		{"no title", "#new-module-ops form", map[string]string{"slug": "nuevo", "title": "  "}, "Ponle un título.", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := c.Submit(c.Get("/admin/content"), tc.form, tc.fields)
			if p.Status != http.StatusUnprocessableEntity || p.Text(tc.form+" .form-error") != tc.want {
				t.Fatalf("%d %q, want 422 %q", p.Status, p.Text(".form-error"), tc.want)
			}
			if got := p.Doc.Find(tc.form+` input[name="title"]`).AttrOr("value", ""); got != strings.TrimSpace(tc.fields["title"]) && got != tc.fields["title"] {
				t.Fatalf("the title typed is not kept: %q", got)
			}
			if p.Doc.Find(tc.form).Closest("details").AttrOr("open", "x") == "x" {
				t.Fatal("the refused form is folded away")
			}
		})
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM paths WHERE title IN ('Redes 2', 'Algo')`); n != 0 {
		t.Fatalf("%d refused paths stored", n)
	}
}

// The catalog page runs as many statements for a catalog of 300 lessons as
// for the demo's dozen: every query is set-based.
func TestContentCatalogRunsAFixedNumberOfStatements(t *testing.T) {
	s := apptest.New(t)
	c := author(t, s)
	count := func() int64 {
		s.SQLs.Store(0)
		if p := c.Get("/admin/content"); p.Status != http.StatusOK {
			t.Fatalf("catalog: %d", p.Status)
		}
		return s.SQLs.Load()
	}
	small := count()
	s.DB.Exec(`INSERT INTO paths (slug, title, language, position) SELECT 'p' || i, 'Path ' || i, 'en', 10 + i FROM generate_series(1, 10) i`)
	s.DB.Exec(`INSERT INTO modules (path_id, slug, title, position) SELECT p.id, 'm' || i, 'Module ' || i, i FROM paths p, generate_series(1, 3) i WHERE p.slug ~ '^p[0-9]+$'`)
	s.DB.Exec(`INSERT INTO lessons (id, module_id, title, language, content_md, content_hash, status, position, version)
		SELECT 'l-' || m.id || '-' || i, m.id, 'Lesson ' || i, 'en', '', '', 'draft', i, 1 FROM modules m
		JOIN paths p ON p.id = m.path_id, generate_series(1, 10) i WHERE p.slug ~ '^p[0-9]+$'`)
	s.DB.Exec(`INSERT INTO lesson_versions (lesson_id, number, title, language, content_md) SELECT id, 1, title, 'en', '' FROM lessons WHERE id LIKE 'l-%'`)
	large := count()
	t.Logf("the catalog runs %d statements (demo: %d)", large, small)
	if large != small || large > 10 {
		t.Fatalf("%d statements for the demo, %d for 300 more lessons; want the same small number", small, large)
	}
	if n := c.Get("/admin/content").Doc.Find(".content-lesson").Length(); n < 300 {
		t.Fatalf("%d lessons listed", n)
	}
}
