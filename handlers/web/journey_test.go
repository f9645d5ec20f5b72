package web_test

import (
	"net/http"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
)

// The same journey as TestBrowserJourney with a plain HTTP client: every
// step is a link followed or a form posted, as a browser without JavaScript does.
func TestJourneyWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	c := webtest.New(t, s.URL)
	c.Lang = "en-GB,en;q=0.8"
	see := func(p *webtest.Page, status int, path string) {
		t.Helper()
		if p.Status != status || p.URL.Path != path {
			t.Fatalf("status %d at %s, want %d at %s:\n%s", p.Status, p.URL.Path, status, path, p.Body)
		}
	}
	text := func(p *webtest.Page, sel, want string) {
		t.Helper()
		if got := strings.Join(strings.Fields(p.Text(sel)), " "); !strings.Contains(got, want) {
			t.Fatalf("%s on %s shows %q, want %q", sel, p.URL.Path, got, want)
		}
	}
	follow := func(p *webtest.Page, sel string) *webtest.Page {
		t.Helper()
		href, ok := p.Doc.Find(sel).First().Attr("href")
		if !ok {
			t.Fatalf("no link %s on %s", sel, p.URL.Path)
		}
		return c.Get(href)
	}

	// A visitor is sent to sign in.
	p := c.Get("/learn")
	see(p, http.StatusOK, "/login")
	text(p, ".nav-actions", "Sign up")

	// Sign up.
	p = follow(p, `.nav-actions a[href="/signup"]`)
	see(p, http.StatusOK, "/signup")
	text(p, "h1", "Create")
	p = c.Submit(p, `form[action="/signup"]`, map[string]string{
		"name": "Lucía Pérez", "email": "Lucia@Example.com", "password": "a-long-password-1"})
	see(p, http.StatusOK, "/learn")
	text(p, ".who", "Lucía")
	text(p, "h1", "Learning paths")
	text(p, "#p-networking h2", "Networking fundamentals")
	text(p, "#p-go-basics h2", "Go")
	if p.Doc.Find("#signout").Length() != 1 {
		t.Fatal("no sign-out button after sign-up")
	}
	var plan, locale string
	s.DB.Raw("SELECT plan FROM users WHERE email = 'lucia@example.com'").Scan(&plan)
	if plan != "FREE" {
		t.Fatalf("new account's plan = %q, want FREE (email lower-cased)", plan)
	}

	// Path, then lesson.
	p = follow(p, "#p-go-basics h2 a")
	see(p, http.StatusOK, "/learn/go-basics")
	if p.Doc.Find(".module h2").Length() == 0 {
		t.Fatal("the path page shows no modules")
	}
	p = follow(p, "#l-go-variables-types")
	see(p, http.StatusOK, "/learn/go-basics/go-variables-types")
	text(p, "#lesson h1", "Variables and types")
	text(p, "#lesson .crumbs", "Go")
	if p.Doc.Find("#lesson .prose pre.chroma code span[class]").Length() == 0 {
		t.Fatal("no highlighted code block in the lesson")
	}
	if p.Doc.Find("#lesson .prose h2[id]").Length() == 0 {
		t.Fatal("the lesson's sections have no anchored headings")
	}
	if p.Doc.Find(".pager a.prev").Length() != 0 {
		t.Fatal("the first lesson links to a previous lesson")
	}

	// Next lesson.
	p = follow(p, ".pager a.next")
	see(p, http.StatusOK, "/learn/go-basics/go-functions-errors")
	text(p, "#lesson h1", "Functions and errors")
	text(p, ".pager a.prev", "Variables and types")

	// Switch language: back on the same page, in Spanish, stored in the account.
	text(p, "#lang-switch", "Español")
	p = c.Submit(p, `form[action="/locale"]`, nil)
	see(p, http.StatusOK, "/learn/go-basics/go-functions-errors")
	text(p, ".nav", "Aprender")
	text(p, "#lang-switch", "English")
	if lang := p.Doc.Find("html").AttrOr("lang", ""); lang != "es" {
		t.Fatalf("html lang=%q, want es", lang)
	}
	s.DB.Raw("SELECT locale FROM users WHERE email = 'lucia@example.com'").Scan(&locale)
	if locale != "es" {
		t.Fatalf("users.locale = %q, want es", locale)
	}
	p = c.Get("/learn")
	text(p, "h1", "Rutas de aprendizaje")

	// Sign out: the cookie no longer opens anything.
	p = c.Submit(p, `form[action="/logout"]`, nil)
	see(p, http.StatusOK, "/login")
	if p.Doc.Find("#signout").Length() != 0 {
		t.Fatal("sign-out button shown after signing out")
	}
	see(c.Get("/learn/go-basics"), http.StatusOK, "/login")

	// Sign back in: Spanish again, from the account (the browser asks for English).
	p = c.Get("/login")
	text(p, "h1", "Sign in")
	p = c.Submit(p, `form[action="/login"]`, map[string]string{"email": "lucia@example.com", "password": "a-long-password-1"})
	see(p, http.StatusOK, "/learn")
	text(p, ".nav", "Aprender")
	text(p, "h1", "Rutas de aprendizaje")
	text(p, ".who", "Lucía")
}
