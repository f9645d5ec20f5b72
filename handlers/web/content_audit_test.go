package web_test

import (
	"net/http"
	"strings"
	"testing"

	"aula/internal/apptest"
)

// The content audit log lists what authors did, newest first: when, who,
// the action in words (Spanish too), the subject linked while it exists
// (a deleted lesson's id stays as text) and the detail; 50 entries a
// page, older ones behind a keyset link, a bad cursor a 400.
func TestContentAuditLog(t *testing.T) {
	s := apptest.New(t)
	c := author(t, s)
	if p := c.Get("/admin/content"); p.Doc.Find(`#content-audit-link[href="/admin/content/audit"]`).Length() != 1 {
		t.Fatal("the catalog does not link the audit log")
	}
	newCatalogLesson(t, s, c)
	c.Submit(c.Get("/admin/content/lessons/first-steps/delete"), "#lesson-delete-confirm", nil)
	p := c.Get("/admin/content/audit")
	rows := p.Doc.Find("#content-audit tbody tr")
	if p.Status != http.StatusOK || rows.Length() != 4 {
		t.Fatalf("%d, %d entries: %q", p.Status, rows.Length(), p.Text("main"))
	}
	del, mod, path := rows.Eq(0), rows.Eq(2), rows.Eq(3)
	if got := del.Text(); !strings.Contains(got, "author@example.com") || !strings.Contains(got, "Deleted") ||
		!strings.Contains(got, "first-steps") || !strings.Contains(got, "First steps") || del.Find(".audit-subject a").Length() != 0 {
		t.Fatalf("the delete entry: %q", got)
	}
	if href := path.Find(".audit-subject a").AttrOr("href", ""); href != "/admin/content#path-ops" || !strings.Contains(path.Text(), "Created") {
		t.Fatalf("the path entry links %q: %q", href, path.Text())
	}
	if href := mod.Find(".audit-subject a").AttrOr("href", ""); href != "/admin/content#module-"+moduleIDOf(t, s, "ops", "basics") {
		t.Fatalf("the module entry links %q", href)
	}
	c.Lang = "es"
	if got := c.Get("/admin/content/audit").Text("#content-audit tbody tr:first-child"); !strings.Contains(got, "Eliminó") {
		t.Fatalf("in Spanish: %q", got)
	}
	c.Lang = ""
	s.DB.Exec(`INSERT INTO content_audit (actor_email, action, subject, detail) SELECT '', 'import', 'vlan-basics', 'file ' || i FROM generate_series(1, 100) i`)
	p = c.Get("/admin/content/audit")
	older := p.Doc.Find("#audit-older").AttrOr("href", "")
	if n := p.Doc.Find("#content-audit tbody tr").Length(); n != 50 || older == "" || p.Doc.Find("#audit-newest").Length() != 0 {
		t.Fatalf("the first page: %d entries, older %q", n, older)
	}
	if first := p.Doc.Find("#content-audit tbody tr").First(); !strings.Contains(first.Text(), "import") ||
		first.Find(`a[href="/admin/content/lessons/vlan-basics"]`).Length() != 1 || !strings.Contains(first.Text(), "file 100") {
		t.Fatalf("the newest import: %q", first.Text())
	}
	seen := 50
	for older != "" {
		p = c.Get(older)
		seen += p.Doc.Find("#content-audit tbody tr").Length()
		older = p.Doc.Find("#audit-older").AttrOr("href", "")
		if p.Doc.Find("#audit-newest").Length() != 1 {
			t.Fatal("an older page has no way back to the newest")
		}
	}
	if seen != 104 {
		t.Fatalf("the pages hold %d entries, want 104", seen)
	}
	if p := c.Get("/admin/content/audit?before=x"); p.Status != http.StatusBadRequest {
		t.Fatalf("a bad cursor: %d", p.Status)
	}
}
