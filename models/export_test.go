package models

import (
	"context"

	"gorm.io/gorm"
)

// SearchAlone runs one lesson search in its own statement, never batched
// (tests compare the batch's answers with it).
func (s *Chunks) SearchAlone(ctx context.Context, q ChunkSearch) ([]Chunk, error) {
	return s.search(s.db.WithContext(ctx), q)
}

// SearchMany answers a batch of searches as the batcher would.
func (s *Chunks) SearchMany(ctx context.Context, qs []ChunkSearch) ([][]Chunk, []error) {
	return s.searchMany(ctx, qs)
}

// ReadMaterials answers a batch of lesson reads as the batcher would.
// A lesson that does not exist is ErrNotFound, as Get answers it.
func (s *LessonMaterials) ReadMaterials(ctx context.Context, ids []string) ([]*LessonMaterial, []error) {
	ms, err := readMaterials(s.db.WithContext(ctx), ids)
	if err != nil {
		return eachErr[*LessonMaterial](len(ids), err)
	}
	errs := make([]error, len(ids))
	for i, m := range ms {
		if m == nil {
			errs[i] = ErrNotFound
		}
	}
	return ms, errs
}

// RecordTurnBatch runs asks as one batch of BeginTurn, so a test knows
// they share one statement (the batcher groups only the calls that
// arrive while its workers are busy).
var RecordTurnBatch = (*Messages).recordTurnBatch

// Queued is how many callers are running or waiting in h.
func (h *Hashing) Queued() int { return len(h.queue) }

// ExplainSearch is EXPLAIN ANALYZE of q's search statement, run alone.
func (s *Chunks) ExplainSearch(ctx context.Context, q ChunkSearch) ([]string, error) {
	query, args := searchStatement(q)
	var plan []string
	err := s.db.WithContext(ctx).Raw(`EXPLAIN (ANALYZE, COSTS OFF) `+query, args...).Scan(&plan).Error
	return plan, err
}

// ReadVersionCounts runs the batch statement of VersionCounts for one
// user's answers: out[i] is how many versions of ids[i] are kept.
func ReadVersionCounts(db *gorm.DB, userID string, ids []string) ([]int, error) {
	keys := make([]versionKey, len(ids))
	for i, id := range ids {
		keys[i] = versionKey{UserID: userID, MessageID: id}
	}
	return readVersionCounts(db, keys)
}
