package models_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// A batch of lesson reads answers each lesson as its own two reads
// would (the lesson row, its sections in order), a lesson named twice
// gets its own copy, and a missing lesson is ErrNotFound; reads made at
// once through Get get the same.
func TestLessonMaterialsReadAsEachLessonAlone(t *testing.T) {
	db := pgtest.New(t)
	seedChunks(t, db)
	ctx := context.Background()
	content, chunks, materials := models.NewContent(db.DB), models.NewChunks(db.DB), models.NewLessonMaterials(db.DB)
	ids := []string{"vlans", "routing", "missing", "vlans-es", "vlans"}
	want := map[string]*models.LessonMaterial{}
	for _, id := range ids {
		l, err := content.Lesson(ctx, id)
		if errors.Is(err, models.ErrNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		cs, err := chunks.OfLesson(ctx, id)
		if err != nil || len(cs) < 2 {
			t.Fatalf("sections of %s: %d %v", id, len(cs), err)
		}
		want[id] = &models.LessonMaterial{Lesson: *l, Chunks: cs}
	}
	check := func(how string, got []*models.LessonMaterial, errs []error) {
		t.Helper()
		for i, id := range ids {
			switch w := want[id]; {
			case w == nil && !errors.Is(errs[i], models.ErrNotFound):
				t.Errorf("%s: %s: %v, want ErrNotFound", how, id, errs[i])
			case w != nil && (errs[i] != nil || !reflect.DeepEqual(got[i], w)):
				t.Errorf("%s: %s:\n got %+v %v\nwant %+v", how, id, got[i], errs[i], w)
			}
		}
	}
	got, errs := materials.ReadMaterials(ctx, ids)
	check("one batch", got, errs)
	if got[0] == got[4] || &got[0].Chunks[0] == &got[4].Chunks[0] {
		t.Error("a lesson named twice shares its answer")
	}
	got, errs = make([]*models.LessonMaterial, len(ids)), make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() { got[i], errs[i] = materials.Get(ctx, id) })
	}
	wg.Wait()
	check("at once", got, errs)
}
