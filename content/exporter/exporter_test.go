package exporter_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"aula/content"
	"aula/content/exporter"
	"aula/content/importer"
	"aula/internal/pgtest"
	"aula/models"
)

// tables are the rows a round trip must leave as they were, every column
// (updated_at and since included: an unchanged file is not rewritten).
var tables = []string{"paths", "modules", "lessons", "lesson_chunks", "lesson_suggestions", "lesson_versions",
	"help_articles", "help_chunks", "content_images"}

// snapshot is every row of tables as JSON, sorted.
func snapshot(t *testing.T, db *pgtest.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, tb := range tables {
		var rows []string
		if err := db.Raw(`SELECT to_jsonb(x)::text FROM ` + tb + ` x ORDER BY 1`).Scan(&rows).Error; err != nil {
			t.Fatalf("%s: %v", tb, err)
		}
		out[tb] = rows
	}
	return out
}

// testPNG is a small PNG and its media name.
func testPNG(t *testing.T) ([]byte, string) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return buf.Bytes(), hex.EncodeToString(sum[:]) + ".png"
}

// catalog fills db with the demo content and what the browser adds: an
// image a lesson shows, a draft, an unpublished lesson and a lesson
// written in the browser (no source file) then published.
func catalog(t *testing.T, db *pgtest.DB) *models.Content {
	t.Helper()
	ctx := context.Background()
	store := models.NewContent(db.DB)
	if _, err := importer.Import(ctx, store, content.FS); err != nil {
		t.Fatal(err)
	}
	pic, name := testPNG(t)
	extra := fstest.MapFS{
		"media/" + name:     {Data: pic},
		"extra/pictured.md": {Data: []byte("---\nkind: lesson\nid: pictured\npath: extra\npath_title: Extra\nmodule: m\nmodule_title: M\ntitle: Pictured\nlanguage: en\n---\n\n## A figure\n\n![A red dot](/media/" + name + ")\n")},
		"extra/draft.md":    {Data: []byte("---\nkind: lesson\nid: drafted\npath: extra\npath_title: Extra\nmodule: m\nmodule_title: M\ntitle: Drafted\nlanguage: en\nposition: 2\nstatus: draft\nsuggestions: [\"Why?\"]\n---\n\nNot yet.\n")},
		"extra/hidden.md":   {Data: []byte("---\nkind: lesson\nid: hidden\npath: extra\npath_title: Extra\nmodule: m\nmodule_title: M\ntitle: Hidden\nlanguage: es\nposition: 3\n---\n\n## Uno\n\nTexto.\n")},
	}
	if rep, err := importer.Import(ctx, store, extra); err != nil || len(rep.Errors) > 0 || rep.Images != 1 {
		t.Fatalf("extra: %+v %v", rep, err)
	}
	if err := store.Unpublish(ctx, "hidden", models.Actor{Email: "t"}); err != nil {
		t.Fatal(err)
	}
	browserLesson(t, db, store)
	return store
}

// browserLesson is a lesson as the editor makes one: a draft row without a
// source file, a saved version, then published.
func browserLesson(t *testing.T, db *pgtest.DB, store *models.Content) {
	t.Helper()
	ctx := context.Background()
	err := db.Exec(`INSERT INTO lessons (id, module_id, title, summary, position, language, content_md, content_hash, source_file, status)
		SELECT 'from-browser', id, 'From the browser', '', 4, 'en', '', '', '', 'draft' FROM modules WHERE slug = 'm'`).Error
	if err != nil {
		t.Fatal(err)
	}
	d := models.LessonDraft{Title: "From the browser", Summary: "Typed: \"quoted\" #not-a-comment", Language: "en",
		ContentMD: "Intro.\n\n## Typed here\n\nText: with a colon.\n", Suggestions: []string{"What now?"}}
	if _, err := store.SaveVersion(ctx, "from-browser", 0, d, models.VersionSave, ""); err != nil {
		t.Fatal(err)
	}
	if err := store.Publish(ctx, "from-browser", 1, models.Actor{Email: "t"}); err != nil {
		t.Fatal(err)
	}
}

func exportZip(t *testing.T, store *models.Content, path string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := exporter.NewZip(&buf)
	if _, err := exporter.Export(context.Background(), store, z, path); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func importZip(t *testing.T, store *models.Content, data []byte) importer.Report {
	t.Helper()
	fsys, err := importer.ReadZip(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := importer.Import(context.Background(), store, fsys)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func zipFiles(t *testing.T, data []byte) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		out[f.Name] = string(b)
	}
	return out
}

// TestRoundTripChangesNothing is the test: the demo content and
// what the browser adds, exported, re-imported: every file unchanged and
// every row as it was; imported into a fresh database and exported again:
// the same bytes.
func TestRoundTripChangesNothing(t *testing.T) {
	db := pgtest.New(t)
	store := catalog(t, db)
	before := snapshot(t, db)
	first := exportZip(t, store, "")
	files := zipFiles(t, first)

	rep := importZip(t, store, first)
	if rep.Lessons+rep.HelpArticles+rep.Images != 0 || len(rep.Errors) > 0 || rep.Unchanged != len(files) {
		t.Errorf("re-import of %d files: %+v, want all unchanged", len(files), rep)
	}
	after := snapshot(t, db)
	for _, tb := range tables {
		if strings.Join(before[tb], "\n") != strings.Join(after[tb], "\n") {
			t.Errorf("%s changed by the re-import:\nbefore %v\nafter  %v", tb, before[tb], after[tb])
		}
	}

	fresh := models.NewContent(pgtest.New(t).DB)
	if rep := importZip(t, fresh, first); len(rep.Errors) > 0 || rep.Unchanged != 0 {
		t.Fatalf("import into a fresh database: %+v", rep)
	}
	second := exportZip(t, fresh, "")
	again := zipFiles(t, second)
	for name, text := range files {
		if again[name] != text {
			t.Errorf("%s differs after the fresh import:\nfirst  %q\nsecond %q", name, text, again[name])
		}
	}
	if len(again) != len(files) || !bytes.Equal(first, second) {
		t.Errorf("the second export is not the same zip: %d files, then %d", len(files), len(again))
	}
	for _, want := range []string{"lessons/networking/01-vlan-basics.md", "help/help-api-tokens.md",
		"extra/draft.md", "lessons/extra/m/04-from-browser.md"} {
		if _, ok := files[want]; !ok {
			t.Errorf("no %s in the export", want)
		}
	}
}

// A lesson written in the browser (no source file), exported, edited in
// the zip and imported again is updated as a new version of the same
// lesson (not refused, not duplicated), which takes the file's name; the
// import is one audit entry.
func TestZipReimportUpdatesABrowserLesson(t *testing.T) {
	db := pgtest.New(t)
	store := catalog(t, db)
	files := zipFiles(t, exportZip(t, store, "extra"))
	name := "lessons/extra/m/04-from-browser.md"
	edited := strings.Replace(files[name], "Text: with a colon.", "Text, edited in the zip.", 1)
	if edited == files[name] {
		t.Fatalf("%s: %q", name, files[name])
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create(name)
	_, _ = w.Write([]byte(edited))
	_ = zw.Close()
	fsys, err := importer.ReadZip(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	who := models.Actor{Email: "aula content import"}
	rep, err := importer.ImportAs(context.Background(), store, fsys, who, "edited.zip")
	if err != nil || rep.Lessons != 1 || len(rep.Errors) > 0 {
		t.Fatalf("re-import: %+v %v", rep, err)
	}
	var l models.Lesson
	db.Where("id = 'from-browser'").Take(&l)
	if l.Status != models.StatusPublished || l.Version != 2 || *l.PublishedVersion != 2 || l.SourceFile != name ||
		!strings.Contains(l.ContentMD, "edited in the zip") {
		t.Errorf("lesson after the re-import: %+v", l)
	}
	var kinds []string
	db.Raw(`SELECT kind FROM lesson_versions WHERE lesson_id = 'from-browser' ORDER BY number`).Scan(&kinds)
	if strings.Join(kinds, ",") != "save,import" {
		t.Errorf("versions %v", kinds)
	}
	var e models.ContentEvent
	db.Where("action = 'import'").Take(&e)
	if e.ActorEmail != "aula content import" || e.ActorID != nil || e.Subject != "edited.zip" ||
		e.Detail != "1 lessons, 0 help articles, 0 unchanged, 0 errors" {
		t.Errorf("audit %+v", e)
	}
}
