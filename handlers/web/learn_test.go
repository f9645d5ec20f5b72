package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/PuerkitoBio/goquery"

	"aula/content/importer"
	"aula/internal/apptest"
	"aula/internal/webtest"
)

// goBasicsHeader is the front matter of a lesson in the demo go-basics
// path, in a module of its own (so it sorts after the demo lessons).
func goBasicsHeader(id, module string, modulePosition, position int) string {
	return fmt.Sprintf(`---
kind: lesson
id: %s
path: go-basics
path_title: Go basics
path_description: The core of the Go language, from variables and types to functions, errors and concurrency.
path_position: 3
module: %s
module_title: Extra exercises
module_position: %d
title: Exercise %s
summary: One more exercise.
position: %d
language: en
suggestions:
  - Why?
  - How?
  - What next?
---
`, id, module, modulePosition, id, position)
}

// importFiles imports files (name → content) into s's database, failing on any error.
func importFiles(t testing.TB, s *apptest.Server, files map[string]string) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(body)}
	}
	rep, err := importer.Import(context.Background(), s.App.Content, fsys)
	if err != nil || len(rep.Errors) > 0 {
		t.Fatalf("import: %v %v", err, rep.Errors)
	}
}

func TestNotFoundPagesInTheUsersLanguage(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "en@example.com", "pass-phrase-1", "FREE")
	es := s.User(t, "es@example.com", "pass-phrase-1", "FREE")
	if err := s.App.Users.SetLocale(context.Background(), es.ID, "es"); err != nil {
		t.Fatal(err)
	}
	s.User(t, "none@example.com", "pass-phrase-1", "FREE") // no stored locale: Accept-Language decides

	clients := []struct {
		name, email, acceptLanguage, wantTitle, wantLang string
	}{
		{"English user", "en@example.com", "", "Page not found", "en"},
		{"Spanish user with an English browser", "es@example.com", "en-US,en;q=0.9", "Página no encontrada", "es"},
		{"user without locale, Spanish browser", "none@example.com", "es-ES,es;q=0.9", "Página no encontrada", "es"},
	}
	urls := []struct{ name, url string }{
		{"unknown path", "/learn/no-such-path"},
		{"unknown lesson", "/learn/networking/no-such-lesson"},
		{"lesson of another path", "/learn/go-basics/vlan-basics"},
		{"lesson under a path of another language", "/learn/redes/vlan-basics"},
		{"unknown route", "/nope"},
		{"unknown nested route", "/learn/networking/vlan-basics/extra"},
	}
	for _, cl := range clients {
		c := s.SignIn(t, cl.email, "pass-phrase-1")
		c.Lang = cl.acceptLanguage
		for _, u := range urls {
			t.Run(cl.name+"/"+u.name, func(t *testing.T) {
				p := c.Get(u.url)
				if p.Status != http.StatusNotFound {
					t.Fatalf("status %d, want 404", p.Status)
				}
				if got := p.Text(".error-page h1"); got != cl.wantTitle {
					t.Errorf("error page title %q, want %q", got, cl.wantTitle)
				}
				if got := p.Doc.Find("html").AttrOr("lang", ""); got != cl.wantLang {
					t.Errorf("html lang=%q, want %s", got, cl.wantLang)
				}
				if p.Doc.Find(`.error-page a[href="/learn"]`).Length() != 1 {
					t.Error("the 404 page has no way back to the catalog")
				}
				if p.Doc.Find("#signout").Length() != 1 {
					t.Error("the 404 page lost the signed-in frame (no sign-out button)")
				}
			})
		}
	}

	t.Run("visitor with a Spanish browser on an unknown route", func(t *testing.T) {
		c := webtest.New(t, s.URL)
		c.Lang = "es"
		p := c.Get("/nope")
		if p.Status != http.StatusNotFound || p.Text(".error-page h1") != "Página no encontrada" {
			t.Errorf("status %d, title %q; want 404 Página no encontrada", p.Status, p.Text(".error-page h1"))
		}
	})
	t.Run("visitor on an unknown lesson is asked to sign in first", func(t *testing.T) {
		p := webtest.New(t, s.URL).Get("/learn/networking/no-such-lesson")
		if p.URL.Path != "/login" || p.URL.Query().Get("next") != "/learn/networking/no-such-lesson" {
			t.Errorf("at %s, want /login?next=/learn/networking/no-such-lesson", p.URL)
		}
	})
}

func TestLessonNeighbours(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "pass-phrase-1", "FREE")
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	tests := []struct {
		name, url          string
		prevHref, prevText string // empty: no link
		nextHref, nextText string
	}{
		{"first lesson of a path", "/learn/networking/vlan-basics",
			"", "", "/learn/networking/vlan-cisco-ios", "Configuring VLANs on Cisco IOS"},
		{"last lesson of a module goes on to the next module", "/learn/networking/vlan-cisco-ios",
			"/learn/networking/vlan-basics", "What a VLAN is and why it matters", "/learn/networking/subnetting", "Subnetting IPv4"},
		{"first lesson of the second module", "/learn/networking/subnetting",
			"/learn/networking/vlan-cisco-ios", "Configuring VLANs on Cisco IOS", "/learn/networking/routing-basics", "Routing basics"},
		{"last lesson of a path", "/learn/networking/routing-basics",
			"/learn/networking/subnetting", "Subnetting IPv4", "", ""},
		{"last lesson of another path", "/learn/go-basics/go-concurrency",
			"/learn/go-basics/go-functions-errors", "Functions and errors", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := c.Get(tt.url)
			if p.Status != http.StatusOK {
				t.Fatalf("status %d", p.Status)
			}
			for _, link := range []struct{ sel, href, text string }{
				{".pager a.prev", tt.prevHref, tt.prevText},
				{".pager a.next", tt.nextHref, tt.nextText},
			} {
				a := p.Doc.Find(link.sel)
				if link.href == "" {
					if a.Length() != 0 {
						t.Errorf("%s = %q, want none", link.sel, a.AttrOr("href", ""))
					}
					continue
				}
				if a.Length() != 1 || a.AttrOr("href", "") != link.href || !strings.Contains(a.Text(), link.text) {
					t.Errorf("%s: %d links, href %q text %q; want %q %q", link.sel, a.Length(), a.AttrOr("href", ""), a.Text(), link.href, link.text)
				}
			}
		})
	}
}

// The lesson page runs a fixed number of statements, however many lessons
// the path and the site have.
func TestLessonPageStatementsDoNotGrowWithLessons(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "pass-phrase-1", "FREE")
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	const url = "/learn/go-basics/go-concurrency"
	count := func() int64 {
		t.Helper()
		s.SQLs.Store(0)
		p := c.Get(url)
		if p.Status != http.StatusOK || p.Text("#lesson h1") != "Goroutines and channels" {
			t.Fatalf("lesson page: status %d, title %q", p.Status, p.Text("#lesson h1"))
		}
		return s.SQLs.Load()
	}
	count() // warm: the first visit may save the session's CSRF token
	before := count()
	t.Logf("a lesson page runs %d SQL statements", before)
	if before == 0 || before > 12 {
		t.Fatalf("a lesson page runs %d statements, want a small constant (1..12)", before)
	}

	files := map[string]string{}
	for i := 1; i <= 200; i++ {
		id := fmt.Sprintf("extra-%03d", i)
		files["extra/"+id+".md"] = goBasicsHeader(id, "extra", 2, i) +
			fmt.Sprintf("\nExercise %d.\n\n## Part one\n\nText.\n\n## Part two\n\n```go\nfmt.Println(%d)\n```\n", i, i)
	}
	importFiles(t, s, files)
	var n int64
	s.DB.Raw("SELECT count(*) FROM lessons l JOIN modules m ON m.id = l.module_id JOIN paths p ON p.id = m.path_id WHERE p.slug = 'go-basics'").Scan(&n)
	if n != 203 {
		t.Fatalf("go-basics has %d lessons after the import, want 203", n)
	}

	after := count()
	if after != before {
		t.Errorf("a lesson page ran %d statements with 3 lessons in its path and %d with 203", before, after)
	}
	// The imported lessons are really there: the last demo lesson now leads on to them.
	p := c.Get(url)
	if href := p.Doc.Find(".pager a.next").AttrOr("href", ""); href != "/learn/go-basics/extra-001" {
		t.Errorf("next after the last demo lesson = %q, want /learn/go-basics/extra-001", href)
	}
	s.SQLs.Store(0)
	p = c.Get("/learn/go-basics/extra-200")
	if p.Status != http.StatusOK || s.SQLs.Load() != before {
		t.Errorf("the 203rd lesson: status %d, %d statements, want 200 and %d", p.Status, s.SQLs.Load(), before)
	}
}

func TestLessonMarkdownIsRenderedAndInert(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "pass-phrase-1", "FREE")
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	importFiles(t, s, map[string]string{"evil.md": `---
kind: lesson
id: evil-lesson
path: go-basics
path_title: Go basics
path_description: The core of the Go language, from variables and types to functions, errors and concurrency.
path_position: 3
module: extra
module_title: Extra exercises
module_position: 2
title: "<b>Bold</b> & <script>alert('title')</script>"
summary: Tries everything.
position: 1
language: en
---

Intro with **strong** text and a [safe link](https://go.dev/doc/).

<script>alert(1)</script>

<img src=x onerror="alert(2)">

[x](javascript:alert(3))

[y](JaVaScRiPt:alert(4))

<a href="javascript:alert(5)">raw link</a>

<iframe src="https://evil.example/"></iframe>

## Second section

| a | b |
|---|---|
| 1 | 2 |

` + "```go\nfunc main() {}\n```\n"})

	p := c.Get("/learn/go-basics/evil-lesson")
	if p.Status != http.StatusOK {
		t.Fatalf("status %d", p.Status)
	}
	prose := p.Doc.Find("#lesson .prose")
	html, _ := prose.Html()

	// Rendered Markdown.
	if prose.Find("strong").Text() != "strong" {
		t.Errorf("**strong** not rendered: %s", html)
	}
	if a := prose.Find(`a[href="https://go.dev/doc/"]`); a.Text() != "safe link" {
		t.Errorf("the safe link is missing: %s", html)
	}
	if prose.Find("h2").Text() != "Second section" || prose.Find("table td").Length() != 2 {
		t.Errorf("heading or GFM table not rendered: %s", html)
	}
	if prose.Find("pre.chroma").Length() != 1 {
		t.Errorf("code block not highlighted: %s", html)
	}

	// Inert: nothing runs, nothing points at javascript:, nothing embeds.
	if n := p.Doc.Find("#lesson script, #lesson iframe, #lesson [onerror], #lesson [onclick]").Length(); n != 0 {
		t.Errorf("%d active elements or handlers in the lesson: %s", n, html)
	}
	for _, attr := range []string{"href", "src"} {
		p.Doc.Find("#lesson [" + attr + "]").Each(func(_ int, el *goquery.Selection) {
			if v := strings.ToLower(strings.TrimSpace(el.AttrOr(attr, ""))); strings.HasPrefix(v, "javascript:") {
				t.Errorf("%s=%q in the lesson", attr, v)
			}
		})
	}
	if strings.Contains(strings.ToLower(html), "javascript:") {
		t.Errorf("javascript: survives in the lesson HTML: %s", html)
	}
	// The title is text, not markup.
	h1 := p.Doc.Find("#lesson h1")
	if h1.Children().Length() != 0 || h1.Text() != "<b>Bold</b> & <script>alert('title')</script>" {
		t.Errorf("title rendered as %q with %d child elements, want the literal text", h1.Text(), h1.Children().Length())
	}
	if strings.Contains(p.Body, "<script>alert") || strings.Contains(p.Body, "<b>Bold</b>") {
		t.Error("the page carries the lesson's markup unescaped")
	}
}
