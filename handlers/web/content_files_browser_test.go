package web_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// In real Chromium, with JavaScript on and off: a content admin uploads a
// zip of one good and one bad file from the catalog; the page the upload
// leads to reports the lesson imported and lists bad.md:3 with its
// reason, in view, never wider than 1366 or 390 px, light and dark (with
// AULA_SHOTS set, screenshots of each); axe finds nothing serious; the
// good lesson is in the catalog.
func TestBrowserContentZipUpload(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t)
			s.User(t, "author@example.com", filesPass, models.PlanContentAdmin)
			file := filepath.Join(t.TempDir(), "course.zip")
			data := zipOf(t, "good.md", lessonMD("zipped-good", "A good zipped lesson"),
				"bad.md", "---\nkind: lesson\nid: Not A Slug\ntitle: Bad\n---\n\nText.\n")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			b := browser.New(t, tt.opts...)
			shots := !b.NoJS
			browserSignIn(b, s, "author@example.com", filesPass)
			b.Navigate(s.URL + "/admin/content")
			b.WaitVisible("#catalog-import-form")
			b.Click("#files-title")
			b.WaitVisible("#catalog-import-button")
			if href, _ := b.Attr("#catalog-export", "href"); href != "/admin/content/export.zip" {
				b.Fatalf("the catalog's download link: %q", href)
			}
			if shots {
				orgShots(b, true, "content-catalog-files")
			}
			if err := chromedp.Do(b.Ctx, chromedp.SetUploadFiles(chromedp.CSS("#catalog-import-zip"), []string{file})); err != nil {
				b.Fatalf("choose the file: %v", err)
			}
			b.ClickAndWait("#catalog-import-button")
			b.WaitVisible("#import-report")
			if b.Path() != "/admin/content/files" || b.Text("#report-lessons") != "1 lesson imported" ||
				!strings.HasPrefix(b.Text("#report-error-1"), `bad.md:3: id "Not A Slug" must be lowercase letters`) ||
				b.Has("#report-error-2") {
				b.Fatalf("the report at %s: %q", b.Path(), b.Text("#import-report"))
			}
			if r := box(b, "#import-report"); r.Top < 0 || r.Top > 900 {
				b.Errorf("the report is out of view: top %v", r.Top)
			}
			orgShots(b, shots, "content-files-report")
			if shots {
				u := b.Location()
				axeEach(t, b, s.URL, u[len(s.URL):])
			}
			b.Navigate(s.URL + "/admin/content")
			b.WaitVisible("#catalog-import-form")
			if !strings.Contains(b.Text("#paths"), "A good zipped lesson") || strings.Contains(b.Text("#paths"), "Bad") {
				b.Errorf("the catalog after the import: %q", b.Text("#paths"))
			}
		})
	}
}
