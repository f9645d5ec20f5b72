package models_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// A change of what students read, once committed, makes the retrieval
// check a word it remembers as not covered again (Content.Changed wired
// to Chunks.ContentChanged, as the web front does): a word published a
// moment ago is covered at once, not after the memory expires. A refused
// change calls nothing.
func TestContentChangesReachTheCheckedWords(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	c, chunks := models.NewContent(db.DB), models.NewChunks(db.DB)
	calls := 0
	c.Changed = func() { calls++; chunks.ContentChanged() }
	importedLesson(t, c, "Intro.\n\n## Tags\n\nA tag.\n")
	who := models.Actor{Email: "a@x"}
	unknown := func() []string {
		t.Helper()
		out, err := chunks.Unknown(ctx, false, []string{"'zorblax'"})
		if err != nil {
			t.Fatal(err)
		}
		return termsOf(out)
	}
	save := func(body string) int {
		t.Helper()
		l, err := c.Lesson(ctx, "vl")
		if err != nil {
			t.Fatal(err)
		}
		v, err := c.SaveVersion(ctx, "vl", l.Version, models.LessonDraft{Title: "VLANs", Language: "en", ContentMD: body}, models.VersionSave, "")
		if err != nil {
			t.Fatal(err)
		}
		return v.Number
	}

	steps := []struct {
		name    string
		change  func() error
		unknown bool // whether zorblax is then unknown
		calls   int  // Changed calls so far
	}{
		{"a draft naming it", func() error { save("Intro.\n\n## Tags\n\nA zorblax tag.\n"); return nil }, true, 0},
		{"that draft published", func() error { return c.Publish(ctx, "vl", 2, who) }, false, 1},
		{"unpublished", func() error { return c.Unpublish(ctx, "vl", who) }, true, 2},
		{"unpublished again: refused", func() error {
			if err := c.Unpublish(ctx, "vl", who); !errors.Is(err, models.ErrNotPublished) {
				t.Fatalf("second unpublish: %v", err)
			}
			return nil
		}, true, 2},
		{"published again", func() error { return c.Publish(ctx, "vl", 2, who) }, false, 3},
		{"version 1 restored", func() error { _, err := c.Restore(ctx, "vl", 1, 2, who); return err }, true, 4},
		{"version 2 restored", func() error { _, err := c.Restore(ctx, "vl", 2, 3, who); return err }, false, 5},
		{"the lesson deleted", func() error { return c.DeleteLesson(ctx, who, "vl") }, true, 6},
	}
	if got := unknown(); !slices.Equal(got, []string{"'zorblax'"}) {
		t.Fatalf("before: unknown = %v, want zorblax", got)
	}
	for _, st := range steps {
		if err := st.change(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := unknown(); (len(got) == 1) != st.unknown || calls != st.calls {
			t.Errorf("after %s: unknown = %v, Changed called %d times; want unknown %v, %d calls", st.name, got, calls, st.unknown, st.calls)
		}
	}
}
