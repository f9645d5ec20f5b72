package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// Every bad field is refused with a 422 in the author's language that
// names the field, keeps everything typed, and saves nothing.
func TestLessonEditorBadInput(t *testing.T) {
	s, author, _, _ := editorServer(t)
	p := author.Get(vlanEditor)
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name, lang string
		changes    map[string][]string
		field      string // the field whose message shows
		want       string // in the message
		kept       string // a selector whose value or text keeps what was typed
	}{
		{"NUL in the body", "", map[string][]string{"body": {"Intro.\n\n## A\n\nbad\x00byte"}}, "body", "NUL", "#f-body"},
		{"invalid UTF-8 in the title", "", map[string][]string{"title": {"VLANs \xff\xfe"}}, "title", "UTF-8", "#f-title"},
		{"NUL in a suggestion, in Spanish", "es", map[string][]string{"suggestion": {"ok", "a\x00b", ""}}, "suggestion2", "carácter NUL", "#f-suggestion1"},
		{"an empty title", "", map[string][]string{"title": {"  "}}, "title", "Write a title", "#f-body"},
		{"a title too long", "", map[string][]string{"title": {long(201)}}, "title", "at most 200 characters", "#f-title"},
		{"a summary too long", "", map[string][]string{"summary": {long(501)}}, "summary", "at most 500 characters", "#f-summary"},
		{"a body too long", "", map[string][]string{"body": {long(models.MaxLessonBody + 1)}}, "body", "at most 200 KiB", "#f-body"},
		{"a note too long", "", map[string][]string{"note": {long(501)}}, "note", "at most 500", "#f-note"},
		{"a language aula has not", "es", map[string][]string{"language": {"fr"}}, "language", "Elige inglés o español", "#f-title"},
		{"four suggestions", "", map[string][]string{"suggestion": {"a", "b", "c", "d"}}, "suggestions", "At most three", "#f-suggestion3"},
		{"a suggestion too long", "", map[string][]string{"suggestion": {long(201), "", ""}}, "suggestion1", "at most 200 characters", "#f-suggestion1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			author.Lang = tc.lang
			t.Cleanup(func() { author.Lang = "" })
			fields := editorFields(t, p, tc.changes)
			fields.Set("action", "save")
			r := postEditor(t, author, vlanEditor, fields)
			msg := r.Text("#err-" + tc.field)
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(msg, tc.want) || r.Text("#admin-error") == "" {
				t.Fatalf("%d, message %q, want %q", r.Status, msg, tc.want)
			}
			typed := fields.Get(strings.TrimPrefix(tc.kept, "#f-"))
			if strings.HasPrefix(tc.kept, "#f-suggestion") {
				typed = fields["suggestion"][tc.kept[len(tc.kept)-1]-'1']
			}
			got := r.Doc.Find(tc.kept).AttrOr("value", r.Doc.Find(tc.kept).Text())
			if typed = strings.ToValidUTF8(strings.ReplaceAll(typed, "\x00", "\uFFFD"), "\uFFFD"); strings.TrimSpace(got) != strings.TrimSpace(typed) {
				t.Fatalf("%s not kept: %.80q, typed %.80q", tc.kept, got, typed)
			}
			if n := apptest.Count(t, s, `SELECT count(*) FROM lesson_versions WHERE lesson_id = 'vlan-basics'`); n != 1 {
				t.Fatalf("a refused save wrote a version: %d", n)
			}
		})
	}
}

// xss are stored-XSS payloads: each must come out as text, never as markup.
var xss = []string{`<script>alert("x1")</script>`, `<img src=x onerror=alert("x2")>`, `[click](javascript:alert("x3"))`}

// assertInert fails when a page carries one of the payloads as live markup.
func assertInert(t *testing.T, where string, p *webtest.Page) {
	t.Helper()
	p.Doc.Find("script").Each(func(_ int, sc *goquery.Selection) {
		if strings.Contains(sc.Text(), "alert(") {
			t.Errorf("%s: a script ran a payload: %q", where, sc.Text())
		}
	})
	if n := p.Doc.Find("[onerror], [onload], [onclick]").Length(); n > 0 {
		t.Errorf("%s: %d elements carry an event handler", where, n)
	}
	p.Doc.Find("a[href], img[src]").Each(func(_ int, el *goquery.Selection) {
		if h := strings.ToLower(el.AttrOr("href", el.AttrOr("src", ""))); strings.HasPrefix(strings.TrimSpace(h), "javascript:") {
			t.Errorf("%s: a javascript: link %q", where, h)
		}
	})
}

// Stored-XSS payloads in every field are inert in the preview, in the
// editor, and on the students' page once published.
func TestLessonEditorPayloadsInert(t *testing.T) {
	_, author, _, student := editorServer(t)
	p := author.Get(vlanEditor)
	all := strings.Join(xss, " ")
	body := "Intro " + all + "\n\n## Payloads " + xss[0] + "\n\n" + strings.Join(xss, "\n\n") + "\n"
	fields := editorFields(t, p, map[string][]string{"title": {"T " + all}, "summary": {"S " + all}, "note": {"N " + xss[1]},
		"suggestion": {xss[0], xss[1], xss[2]}, "body": {body}})
	fields.Set("action", "preview")
	pr := postEditor(t, author, vlanEditor, fields)
	if pr.Status != http.StatusOK || pr.Doc.Find("#preview-body h2#payloads-alertx1").Length() != 1 {
		t.Fatalf("preview: %d %q", pr.Status, pr.Text("#preview-body"))
	}
	assertInert(t, "preview", pr)
	fields.Set("action", "publish")
	if r := postEditor(t, author, vlanEditor, fields); r.Status != http.StatusSeeOther {
		t.Fatalf("publish: %d\n%s", r.Status, r.Body)
	}
	assertInert(t, "editor", author.Get(vlanEditor))
	sp := student.Get(vlanPage)
	if sp.Status != http.StatusOK || !strings.Contains(sp.Body, "Payloads") {
		t.Fatalf("student page: %d", sp.Status)
	}
	assertInert(t, "student page", sp)
}

// editorRoutes are every route of the editor, its history and restore.
func editorRoutes() []struct{ method, path string } {
	return []struct{ method, path string }{
		{"GET", vlanEditor}, {"POST", vlanEditor}, {"POST", vlanEditor + "/unpublish"},
		{"GET", vlanEditor + "/history"}, {"GET", vlanEditor + "/diff?from=1&to=1"}, {"POST", vlanEditor + "/restore"},
	}
}

// A student and a CORPORATE_ADMIN get 404 on every editor route and
// change nothing; a content admin's post without its CSRF token is refused.
func TestLessonEditorAccessAndCSRF(t *testing.T) {
	s, author, _, student := editorServer(t)
	s.Org(t, "acme", "corp@example.com")
	corp := s.SignIn(t, "corp@example.com", apptest.OrgPassword)
	form := url.Values{"base": {"1"}, "title": {"X"}, "language": {"en"}, "body": {"x"}, "action": {"publish"}, "number": {"1"}}
	for name, c := range map[string]*webtest.Client{"student": student, "corporate admin": corp} {
		csrf := c.Get("/learn").CSRF()
		for _, r := range editorRoutes() {
			if p := send(t, c, r.method, r.path, form, csrf); p.Status != http.StatusNotFound {
				t.Errorf("%s: %s %s = %d, want 404", name, r.method, r.path, p.Status)
			}
		}
	}
	for _, r := range editorRoutes() {
		if r.method == "POST" {
			if p := send(t, author, r.method, r.path, form, ""); p.Status != http.StatusForbidden {
				t.Errorf("without CSRF: %s = %d, want 403", r.path, p.Status)
			}
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM lesson_versions WHERE lesson_id = 'vlan-basics'`); n != 1 {
		t.Fatalf("a refused request wrote a version: %d", n)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM content_audit`); n != 0 {
		t.Fatalf("a refused request wrote to the audit log: %d", n)
	}
}
