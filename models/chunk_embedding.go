package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"gorm.io/gorm"
)

// ChunkVectors stores the sections' embeddings in chunk_embeddings, a
// pgvector table that exists only when the server has the extension
// (migration 00107): without it retrieval ranks by words alone.
type ChunkVectors struct{ db *gorm.DB }

// NewChunkVectors returns the store on db.
func NewChunkVectors(db *gorm.DB) *ChunkVectors { return &ChunkVectors{db: db} }

// Enable creates the extension and the table when the server offers
// pgvector and they are not there yet (pgvector installed after the
// migration ran), and reports whether vectors can be stored.
func (s *ChunkVectors) Enable(ctx context.Context) (bool, error) {
	var ok bool
	if err := conn(ctx, s.db).Raw(`SELECT enable_chunk_embeddings()`).Row().Scan(&ok); err != nil {
		return false, fmt.Errorf("enable chunk embeddings: %w", err)
	}
	return ok, nil
}

// SectionText is one distinct text to embed: a section's heading and
// text, keyed by the heading and the text's hash.
type SectionText struct {
	TextHash string
	Heading  string
	Text     string
}

// unembeddedSQL lists the published lesson and help sections whose heading
// and text have no vector from @model yet (a text two sections share is
// embedded once).
const unembeddedSQL = `SELECT DISTINCT ON (c.hash, c.heading) c.hash AS text_hash, c.heading, c.text
	FROM (SELECT hash, heading, text FROM lesson_chunks UNION ALL SELECT hash, heading, text FROM help_chunks) c
	WHERE NOT EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.model = @model AND e.text_hash = c.hash AND e.heading = c.heading)
	ORDER BY c.hash, c.heading LIMIT @limit`

// Pending returns up to limit section texts that model has not embedded.
func (s *ChunkVectors) Pending(ctx context.Context, model string, limit int) ([]SectionText, error) {
	var out []SectionText
	err := conn(ctx, s.db).Raw(unembeddedSQL, sql.Named("model", model), sql.Named("limit", limit)).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("pending embeddings: %w", err)
	}
	return out, nil
}

// Save stores vecs[i] as model's embedding of texts[i]; a vector stored
// meanwhile (another process) is kept.
func (s *ChunkVectors) Save(ctx context.Context, model string, texts []SectionText, vecs [][]float32) error {
	if len(texts) != len(vecs) {
		return fmt.Errorf("save embeddings: %d texts, %d vectors", len(texts), len(vecs))
	}
	type row struct {
		H  string `json:"h"`
		Hd string `json:"hd"`
		V  string `json:"v"`
	}
	rows := make([]row, len(texts))
	for i, t := range texts {
		rows[i] = row{t.TextHash, t.Heading, VectorLiteral(vecs[i])}
	}
	arg, err := json.Marshal(rows)
	if err != nil {
		return fmt.Errorf("save embeddings: %w", err)
	}
	err = conn(ctx, s.db).Exec(`INSERT INTO chunk_embeddings (model, text_hash, heading, embedding)
		SELECT @model, r.h, r.hd, CAST(r.v AS vector) FROM json_to_recordset(CAST(@rows AS json)) AS r(h text, hd text, v text)
		ON CONFLICT DO NOTHING`, sql.Named("model", model), sql.Named("rows", string(arg))).Error
	if err != nil {
		return fmt.Errorf("save embeddings: %w", err)
	}
	return nil
}

// Prune deletes the vectors no section needs any more: another model's
// (the route changed) and those of texts no published section has.
func (s *ChunkVectors) Prune(ctx context.Context, model string) (int64, error) {
	res := conn(ctx, s.db).Exec(`DELETE FROM chunk_embeddings e WHERE e.model <> @model
		OR (NOT EXISTS (SELECT 1 FROM lesson_chunks c WHERE c.hash = e.text_hash AND c.heading = e.heading)
		    AND NOT EXISTS (SELECT 1 FROM help_chunks c WHERE c.hash = e.text_hash AND c.heading = e.heading))`,
		sql.Named("model", model))
	if res.Error != nil {
		return 0, fmt.Errorf("prune embeddings: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// TryEmbedLock takes, for the transaction ctx carries, the lock that
// lets one process at a time embed (several processes share a
// database); false when another holds it.
func (s *ChunkVectors) TryEmbedLock(ctx context.Context) (bool, error) {
	var ok bool
	if err := conn(ctx, s.db).Raw(`SELECT pg_try_advisory_xact_lock(7215114108)`).Row().Scan(&ok); err != nil {
		return false, fmt.Errorf("embed lock: %w", err)
	}
	return ok, nil
}

// VectorSearch is one nearest-sections search, in the scopes of
// ChunkSearch.
type VectorSearch struct {
	Model    string    // the model that embedded the sections and the question
	Vec      []float32 // the question's embedding
	Help     bool      // help articles instead of lessons
	Lang     string    // with OnlyLang: only material in this language
	OnlyLang bool
	LessonID string // only this lesson ("" any)
	ModuleID int64  // only this module (0 any)
	Limit    int
}

// The sections nearest the question by cosine distance, among those the
// model has embedded; score is the cosine similarity. The scan is exact
// (no approximate index: vectors of any dimension share the table).
const nearestLessonSQL = `SELECT 'lesson' AS kind, c.id AS chunk_id, c.lesson_id, l.title, c.heading, c.anchor, c.text, c.hash,
	1 - (e.embedding <=> CAST(@vec AS vector)) AS score
	FROM lesson_chunks c JOIN lessons l ON l.id = c.lesson_id
	JOIN chunk_embeddings e ON e.model = @model AND e.text_hash = c.hash AND e.heading = c.heading
	WHERE vector_dims(e.embedding) = @dims AND (@lesson = '' OR c.lesson_id = @lesson) AND (@module = 0 OR l.module_id = @module)
	ORDER BY e.embedding <=> CAST(@vec AS vector), c.id LIMIT @limit`

const nearestHelpSQL = `SELECT 'help' AS kind, c.id AS chunk_id, c.article_id AS lesson_id, a.title, c.heading, c.anchor, c.text, c.hash,
	1 - (e.embedding <=> CAST(@vec AS vector)) AS score
	FROM help_chunks c JOIN help_articles a ON a.id = c.article_id
	JOIN chunk_embeddings e ON e.model = @model AND e.text_hash = c.hash AND e.heading = c.heading
	WHERE vector_dims(e.embedding) = @dims AND (NOT @only OR a.language = @lang)
	ORDER BY e.embedding <=> CAST(@vec AS vector), c.id LIMIT @limit`

// Nearest returns up to q.Limit sections nearest q.Vec, nearest first.
func (s *ChunkVectors) Nearest(ctx context.Context, q VectorSearch) ([]Chunk, error) {
	query := nearestLessonSQL
	args := []any{sql.Named("vec", VectorLiteral(q.Vec)), sql.Named("model", q.Model), sql.Named("dims", len(q.Vec)),
		sql.Named("limit", q.Limit)}
	if q.Help {
		query = nearestHelpSQL
		args = append(args, sql.Named("only", q.OnlyLang), sql.Named("lang", q.Lang))
	} else {
		args = append(args, sql.Named("lesson", q.LessonID), sql.Named("module", q.ModuleID))
	}
	var rows []Chunk
	if err := conn(ctx, s.db).Raw(query, args...).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("nearest sections: %w", err)
	}
	return rows, nil
}

// VectorLiteral is v in pgvector's text form, [1,2,3].
func VectorLiteral(v []float32) string {
	var b strings.Builder
	b.Grow(len(v) * 10)
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}
