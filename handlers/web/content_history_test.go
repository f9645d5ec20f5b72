package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// The history lists the versions newest first with who, what and which
// one students see; the diff of two shows each section unchanged,
// changed (with its lines), added or removed; restoring an old version
// adds it as the newest and, the lesson being published, shows it to
// students, with an audit entry. Version numbers that are not versions
// are 404s, never 500s.
func TestLessonHistoryDiffRestore(t *testing.T) {
	s, author, _, student := editorServer(t)
	p := author.Get(vlanEditor)
	body := p.Doc.Find("#f-body").Text()
	edited := editedBody(t, body, "A **broadcast domain** is", "EDITED: a **broadcast domain** is")
	edited = strings.Replace(edited, "\n## How a switch keeps VLANs apart", "\n## Extra\n\nA new section.\n\n## How a switch keeps VLANs apart", 1)
	if r := postEditor(t, author, vlanEditor, editorFields(t, p, map[string][]string{"body": {edited}, "note": {"my <b>note</b>"}, "action": {"save"}})); r.Status != http.StatusSeeOther {
		t.Fatalf("save: %d", r.Status)
	}

	h := author.Get(vlanEditor + "/history")
	rows := h.Doc.Find("#history > li")
	if h.Status != http.StatusOK || rows.Length() != 2 || rows.First().AttrOr("id", "") != "version-2" ||
		!strings.Contains(h.Text("#version-2"), "author@example.com") || !strings.Contains(h.Text("#version-2"), "my <b>note</b>") ||
		h.Doc.Find("#version-1 #published-1").Length() != 1 || h.Doc.Find("#version-2 .restore-button").Length() != 0 {
		t.Fatalf("history: %d %q", h.Status, h.Text("#history"))
	}
	// The compare form is a GET of from and to; by default the two newest.
	if f := h.Doc.Find("#compare-form"); f.AttrOr("action", "") != vlanEditor+"/diff" ||
		f.Find(`input[name="from"][value="1"][checked]`).Length() != 1 || f.Find(`input[name="to"][value="2"][checked]`).Length() != 1 {
		t.Fatal("the compare form does not start on versions 1 and 2")
	}
	d := author.Get(vlanEditor + "/diff?from=1&to=2")
	changed := d.Doc.Find("li#section-broadcast-domains-and-the-problem-vlans-solve")
	if d.Status != http.StatusOK || changed.AttrOr("data-change", "") != "changed" ||
		!strings.Contains(changed.Find("del").Text(), "A **broadcast domain** is") || !strings.Contains(changed.Find("ins").Text(), "EDITED:") ||
		d.Doc.Find(`li#section-extra[data-change="added"]`).Length() != 1 ||
		d.Doc.Find(`li#section-access-ports-and-trunk-ports[data-change="unchanged"]`).Length() != 1 {
		t.Fatalf("diff: %d %q", d.Status, d.Text("#diff-sections"))
	}
	if back := author.Get(vlanEditor + "/diff?from=2&to=1"); back.Doc.Find(`li#section-extra[data-change="removed"]`).Length() != 1 {
		t.Fatalf("diff backwards: %q", back.Text("#diff-sections"))
	}

	csrf := h.CSRF()
	for _, path := range []string{"/diff?from=x&to=1", "/diff?from=0&to=1", "/diff?from=1&to=99999999999", "/diff?from=1&to=3",
		"/diff?from=1", "/history?before=abc", "/history?before=4294967297", "/diff?from=-1&to=1"} {
		if r := author.Get(vlanEditor + path); r.Status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, r.Status)
		}
	}
	for _, n := range []string{"99999999999", "7", "x"} {
		if r := postEditor(t, author, vlanEditor+"/restore", url.Values{"_csrf": {csrf}, "number": {n}, "base": {"2"}}); r.Status != http.StatusNotFound {
			t.Errorf("restore %s = %d, want 404", n, r.Status)
		}
	}
	if r := author.Get("/admin/content/lessons/no-such-lesson/history"); r.Status != http.StatusNotFound {
		t.Errorf("history of no lesson = %d", r.Status)
	}

	// Restoring version 1 from the history's button.
	r := postEditor(t, author, vlanEditor+"/restore", url.Values{"_csrf": {csrf}, "number": {"1"}, "base": {"2"}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != vlanEditor {
		t.Fatalf("restore: %d %q", r.Status, r.Header.Get("Location"))
	}
	if e := author.Get(vlanEditor); e.Text("#admin-flash") != "Restored version 1 as version 3 and published it: students see it now." ||
		strings.Contains(e.Doc.Find("#f-body").Text(), "EDITED:") || e.Text("#editor-published") != "Students see version 3." {
		t.Fatalf("after restoring: %q %q", e.Text("#admin-flash"), e.Text("#editor-meta"))
	}
	if sp := student.Get(vlanPage); strings.Contains(sp.Body, "EDITED:") || !strings.Contains(sp.Body, "broadcast domain") {
		t.Fatal("the student does not see the restored text")
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM content_audit WHERE action = 'restore' AND subject = 'vlan-basics' AND detail = 'version 1 as version 3' AND actor_email = 'author@example.com'`); n != 1 {
		t.Fatalf("restore audit rows: %d", n)
	}
	// A restore from a history opened before someone else's save: 409, nothing written.
	r = postEditor(t, author, vlanEditor+"/restore", url.Values{"_csrf": {csrf}, "number": {"2"}, "base": {"2"}})
	if r.Status != http.StatusConflict || !strings.Contains(r.Text("#admin-error"), "Someone saved version 3") {
		t.Fatalf("stale restore: %d %q", r.Status, r.Text("#admin-error"))
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM lesson_versions WHERE lesson_id = 'vlan-basics'`); n != 3 {
		t.Fatalf("versions: %d, want 3", n)
	}
}

// The history pages by version number: 30 a page, then "Older versions".
func TestLessonHistoryPages(t *testing.T) {
	s, author, _, _ := editorServer(t)
	ctx := t.Context()
	for base := 1; base <= 34; base++ {
		d := models.LessonDraft{Title: "VLANs", Language: "en", ContentMD: fmt.Sprintf("Text %d.\n", base), Note: fmt.Sprintf("n%d", base)}
		if _, err := s.App.Content.SaveVersion(ctx, "vlan-basics", base, d, models.VersionSave, ""); err != nil {
			t.Fatal(err)
		}
	}
	h := author.Get(vlanEditor + "/history")
	if n := h.Doc.Find("#history > li").Length(); n != 30 || h.Doc.Find("#history > li").First().AttrOr("id", "") != "version-35" {
		t.Fatalf("first page: %d rows", n)
	}
	older := h.Doc.Find("#history-older").AttrOr("href", "")
	if older != vlanEditor+"/history?before=6" {
		t.Fatalf("older link %q", older)
	}
	h = author.Get(older)
	if n := h.Doc.Find("#history > li").Length(); n != 5 || h.Doc.Find("#history-older").Length() != 0 ||
		h.Doc.Find("#history > li").Last().AttrOr("id", "") != "version-1" {
		t.Fatalf("second page: %d rows", n)
	}
}
