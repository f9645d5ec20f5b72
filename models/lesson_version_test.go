package models_test

import (
	"context"
	"errors"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// importedLesson imports lesson "vl" with two sections, as a file would.
func importedLesson(t *testing.T, c *models.Content, body string) {
	t.Helper()
	_, err := c.SaveLesson(context.Background(), models.LessonImport{
		Lesson: models.Lesson{ID: "vl", Title: "VLANs", Language: "en", ContentMD: body,
			ContentHash: models.ContentHash("VLANs", "", body), SourceFile: "vl.md"},
		Path:        models.Path{Slug: "net", Title: "Networking", Language: "en"},
		Module:      models.Module{Slug: "sw", Title: "Switching"},
		Suggestions: []string{"What is a VLAN?"},
		Chunks:      models.LessonSections("VLANs", body),
	})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
}

// sectionsOf returns the published sections of lesson vl by anchor.
func sectionsOf(t *testing.T, db *pgtest.DB) map[string]models.LessonChunk {
	t.Helper()
	var rows []models.LessonChunk
	if err := db.DB.Where("lesson_id = 'vl'").Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	out := map[string]models.LessonChunk{}
	for _, r := range rows {
		out[r.Anchor] = r
	}
	return out
}

func TestLessonVersionsPublishAndConflict(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	c := models.NewContent(db.DB)
	importedLesson(t, c, "Intro.\n\n## Tags\n\nA tag.\n\n## Trunks\n\nA trunk.\n")
	before := sectionsOf(t, db)
	l, err := c.Lesson(ctx, "vl")
	if err != nil || l.Version != 1 || l.PublishedVersion == nil || *l.PublishedVersion != 1 {
		t.Fatalf("imported lesson = %+v, %v; want version 1 published", l, err)
	}

	edit := models.LessonDraft{Title: "VLANs", Language: "en", ContentMD: "Intro.\n\n## Tags\n\nA tag, edited.\n\n## Trunks\n\nA trunk.\n"}
	v, err := c.SaveVersion(ctx, "vl", 1, edit, models.VersionSave, "")
	if err != nil || v.Number != 2 {
		t.Fatalf("save = %+v, %v; want version 2", v, err)
	}
	if got, _ := c.Lesson(ctx, "vl"); got.ContentMD == edit.ContentMD {
		t.Fatal("a draft changed what students see")
	}
	// A second author who opened version 1 saves: refused, with the newest text.
	_, err = c.SaveVersion(ctx, "vl", 1, models.LessonDraft{Title: "X", Language: "en", ContentMD: "mine"}, models.VersionSave, "")
	conflict, ok := errors.AsType[*models.EditConflictError](err)
	if !ok || conflict.Current.ContentMD != edit.ContentMD {
		t.Fatalf("second save: %v; want a conflict showing version 2", err)
	}

	if err := c.Publish(ctx, "vl", 2, models.Actor{Email: "a@x"}); err != nil {
		t.Fatal(err)
	}
	after := sectionsOf(t, db)
	if after["tags"].Hash == before["tags"].Hash || !after["tags"].Since.After(before["tags"].Since) {
		t.Errorf("the edited section kept its hash or since: %+v", after["tags"])
	}
	if after["trunks"].Hash != before["trunks"].Hash || !after["trunks"].Since.Equal(before["trunks"].Since) {
		t.Errorf("the unchanged section changed: before %+v after %+v", before["trunks"], after["trunks"])
	}

	if err := c.Unpublish(ctx, "vl", models.Actor{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Lesson(ctx, "vl"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("an unpublished lesson is still shown: %v", err)
	}
	if paths, _ := c.Catalog(ctx); len(paths) != 0 {
		t.Errorf("the catalog shows a path with no published lesson: %+v", paths)
	}
	if n := len(sectionsOf(t, db)); n != 0 {
		t.Errorf("an unpublished lesson keeps %d sections retrieval finds", n)
	}

	r, err := c.Restore(ctx, "vl", 1, 2, models.Actor{})
	if err != nil || r.Number != 3 || r.Kind != models.VersionRestore {
		t.Fatalf("restore = %+v, %v", r, err)
	}
	if err := c.Publish(ctx, "vl", 3, models.Actor{}); err != nil {
		t.Fatal(err)
	}
	got, err := c.Lesson(ctx, "vl")
	if err != nil || got.ContentMD != "Intro.\n\n## Tags\n\nA tag.\n\n## Trunks\n\nA trunk.\n" {
		t.Fatalf("after restoring version 1: %+v, %v", got, err)
	}
	var actions []string
	db.DB.Model(&models.ContentEvent{}).Order("id").Pluck("action", &actions)
	if want := []string{"publish", "unpublish", "restore", "publish"}; len(actions) != len(want) {
		t.Errorf("audit = %v, want %v", actions, want)
	}
	vs, err := c.Versions(ctx, "vl", 0, 2)
	if err != nil || len(vs) != 2 || vs[0].Number != 3 {
		t.Errorf("versions page = %+v, %v", vs, err)
	}
}
