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

const (
	editorPass = "pass-phrase-1"
	vlanEditor = "/admin/content/lessons/vlan-basics"
	vlanPage   = "/learn/networking/vlan-basics"
)

// editorServer is aula with a content admin, a second one, a SUPER_ADMIN
// and a student, each signed in.
func editorServer(t *testing.T) (s *apptest.Server, author, other, student *webtest.Client) {
	t.Helper()
	s = apptest.New(t)
	s.User(t, "author@example.com", editorPass, models.PlanContentAdmin)
	s.User(t, "other@example.com", editorPass, models.PlanSuperAdmin)
	s.User(t, "student@example.com", editorPass, models.PlanFree)
	return s, s.SignIn(t, "author@example.com", editorPass), s.SignIn(t, "other@example.com", editorPass),
		s.SignIn(t, "student@example.com", editorPass)
}

// editorFields are the editor form's fields as the page shows them, with
// changes on top (a nil value removes the field).
func editorFields(t *testing.T, p *webtest.Page, changes map[string][]string) url.Values {
	t.Helper()
	f := p.Doc.Find("#editor-form")
	if f.Length() == 0 {
		t.Fatalf("no editor form (%d):\n%s", p.Status, p.Body)
	}
	v := url.Values{
		"_csrf": {p.CSRF()}, "base": {f.Find(`input[name="base"]`).AttrOr("value", "")},
		"title": {f.Find("#f-title").AttrOr("value", "")}, "summary": {f.Find("#f-summary").Text()},
		"language": {f.Find("#f-language option[selected]").AttrOr("value", "")},
		"body":     {f.Find("#f-body").Text()}, "note": {f.Find("#f-note").AttrOr("value", "")},
	}
	for _, n := range []string{"#f-suggestion1", "#f-suggestion2", "#f-suggestion3"} {
		v.Add("suggestion", f.Find(n).AttrOr("value", ""))
	}
	for k, val := range changes {
		if val == nil {
			v.Del(k)
		} else {
			v[k] = val
		}
	}
	return v
}

// postEditor posts the editor form without following the redirect.
func postEditor(t *testing.T, c *webtest.Client, path string, v url.Values) *webtest.Page {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.Base+path, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	noFollow := *c.HTTP
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	nc := *c
	nc.HTTP = &noFollow
	return nc.Do(req)
}

// editedBody is vlan-basics' text with one section's sentence changed.
func editedBody(t *testing.T, body, old, new string) string {
	t.Helper()
	if !strings.Contains(body, old) {
		t.Fatalf("the lesson has no %q", old)
	}
	return strings.Replace(body, old, new, 1)
}

// The editor opens the published lesson's newest version; Save draft adds
// a version students do not see; Publish shows it; Unpublish hides the
// lesson; publish and unpublish are in the content audit log.
func TestLessonEditorDraftPublishUnpublish(t *testing.T) {
	s, author, _, student := editorServer(t)
	p := author.Get(vlanEditor)
	if p.Status != http.StatusOK || p.Text("#editor-status") != "Published" || p.Text("#editor-opened") != "You opened version 1." ||
		p.Text("#f-id") != "vlan-basics" || p.Doc.Find(`#preview-body h2#broadcast-domains-and-the-problem-vlans-solve`).Length() != 1 ||
		p.Doc.Find(`#editor-outline li#section-access-ports-and-trunk-ports[data-anchor="access-ports-and-trunk-ports"]`).Length() != 1 ||
		p.Doc.Find("#f-suggestion1").AttrOr("value", "") != "What problem does a VLAN solve?" {
		t.Fatalf("editor: %d %q %q\n%s", p.Status, p.Text("#editor-meta"), p.Text("#editor-outline"), p.Body)
	}
	body := p.Doc.Find("#f-body").Text()
	draft := editedBody(t, body, "A **broadcast domain** is", "A **broadcast domain** (draft wording) is")
	// A textarea sends CRLF line ends: they are saved as LF.
	r := postEditor(t, author, vlanEditor, editorFields(t, p, map[string][]string{
		"body": {strings.ReplaceAll(draft, "\n", "\r\n")}, "action": {"save"}, "note": {"reword"}}))
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != vlanEditor {
		t.Fatalf("save draft: %d %q", r.Status, r.Header.Get("Location"))
	}
	p = author.Get(vlanEditor)
	if p.Text("#admin-flash") != "Saved version 2 as a draft. Students still see what they saw." ||
		p.Text("#editor-opened") != "You opened version 2." || !strings.Contains(p.Text("#editor-newest"), "author@example.com") ||
		p.Text("#editor-published") != "Students see version 1." {
		t.Fatalf("after the draft: %q %q", p.Text("#admin-flash"), p.Text("#editor-meta"))
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM lesson_versions WHERE lesson_id = 'vlan-basics' AND number = 2 AND content_md = ? AND note = 'reword'`, draft); n != 1 {
		t.Fatalf("version 2 as saved: %d rows", n)
	}
	if sp := student.Get(vlanPage); sp.Status != http.StatusOK || strings.Contains(sp.Body, "draft wording") {
		t.Fatalf("a draft changed what the student sees: %d", sp.Status)
	}

	r = postEditor(t, author, vlanEditor, editorFields(t, p, map[string][]string{"action": {"publish"}}))
	if r.Status != http.StatusSeeOther {
		t.Fatalf("publish: %d", r.Status)
	}
	if p = author.Get(vlanEditor); p.Text("#admin-flash") != "Published version 3: students see it now." ||
		p.Text("#editor-published") != "Students see version 3." {
		t.Fatalf("after publishing: %q %q", p.Text("#admin-flash"), p.Text("#editor-meta"))
	}
	if sp := student.Get(vlanPage); !strings.Contains(sp.Body, "draft wording") {
		t.Fatal("the student does not see the published text")
	}

	r = postEditor(t, author, "/admin/content/lessons/vlan-basics/unpublish", url.Values{"_csrf": {p.CSRF()}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("unpublish: %d", r.Status)
	}
	if p = author.Get(vlanEditor); p.Text("#editor-status") != "Unpublished" || p.Doc.Find("#unpublish-form").Length() != 0 {
		t.Fatalf("after unpublishing: %q", p.Text("#editor-meta"))
	}
	if sp := student.Get(vlanPage); sp.Status != http.StatusNotFound {
		t.Fatalf("the student still opens an unpublished lesson: %d", sp.Status)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM content_audit WHERE subject = 'vlan-basics' AND actor_email = 'author@example.com'
		AND ((action = 'publish' AND detail = 'version 3') OR action = 'unpublish')`); n != 2 {
		t.Fatalf("audit rows: %d, want publish and unpublish", n)
	}
}

// Two content admins open the same lesson and both save: the second is
// told it changed since, sees the first's text beside their own (kept),
// and saving again keeps both versions in the history. Nothing is lost.
func TestLessonEditorTwoAuthorsConflict(t *testing.T) {
	s, author, other, _ := editorServer(t)
	pa, pb := author.Get(vlanEditor), other.Get(vlanEditor)
	body := pa.Doc.Find("#f-body").Text()
	theirs := editedBody(t, body, "A **broadcast domain** is", "THEIRS: a broadcast domain is")
	mine := editedBody(t, body, "## Summary of key terms", "## Summary of key terms\n\nMINE: a new line.")

	if r := postEditor(t, author, vlanEditor, editorFields(t, pa, map[string][]string{"body": {theirs}, "action": {"save"}})); r.Status != http.StatusSeeOther {
		t.Fatalf("first save: %d", r.Status)
	}
	r := postEditor(t, other, vlanEditor, editorFields(t, pb, map[string][]string{"body": {mine}, "action": {"save"}}))
	if r.Status != http.StatusConflict || r.Text("#conflict-title") != "Changed since you opened it" ||
		!strings.Contains(r.Text("#conflict-text"), "author@example.com saved version 2") ||
		!strings.Contains(r.Doc.Find("#conflict-body").Text(), "THEIRS:") || !strings.Contains(r.Doc.Find("#f-body").Text(), "MINE:") ||
		strings.Contains(r.Doc.Find("#f-body").Text(), "THEIRS:") || r.Doc.Find(`input[name="base"]`).AttrOr("value", "") != "2" {
		t.Fatalf("second save: %d %q\n%s", r.Status, r.Text("#editor-conflict"), r.Body)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM lesson_versions WHERE lesson_id = 'vlan-basics'`); n != 2 {
		t.Fatalf("the refused save wrote a version: %d versions", n)
	}
	// The second author saves again, deliberately: both texts are versions.
	if r := postEditor(t, other, vlanEditor, editorFields(t, r, map[string][]string{"action": {"save"}})); r.Status != http.StatusSeeOther {
		t.Fatalf("second save again: %d", r.Status)
	}
	for n, want := range map[int]string{2: "THEIRS:", 3: "MINE:"} {
		if c := apptest.Count(t, s, `SELECT count(*) FROM lesson_versions WHERE lesson_id = 'vlan-basics' AND number = ? AND position(? in content_md) > 0`, n, want); c != 1 {
			t.Errorf("version %d does not hold %q", n, want)
		}
	}
}

// Preview renders the form's text, saving nothing: without JavaScript the
// whole editor comes back with the text kept; the live preview (HTMX)
// gets the preview and the outline alone.
func TestLessonEditorPreview(t *testing.T) {
	s, author, _, _ := editorServer(t)
	p := author.Get(vlanEditor)
	body := p.Doc.Find("#f-body").Text() + "\n## A new section\n\nIts *text*.\n"
	fields := editorFields(t, p, map[string][]string{"body": {body}, "action": {"preview"}})
	r := postEditor(t, author, vlanEditor, fields)
	if r.Status != http.StatusOK || r.Doc.Find("#preview-body h2#a-new-section").Length() != 1 ||
		r.Doc.Find("#editor-outline li#section-a-new-section").Length() != 1 || r.Doc.Find("#f-body").Text() != body {
		t.Fatalf("preview: %d %q", r.Status, r.Text("#editor-outline"))
	}
	req, _ := http.NewRequest(http.MethodPost, author.Base+vlanEditor, strings.NewReader(fields.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Target", "editor-side")
	h := author.Do(req)
	if h.Status != http.StatusOK || h.Doc.Find("#editor-side #preview-body h2#a-new-section").Length() != 1 ||
		h.Doc.Find("#editor-form").Length() != 0 || h.Doc.Find("header, nav.topbar").Length() != 0 {
		t.Fatalf("live preview: %d\n%s", h.Status, h.Body)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM lesson_versions WHERE lesson_id = 'vlan-basics'`); n != 1 {
		t.Fatalf("a preview saved a version: %d", n)
	}
}
