package models

import "context"

// SearchAlone runs one lesson search in its own statement, never batched
// (tests compare the batch's answers with it).
func (s *Chunks) SearchAlone(ctx context.Context, q ChunkSearch) ([]Chunk, error) {
	return s.search(s.db.WithContext(ctx), q)
}

// SearchMany answers a batch of searches as the batcher would.
func (s *Chunks) SearchMany(ctx context.Context, qs []ChunkSearch) ([][]Chunk, []error) {
	return s.searchMany(s.db.WithContext(ctx), qs)
}

// ReadMaterials answers a batch of lesson reads as the batcher would.
func (s *LessonMaterials) ReadMaterials(ctx context.Context, ids []string) ([]*LessonMaterial, []error) {
	return s.read(s.db.WithContext(ctx), ids)
}

// RecordTurnBatch runs asks as one batch of BeginTurn, so a test knows
// they share one statement (the batcher groups only the calls that
// arrive while its workers are busy).
var RecordTurnBatch = (*Messages).recordTurnBatch

// CreateConversationBatch inserts checked conversations as one batch of
// CreateWithContext.
var CreateConversationBatch = (*Conversations).createBatch
