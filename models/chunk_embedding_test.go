package models_test

import (
	"context"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// The migration's enable_chunk_embeddings() creates the vector table
// exactly when the server offers pgvector, and answers so; run again it
// changes nothing.
func TestEnableChunkEmbeddingsFollowsTheServer(t *testing.T) {
	db := pgtest.New(t)
	var available, table bool
	if err := db.Raw(`SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Row().Scan(&available); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		ok, err := models.NewChunkVectors(db.DB).Enable(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Raw(`SELECT to_regclass('chunk_embeddings') IS NOT NULL`).Row().Scan(&table); err != nil {
			t.Fatal(err)
		}
		if ok != available || table != available {
			t.Fatalf("pgvector available %v: enable said %v, table there %v", available, ok, table)
		}
	}
	t.Logf("pgvector available: %v (the vector table follows it)", available)
}
