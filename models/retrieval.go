package models

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"gorm.io/gorm"
)

// Chunk is a lesson or help section found for a question.
type Chunk struct {
	Kind     string  `json:"kind"`               // "lesson" or "help"
	ChunkID  int64   `json:"chunkId"`            // lesson_chunks.id or help_chunks.id
	LessonID string  `json:"lessonId,omitempty"` // lesson id, or help article id for help chunks
	Title    string  `json:"title,omitempty"`    // lesson or article title
	Heading  string  `json:"heading"`            // section heading
	Anchor   string  `json:"anchor"`             // fragment id of the section in the lesson page
	Text     string  `json:"-"`                  // the chunk's text
	Score    float64 `json:"score"`              // retrieval rank
	Hash     string  `json:"hash"`               // sha256 of the chunk text when retrieved
}

// ChunkSearch is one ranked full-text search over lesson or help chunks.
type ChunkSearch struct {
	Help     bool   // help articles instead of lessons
	Lang     string // the question's language: material in it ranks first
	OnlyLang bool   // only material in Lang (help: articles exist in both languages)
	Match    string // tsquery text a chunk must match, in either configuration
	// Fallback, when set, is matched instead whenever Match finds fewer
	// than Enough chunks, in the same statement (one round trip).
	Fallback string
	Enough   int
	RankBy   string // tsquery text the matches are ranked against
	LessonID string // only this lesson ("" any)
	ModuleID int64  // only this lesson module (0 any)
	Limit    int
}

// OtherLangWeight discounts material in the other language: a student
// asking in Spanish gets the Spanish lesson's section before the English
// one on the same topic, but still gets the English one when it is all
// there is.
const OtherLangWeight = 0.6

// A chunk matches through either configuration (a Spanish question may
// name an English term) but is ranked in its own language's, which stems
// it correctly and reads one vector instead of two. The scope filters are
// constant in each execution, so the planner drops the ones not asked for.
const lessonChunksSQL = `SELECT 'lesson' AS kind, c.id AS chunk_id, c.lesson_id, l.title, c.heading, c.anchor, c.text, c.hash,
	CASE WHEN l.language = 'es' THEN ts_rank(c.tsv_es, q.res) ELSE ts_rank(c.tsv_en, q.ren) END
	    * CASE WHEN l.language = @lang THEN 1 ELSE CAST(@weight AS float8) END AS score
	FROM lesson_chunks c JOIN lessons l ON l.id = c.lesson_id,
	     (SELECT to_tsquery('english', @match) AS en, to_tsquery('spanish', @match) AS es,
	             to_tsquery('english', @rank) AS ren, to_tsquery('spanish', @rank) AS res) q
	WHERE (c.tsv_en @@ q.en OR c.tsv_es @@ q.es)
	  AND (@lesson = '' OR c.lesson_id = @lesson) AND (@module = 0 OR l.module_id = @module)
	ORDER BY score DESC, c.id LIMIT @limit`

const helpChunksSQL = `SELECT 'help' AS kind, c.id AS chunk_id, c.article_id AS lesson_id, a.title, c.heading, c.anchor, c.text, c.hash,
	CASE WHEN a.language = 'es' THEN ts_rank(c.tsv_es, q.res) ELSE ts_rank(c.tsv_en, q.ren) END
	    * CASE WHEN a.language = @lang THEN 1 ELSE CAST(@weight AS float8) END AS score
	FROM help_chunks c JOIN help_articles a ON a.id = c.article_id,
	     (SELECT to_tsquery('english', @match) AS en, to_tsquery('spanish', @match) AS es,
	             to_tsquery('english', @rank) AS ren, to_tsquery('spanish', @rank) AS res) q
	WHERE (c.tsv_en @@ q.en OR c.tsv_es @@ q.es) AND (NOT @only OR a.language = @lang)
	ORDER BY score DESC, c.id LIMIT @limit`

// Chunks finds the lesson and help sections a question draws on.
type Chunks struct{ db *gorm.DB }

// NewChunks returns the store on db.
func NewChunks(db *gorm.DB) *Chunks { return &Chunks{db: db} }

// Search returns up to q.Limit chunks matching q.Match, best first.
func (s *Chunks) Search(ctx context.Context, q ChunkSearch) ([]Chunk, error) {
	query := lessonChunksSQL
	args := []any{sql.Named("lang", q.Lang), sql.Named("weight", OtherLangWeight), sql.Named("match", q.Match),
		sql.Named("rank", q.RankBy), sql.Named("limit", q.Limit)}
	if q.Help {
		query = helpChunksSQL
		args = append(args, sql.Named("only", q.OnlyLang))
	} else {
		args = append(args, sql.Named("lesson", q.LessonID), sql.Named("module", q.ModuleID))
	}
	if q.Fallback != "" {
		query = withFallback(query)
		args = append(args, sql.Named("fallback", q.Fallback), sql.Named("enough", q.Enough))
	}
	var rows []Chunk
	err := conn(ctx, s.db).Raw(query, args...).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("retrieve: %w", err)
	}
	return rows, nil
}

// withFallback runs query, and the same query matching @fallback when
// the first finds fewer than @enough rows, as one statement: the first is
// read once, and the second is inlined behind a one-time filter, so it is
// executed only when needed (a class asking at once queues every round
// trip on the connection pool).
func withFallback(query string) string {
	return `WITH first AS (` + query + `), second AS (` + strings.ReplaceAll(query, "@match", "@fallback") + `)
	SELECT * FROM first WHERE (SELECT count(*) FROM first) >= @enough
	UNION ALL
	SELECT * FROM second WHERE (SELECT count(*) FROM first) < @enough
	ORDER BY score DESC, chunk_id`
}

// OfLesson returns every chunk of a lesson in order, for the outline
// and for filling the lesson budget.
func (s *Chunks) OfLesson(ctx context.Context, lessonID string) ([]Chunk, error) {
	var rows []Chunk
	err := conn(ctx, s.db).Raw(`SELECT 'lesson' AS kind, c.id AS chunk_id, c.lesson_id, l.title, c.heading, c.anchor, c.text, c.hash
		FROM lesson_chunks c JOIN lessons l ON l.id = c.lesson_id WHERE c.lesson_id = ? ORDER BY c.position`, lessonID).
		Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("lesson chunks: %w", err)
	}
	return rows, nil
}
