package importer_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/PuerkitoBio/goquery"

	"aula/content"
	"aula/content/importer"
	"aula/internal/pgtest"
	"aula/markdown"
	"aula/models"
)

func importFS(t *testing.T, c *models.Content, fsys fstest.MapFS) importer.Report {
	t.Helper()
	rep, err := importer.Import(context.Background(), c, fsys)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return rep
}

func count(t *testing.T, db *pgtest.DB, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.Raw(query, args...).Scan(&n).Error; err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestImportDemoContent(t *testing.T) {
	db := pgtest.New(t)
	rep, err := importer.Import(context.Background(), models.NewContent(db.DB), content.FS)
	if err != nil || len(rep.Errors) > 0 {
		t.Fatalf("import demo content: %v %v", err, rep.Errors)
	}
	if rep.Lessons < 8 || rep.HelpArticles < 2 || rep.Unchanged != 0 {
		t.Errorf("report %+v: want ≥ 8 lessons, ≥ 2 help articles, nothing unchanged on a fresh database", rep)
	}
	if n := count(t, db, "SELECT count(*) FROM paths"); n < 2 {
		t.Errorf("%d paths, want at least 2", n)
	}
	for _, lang := range []string{"en", "es"} {
		if n := count(t, db, "SELECT count(DISTINCT p.id) FROM paths p WHERE p.language = ?", lang); n < 1 {
			t.Errorf("no %s path", lang)
		}
		if n := count(t, db, "SELECT count(*) FROM lessons WHERE language = ?", lang); n < 2 {
			t.Errorf("%d %s lessons, want several", n, lang)
		}
		if n := count(t, db, "SELECT count(*) FROM help_articles WHERE language = ?", lang); n < 3 {
			t.Errorf("%d %s help articles, want a handful", n, lang)
		}
		if n := count(t, db, "SELECT count(*) FROM help_chunks h JOIN help_articles a ON a.id = h.article_id WHERE a.language = ?", lang); n < 3 {
			t.Errorf("%d %s help chunks", n, lang)
		}
	}
	if n := count(t, db, "SELECT count(*) FROM lessons"); n < 8 {
		t.Errorf("%d lessons, want at least 8", n)
	}
	if n := count(t, db, "SELECT count(*) FROM lessons WHERE length(content_md) > 8000"); n < 1 {
		t.Error("no lesson longer than 8,000 characters")
	}
	if n := count(t, db, "SELECT count(*) FROM lessons l WHERE (SELECT count(*) FROM lesson_suggestions s WHERE s.lesson_id = l.id) <> 3"); n != 0 {
		t.Errorf("%d lessons without exactly three suggestions", n)
	}

	// Every lesson is chunked by H2: the chunks' anchors are the ids of the
	// rendered page's H2 headings, in order.
	var lessons []models.Lesson
	db.Order("id").Find(&lessons)
	for _, l := range lessons {
		var chunks []models.LessonChunk
		db.Where("lesson_id = ?", l.ID).Order("position").Find(&chunks)
		doc, _ := goquery.NewDocumentFromReader(strings.NewReader(markdown.Render(l.ContentMD)))
		var h2 []string
		doc.Find("h2").Each(func(_ int, s *goquery.Selection) { h2 = append(h2, s.AttrOr("id", "")) })
		var anchors []string
		for i, c := range chunks {
			if c.Position != i {
				t.Errorf("%s: chunk %d has position %d", l.ID, i, c.Position)
			}
			if strings.TrimSpace(c.Text) == "" || c.Heading == "" {
				t.Errorf("%s: chunk %d is empty or has no heading", l.ID, i)
			}
			if c.Anchor == "" {
				if i != 0 || c.Heading != l.Title {
					t.Errorf("%s: chunk %d (%q) has no anchor but is not the intro", l.ID, i, c.Heading)
				}
				continue
			}
			if len(anchors) == 0 || anchors[len(anchors)-1] != c.Anchor {
				anchors = append(anchors, c.Anchor)
			}
		}
		if len(h2) < 2 || !slices.Equal(anchors, h2) {
			t.Errorf("%s: chunk anchors %v, rendered H2 ids %v", l.ID, anchors, h2)
		}
		var tsv int64
		db.Raw("SELECT count(*) FROM lesson_chunks WHERE lesson_id = ? AND tsv_en <> ''::tsvector AND tsv_es <> ''::tsvector", l.ID).Scan(&tsv)
		if tsv != int64(len(chunks)) {
			t.Errorf("%s: %d of %d chunks have full-text vectors", l.ID, tsv, len(chunks))
		}
	}
}

// snapshot is every content row's id and version, to compare imports.
func snapshot(t *testing.T, db *pgtest.DB) []string {
	t.Helper()
	var rows []string
	for _, q := range []string{
		"SELECT 'path ' || id || ' ' || slug || ' ' || updated_at FROM paths",
		"SELECT 'module ' || id || ' ' || slug || ' ' || updated_at FROM modules",
		"SELECT 'lesson ' || id || ' ' || content_hash || ' ' || updated_at FROM lessons",
		"SELECT 'chunk ' || id || ' ' || lesson_id || ' ' || position || ' ' || hash FROM lesson_chunks",
		"SELECT 'suggestion ' || id || ' ' || lesson_id || ' ' || text || ' ' || updated_at FROM lesson_suggestions",
		"SELECT 'help ' || id || ' ' || content_hash || ' ' || updated_at FROM help_articles",
		"SELECT 'help chunk ' || id || ' ' || article_id || ' ' || hash FROM help_chunks",
	} {
		var part []string
		if err := db.Raw(q).Scan(&part).Error; err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		rows = append(rows, part...)
	}
	slices.Sort(rows)
	return rows
}

func TestImportTwiceChangesNothing(t *testing.T) {
	db := pgtest.New(t)
	c := models.NewContent(db.DB)
	first, err := importer.Import(context.Background(), c, content.FS)
	if err != nil || len(first.Errors) > 0 {
		t.Fatalf("first import: %v %v", err, first.Errors)
	}
	before := snapshot(t, db)
	second, err := importer.Import(context.Background(), c, content.FS)
	if err != nil || len(second.Errors) > 0 {
		t.Fatalf("second import: %v %v", err, second.Errors)
	}
	if second.Lessons != 0 || second.HelpArticles != 0 || second.Unchanged != first.Lessons+first.HelpArticles {
		t.Errorf("second import report %+v, want everything unchanged (%d files)", second, first.Lessons+first.HelpArticles)
	}
	after := snapshot(t, db)
	if !slices.Equal(before, after) {
		for _, r := range after {
			if !slices.Contains(before, r) {
				t.Errorf("new or changed row after re-import: %s", r)
			}
		}
		t.Errorf("re-import changed rows: %d before, %d after", len(before), len(after))
	}
}

// lessonFile is a small lesson in path "demo", module "m1".
func lessonFile(id, title, body string) string {
	return `---
kind: lesson
id: ` + id + `
path: demo
path_title: Demo path
path_position: 9
module: m1
module_title: Module one
module_position: 1
title: ` + title + `
position: 1
language: en
suggestions:
  - First question?
  - Second question?
  - Third question?
---
` + body
}

func TestImportUpdatesAChangedFileInPlace(t *testing.T) {
	db := pgtest.New(t)
	c := models.NewContent(db.DB)
	files := fstest.MapFS{
		"demo/a.md": {Data: []byte(lessonFile("lesson-a", "Lesson A", "Intro.\n\n## One\n\nFirst text.\n\n## Two\n\nSecond text.\n"))},
		"demo/b.md": {Data: []byte(lessonFile("lesson-b", "Lesson B", "Only an intro.\n"))},
	}
	if rep := importFS(t, c, files); len(rep.Errors) > 0 || rep.Lessons != 2 {
		t.Fatalf("first import: %+v", rep)
	}
	var pathID, moduleID int64
	db.Raw("SELECT id FROM paths WHERE slug = 'demo'").Scan(&pathID)
	db.Raw("SELECT id FROM modules WHERE slug = 'm1'").Scan(&moduleID)

	files["demo/a.md"] = &fstest.MapFile{Data: []byte(lessonFile("lesson-a", "Lesson A, revised",
		"Intro.\n\n## One\n\nFirst text, rewritten.\n\n## Three\n\nA new section.\n\n## Four\n\nAnother.\n"))}
	rep := importFS(t, c, files)
	if len(rep.Errors) > 0 || rep.Lessons != 1 || rep.Unchanged != 1 {
		t.Fatalf("second import report %+v, want 1 lesson updated and 1 unchanged", rep)
	}
	var l models.Lesson
	db.Where("id = 'lesson-a'").Take(&l)
	if l.Title != "Lesson A, revised" || !strings.Contains(l.ContentMD, "First text, rewritten.") || l.ModuleID != moduleID {
		t.Errorf("lesson after update: title %q, module %d (want %d), text %q", l.Title, l.ModuleID, moduleID, l.ContentMD)
	}
	var chunks []models.LessonChunk
	db.Where("lesson_id = 'lesson-a'").Order("position").Find(&chunks)
	var got []string
	for _, ch := range chunks {
		got = append(got, ch.Anchor+"="+ch.Text)
	}
	want := []string{"=Intro.", "one=First text, rewritten.", "three=A new section.", "four=Another."}
	if !slices.Equal(got, want) {
		t.Errorf("chunks after update %q, want %q", got, want)
	}
	for q, n := range map[string]int64{
		"SELECT count(*) FROM lessons":                                                  2,
		"SELECT count(*) FROM paths":                                                    1,
		"SELECT count(*) FROM modules":                                                  1,
		"SELECT count(*) FROM lesson_suggestions":                                       6,
		"SELECT count(*) FROM lesson_chunks WHERE text LIKE '%Second text%'":            0,
		"SELECT count(*) FROM paths WHERE slug = 'demo' AND id = " + fmt.Sprint(pathID): 1,
	} {
		if got := count(t, db, q); got != n {
			t.Errorf("%s = %d, want %d", q, got, n)
		}
	}
}

func TestImportReportsBadFilesAndImportsTheRest(t *testing.T) {
	db := pgtest.New(t)
	c := models.NewContent(db.DB)
	good := lessonFile("good-one", "Good one", "Some text.\n\n## Part\n\nMore.\n")
	files := fstest.MapFS{
		"a-good.md": {Data: []byte(good)},
		// Line 10: "a: b: c" is not YAML.
		"bad-yaml.md": {Data: []byte(strings.Replace(lessonFile("bad-yaml", "Bad YAML", "Text.\n"),
			"title: Bad YAML", "title: Bad: YAML", 1))},
		// Line 5: a key the importer does not know.
		"unknown-key.md": {Data: []byte(strings.Replace(lessonFile("unknown-key", "Unknown key", "Text.\n"),
			"path_title:", "colour: blue\npath_title:", 1))},
		"missing-id.md": {Data: []byte(strings.Replace(lessonFile("x", "Missing id", "Text.\n"), "id: x\n", "", 1))},
		// Line 12: a language aula does not have.
		"bad-language.md": {Data: []byte(strings.Replace(lessonFile("bad-language", "Bad language", "Text.\n"),
			"language: en", "language: fr", 1))},
		// Line 3: the id of a-good.md (imported first: files go in name order).
		"z-duplicate.md": {Data: []byte(lessonFile("good-one", "Duplicate", "Other text.\n"))},
		"help/ok.md":     {Data: []byte("---\nkind: help\nid: help-ok\ntitle: Help\nlanguage: es\n---\n\nAyuda.\n")},
		"notes.txt":      {Data: []byte("not content")},
	}
	rep := importFS(t, c, files)
	want := map[string]struct {
		line int
		msg  string
	}{
		"bad-yaml.md":     {10, ""},
		"unknown-key.md":  {5, "colour"},
		"missing-id.md":   {0, "id"},
		"bad-language.md": {12, "fr"},
		"z-duplicate.md":  {3, "a-good.md"},
	}
	got := map[string]importer.Error{}
	for _, e := range rep.Errors {
		got[e.File] = e
	}
	for file, w := range want {
		e, ok := got[file]
		if !ok {
			t.Errorf("%s: not reported (errors: %v)", file, rep.Errors)
			continue
		}
		if !strings.HasPrefix(e.Error(), file+":") {
			t.Errorf("%s: message %q does not start with the file name", file, e.Error())
		}
		if w.line > 0 && e.Line != w.line {
			t.Errorf("%s: reported at line %d, want %d (%s)", file, e.Line, w.line, e.Error())
		}
		if e.Line < 1 {
			t.Errorf("%s: no line in %s", file, e.Error())
		}
		if !strings.Contains(e.Msg, w.msg) {
			t.Errorf("%s: message %q does not mention %q", file, e.Msg, w.msg)
		}
	}
	if len(rep.Errors) != len(want) {
		t.Errorf("%d errors, want %d: %v", len(rep.Errors), len(want), rep.Errors)
	}
	if rep.Lessons != 1 || rep.HelpArticles != 1 {
		t.Errorf("report %+v: the good lesson and help article must still import", rep)
	}
	var l models.Lesson
	if err := db.Where("id = 'good-one'").Take(&l).Error; err != nil || l.Title != "Good one" || l.SourceFile != "a-good.md" {
		t.Errorf("good-one: %v, title %q from %q (the duplicate must not overwrite it)", err, l.Title, l.SourceFile)
	}
	if n := count(t, db, "SELECT count(*) FROM lessons"); n != 1 {
		t.Errorf("%d lessons, want only good-one", n)
	}
	if n := count(t, db, "SELECT count(*) FROM help_articles WHERE id = 'help-ok'"); n != 1 {
		t.Error("the good help article was not imported")
	}
}

// The duplicate-id error points at the id line wherever it is in the front matter.
func TestImportDuplicateIDLineIsTheIDLine(t *testing.T) {
	db := pgtest.New(t)
	c := models.NewContent(db.DB)
	moved := strings.Replace(lessonFile("shared-id", "Second", "Text.\n"), "id: shared-id\n", "", 1)
	moved = strings.Replace(moved, "language: en\n", "language: en\nid: shared-id\n", 1) // line 12
	rep := importFS(t, c, fstest.MapFS{
		"a.md": {Data: []byte(lessonFile("shared-id", "First", "Text.\n"))},
		"b.md": {Data: []byte(moved)},
	})
	if len(rep.Errors) != 1 || rep.Errors[0].File != "b.md" || rep.Errors[0].Line != 12 {
		t.Errorf("errors %v, want b.md:12 (the line of its id)", rep.Errors)
	}
}

func TestImportKeepsSuggestionsEditedInTheDatabase(t *testing.T) {
	db := pgtest.New(t)
	c := models.NewContent(db.DB)
	files := fstest.MapFS{"demo/a.md": {Data: []byte(lessonFile("lesson-a", "Lesson A", "Intro.\n\n## One\n\nText.\n"))}}
	importFS(t, c, files)
	if err := db.Exec("UPDATE lesson_suggestions SET text = 'Edited by an admin?' WHERE lesson_id = 'lesson-a' AND position = 2").Error; err != nil {
		t.Fatal(err)
	}
	// Re-import unchanged, then with the lesson's text and suggestions changed.
	importFS(t, c, files)
	files["demo/a.md"] = &fstest.MapFile{Data: []byte(strings.Replace(
		lessonFile("lesson-a", "Lesson A", "Intro, changed.\n\n## One\n\nText.\n"), "Second question?", "A new second question?", 1))}
	if rep := importFS(t, c, files); rep.Lessons != 1 {
		t.Fatalf("report %+v, want the lesson updated", rep)
	}
	var texts []string
	db.Raw("SELECT text FROM lesson_suggestions WHERE lesson_id = 'lesson-a' ORDER BY position").Scan(&texts)
	want := []string{"First question?", "Edited by an admin?", "Third question?"}
	if !slices.Equal(texts, want) {
		t.Errorf("suggestions after re-import %q, want %q", texts, want)
	}
}
