package models_test

import (
	"context"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// TestInsertLessons: the retrieval eval's scale set is published lessons
// of five sections each, a third of them Spanish, that full-text search
// finds by their topic's words.
func TestInsertLessons(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	if err := models.NewScaleData(db.DB).InsertLessons(ctx, 30); err != nil {
		t.Fatal(err)
	}
	var lessons, spanish, sections int64
	if err := db.Raw(`SELECT (SELECT count(*) FROM lessons WHERE status = 'published'),
		(SELECT count(*) FROM lessons WHERE language = 'es'), (SELECT count(*) FROM lesson_chunks)`).
		Row().Scan(&lessons, &spanish, &sections); err != nil {
		t.Fatal(err)
	}
	if lessons != 30 || spanish != 10 || sections != 150 {
		t.Fatalf("%d lessons (%d Spanish), %d sections; want 30 (10), 150", lessons, spanish, sections)
	}
	found, err := models.NewChunks(db.DB).Search(ctx, models.ChunkSearch{Lang: "en", Match: "goroutine", RankBy: "goroutine", Limit: 3})
	if err != nil || len(found) != 3 {
		t.Fatalf("search goroutine: %v, %d found", err, len(found))
	}
}
