package web_test

import (
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
)

// The student's first visit in real headless Chromium: sign up, browse to a
// lesson, read it, go on to the next one, switch to Spanish, sign out and
// back in. Run with JavaScript on and off: every step is a plain link or a
// form, so both must work.
func TestBrowserJourney(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t)
			b := browser.New(t, tt.opts...)
			browserJourney(t, s, b)
		})
	}
}

// browserModes runs a browser test with JavaScript on and off.
var browserModes = []struct {
	name string
	opts []browser.Option
}{
	{"javascript", nil},
	{"no javascript", []browser.Option{browser.WithoutJavaScript()}},
}

func browserJourney(t *testing.T, s *apptest.Server, b *browser.Browser) {
	t.Helper()
	expectPath := func(want string) {
		t.Helper()
		if got := b.Path(); got != want {
			b.Fatalf("at %s, want %s", got, want)
		}
	}
	expectText := func(sel, want string) {
		t.Helper()
		if got := b.Text(sel); !strings.Contains(got, want) {
			b.Fatalf("%s shows %q, want it to contain %q", sel, got, want)
		}
	}

	// Sign up.
	b.Navigate(s.URL + "/signup")
	b.WaitVisible("#signup-submit")
	b.Fill("#name", "Lucía Pérez")
	b.Fill("#email", "lucia@example.com")
	b.Fill("#password", "a-long-password-1")
	b.ClickAndWait("#signup-submit")
	expectPath("/learn")
	// The page's own scripts run only when JavaScript is on (CSP allows them).
	if htmx, err := browser.Evaluate[bool](b, "typeof window.htmx === 'object'"); err != nil || htmx == b.NoJS {
		b.Fatalf("htmx loaded = %v (err %v) with %s", htmx, err, b)
	}
	expectText(".nav", "Learn")
	expectText(".who", "Lucía")
	if !b.Has("#p-go-basics") || !b.Has("#p-networking") {
		b.Fatalf("the catalog does not list the demo paths")
	}
	var n int64
	s.DB.Raw("SELECT count(*) FROM users WHERE email = 'lucia@example.com' AND plan = 'FREE'").Scan(&n)
	if n != 1 {
		b.Fatalf("%d FREE users lucia@example.com in the database, want 1", n)
	}

	// Open a path, then its first lesson.
	b.ClickAndWait(`#p-go-basics h2 a`)
	expectPath("/learn/go-basics")
	if !b.Has("#l-go-variables-types") {
		b.Fatalf("the path page does not list its first lesson")
	}
	b.ClickAndWait("#l-go-variables-types")
	expectPath("/learn/go-basics/go-variables-types")
	expectText("#lesson h1", "Variables and types")
	if !b.Has(`#lesson .prose h2`) {
		b.Fatalf("the lesson's Markdown headings are not rendered")
	}
	if !b.Has(`#lesson .prose pre.chroma code span[class]`) {
		b.Fatalf("no highlighted code block (pre.chroma with token classes) in the lesson")
	}
	if b.Has(".pager a.prev") {
		b.Fatalf("the first lesson has a previous-lesson link")
	}

	// Next lesson.
	expectText(".pager a.next", "Functions and errors")
	b.ClickAndWait(".pager a.next")
	expectPath("/learn/go-basics/go-functions-errors")
	expectText("#lesson h1", "Functions and errors")
	expectText(".pager a.prev", "Variables and types")

	// Switch to Spanish: the same page comes back in Spanish.
	expectText("#lang-switch", "Español")
	b.ClickAndWait("#lang-switch")
	expectPath("/learn/go-basics/go-functions-errors")
	expectText(".nav", "Aprender")
	if lang, _ := b.Attr("html", "lang"); lang != "es" {
		b.Fatalf("html lang=%q after switching, want es", lang)
	}
	expectText("#lang-switch", "English")
	b.Reload()
	expectText(".nav", "Aprender")
	var locale string
	s.DB.Raw("SELECT locale FROM users WHERE email = 'lucia@example.com'").Scan(&locale)
	if locale != "es" {
		b.Fatalf("users.locale = %q after switching, want es", locale)
	}

	// Sign out: the session is gone.
	b.ClickAndWait("#signout")
	expectPath("/login")
	if b.Has("#signout") {
		b.Fatalf("still signed in after signing out")
	}
	b.Navigate(s.URL + "/learn/go-basics")
	expectPath("/login")

	// Sign back in: back to the catalog, still in Spanish.
	b.Fill("#email", "lucia@example.com")
	b.Fill("#password", "a-long-password-1")
	b.ClickAndWait("#login-submit")
	expectPath("/learn/go-basics")
	expectText(".nav", "Aprender")
	expectText(".who", "Lucía")
	if !b.Has("#signout") {
		b.Fatalf("no sign-out button after signing back in")
	}
}
