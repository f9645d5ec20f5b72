package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// ErrScaleExists means the scale data set was generated already.
var ErrScaleExists = errors.New("scale data already present (users scale-N@aula.test exist)")

// ErrNoLessons means the content must be imported before the scale data
// set: its lesson threads point at lessons.
var ErrNoLessons = errors.New("no lessons: import the demo content first (aula seed)")

// ScaleData holds the statements of the load-test data set: users
// scale-N@aula.test, their threads and messages, all set-based (INSERT …
// SELECT generate_series), no row built in Go. Rows derive from hashes of
// their numbers, so two runs give the same data.
type ScaleData struct{ db *gorm.DB }

// NewScaleData returns the scale data store.
func NewScaleData(db *gorm.DB) *ScaleData { return &ScaleData{db: db} }

// ScaleSize is how much to generate, and as of when.
type ScaleSize struct {
	Users, Conversations, MessagesPerConversation int64
	PasswordHash                                  string // of every generated user
	Now                                           time.Time
}

// scaleStep is one set-based statement of the data set.
type scaleStep struct {
	what string
	sql  string
	args []any
}

// Insert writes the data set in one transaction: ErrScaleExists when it is
// there already, ErrNoLessons before the content is imported. Threads are
// spread over the 180 days before d.Now, with ratings, citations, failures
// and latencies.
func (s *ScaleData) Insert(ctx context.Context, d ScaleSize) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		var lessons, existing int64
		if err := tx.Raw(`SELECT (SELECT count(*) FROM lessons), (SELECT count(*) FROM users WHERE email = 'scale-1@aula.test')`).
			Row().Scan(&lessons, &existing); err != nil {
			return fmt.Errorf("check database: %w", err)
		}
		if existing > 0 {
			return ErrScaleExists
		}
		if lessons == 0 {
			return ErrNoLessons
		}
		for _, st := range scaleSteps(d, lessons) {
			if err := tx.Exec(st.sql, st.args...).Error; err != nil {
				return fmt.Errorf("generate %s: %w", st.what, err)
			}
		}
		return nil
	})
}

// Vacuum sets the visibility map after a bulk load, so the dashboards'
// index-only scans do not visit the heap, and refreshes the statistics.
func (s *ScaleData) Vacuum(ctx context.Context) error {
	if err := conn(ctx, s.db).Exec(`VACUUM (ANALYZE) users, conversations, messages, plan_usage,
		section_check_totals, check_question_totals`).Error; err != nil {
		return fmt.Errorf("vacuum analyze: %w", err)
	}
	return nil
}

// scaleSteps are the data set's statements, in dependency order.
func scaleSteps(d ScaleSize, lessons int64) []scaleStep {
	return []scaleStep{
		{"users", scaleUsersSQL, []any{d.PasswordHash, d.Now, d.Now, d.Users}},
		{"conversations", scaleConversationsSQL, []any{d.Users, d.Conversations, d.Now, lessons}},
		{"messages", scaleMessagesSQL, []any{d.MessagesPerConversation}},
		{"plan usage", scalePlanUsageSQL, []any{Period(d.Now), Period(d.Now)}},
		{"check totals", scaleCheckTotalsSQL, []any{d.Users}},
		{"check question totals", scaleQuestionTotalsSQL, nil},
	}
}

// scaleUsersSQL inserts the users, half on the free plan, the rest spread over the paid ones.
const scaleUsersSQL = `INSERT INTO users (id, email, password_hash, name, plan, created_at, updated_at)
				SELECT md5('scale-u' || i)::uuid, 'scale-' || i || '@aula.test', ?, 'Scale Student ' || i,
					(ARRAY['FREE','FREE','FREE','FREE','FREE','STARTER','STARTER','PRO','ELITE','CORPORATE_USER'])[1 + i % 10],
					?::timestamptz - interval '200 days', ?::timestamptz - interval '200 days'
				FROM generate_series(1, ?) AS i`

// scaleConversationsSQL inserts the threads, 7 in 10 about a lesson, spread over 180 days.
const scaleConversationsSQL = `WITH l AS (SELECT row_number() OVER (ORDER BY id) - 1 AS k, id, module_id FROM lessons)
				INSERT INTO conversations (id, user_id, title, mode, lesson_id, module_id, next_seq, created_at, last_activity_at)
				SELECT md5('scale-c' || c)::uuid, md5('scale-u' || (1 + c % ?))::uuid, 'Scale question ' || c,
					CASE WHEN c % 10 < 7 THEN 'lesson' WHEN c % 10 < 9 THEN 'tutor' ELSE 'help' END,
					CASE WHEN c % 10 < 7 THEN l.id END, CASE WHEN c % 10 < 7 THEN l.module_id END,
					10, t.ts, t.ts + interval '9 minutes'
				FROM generate_series(1, ?) AS c
				CROSS JOIN LATERAL (SELECT ?::timestamptz - ((c::bigint * 7919) % (180 * 24 * 60)) * interval '1 minute' - interval '10 minutes' AS ts) t
				JOIN l ON l.k = c % ?`

// scaleMessagesSQL inserts the turns of every thread, with ratings, citations, failures and latencies.
const scaleMessagesSQL = `INSERT INTO messages (conversation_id, user_id, seq, role, content, status, rating, rating_reason,
					rating_comment, rated_at, provider, model, latency_ms, ttft_ms, tokens_in, tokens_out, error_code,
					metadata, created_at, completed_at)
				SELECT c.id, c.user_id, s.seq, CASE WHEN s.seq % 2 = 0 THEN 'user' ELSE 'assistant' END,
					CASE WHEN s.seq % 2 = 0 THEN 'Scale question, part (' || s.seq || ')' ELSE 'An answer about it.' END,
					CASE WHEN s.seq % 2 = 0 OR r.v >= 50 THEN 'complete' WHEN r.v < 30 THEN 'failed' ELSE 'cancelled' END,
					CASE WHEN s.seq % 2 = 1 AND r.v >= 50 AND r.v % 5 = 0 THEN
						CASE WHEN (r.v / 5) % 10 < 7 THEN 'up' ELSE 'down' END END,
					CASE WHEN s.seq % 2 = 1 AND r.v >= 50 AND r.v % 5 = 0 AND (r.v / 5) % 10 >= 7 THEN
						(ARRAY['lesson_unclear','answer_wrong','not_asked','other',NULL])[1 + r.v % 5] END,
					CASE WHEN s.seq % 2 = 1 AND r.v >= 50 AND r.v % 5 = 0 AND (r.v / 5) % 10 >= 7 AND r.v % 2 = 0
						THEN 'Comment ' || r.v ELSE '' END,
					CASE WHEN s.seq % 2 = 1 AND r.v >= 50 AND r.v % 5 = 0 THEN c.created_at + (s.seq + 1) * interval '1 minute' END,
					CASE WHEN s.seq % 2 = 0 THEN '' ELSE p.provider END,
					CASE WHEN s.seq % 2 = 0 THEN '' ELSE p.model END,
					CASE WHEN s.seq % 2 = 1 AND r.v >= 30 THEN 600 + r.v * 2 + (r.v * 37) % 4000 END,
					CASE WHEN s.seq % 2 = 1 AND r.v >= 30 THEN 100 + r.v * 2 END,
					CASE WHEN s.seq % 2 = 1 THEN 300 + r.v END,
					CASE WHEN s.seq % 2 = 1 AND r.v >= 30 THEN 40 + r.v % 200 END,
					CASE WHEN s.seq % 2 = 1 AND r.v < 30 THEN (ARRAY['timeout','upstream_error','rate_limited'])[1 + r.v % 3] ELSE '' END,
					CASE WHEN s.seq % 2 = 1 AND ch.id IS NOT NULL THEN jsonb_build_object('citations', jsonb_build_array(
						jsonb_build_object('kind', 'lesson', 'chunkId', ch.id, 'lessonId', c.lesson_id,
							'heading', ch.heading, 'anchor', ch.anchor, 'hash', ch.hash)))
						ELSE '{}'::jsonb END,
					c.created_at + s.seq * interval '1 minute',
					c.created_at + s.seq * interval '1 minute' + interval '20 seconds'
				FROM conversations c
				CROSS JOIN generate_series(0, ? - 1) AS s(seq)
				CROSS JOIN LATERAL (SELECT abs(hashtext(c.id::text || s.seq)) % 1000 AS v) r
				CROSS JOIN LATERAL (SELECT (ARRAY['offline','openai','anthropic'])[1 + abs(hashtext(c.id::text)) % 3] AS provider,
					(ARRAY['offline-tutor','gpt-4o-mini','claude-sonnet-4-5'])[1 + abs(hashtext(c.id::text)) % 3] AS model) p
				LEFT JOIN LATERAL (SELECT id, heading, anchor, hash FROM lesson_chunks
					WHERE lesson_id = c.lesson_id ORDER BY position OFFSET r.v % 3 LIMIT 1) ch ON s.seq % 2 = 1
				WHERE c.title LIKE 'Scale question %'`

// scalePlanUsageSQL counts the current month's questions in plan_usage.
const scalePlanUsageSQL = `INSERT INTO plan_usage (user_id, period, questions)
				SELECT m.user_id, ?::date, count(*) FROM messages m
				WHERE m.role = 'user' AND m.created_at >= ? AND m.content LIKE 'Scale question, part (%'
				GROUP BY m.user_id
				ON CONFLICT (user_id, period) DO UPDATE SET questions = excluded.questions`

// scaleCheckTotalsSQL gives every section of the lessons the graded check
// answers of its current text and of three earlier versions (as if the
// lesson had been edited three times), more the more users there are.
const scaleCheckTotalsSQL = `INSERT INTO section_check_totals (lesson_id, anchor, section_hash, answers, correct, partly, not_yet)
				SELECT c.lesson_id, c.anchor, CASE WHEN v = 0 THEN c.hash ELSE md5(c.hash || v) END,
					n.a, n.a - n.p - n.ny, n.p, n.ny
				FROM (SELECT DISTINCT ON (lesson_id, anchor) lesson_id, anchor, hash FROM lesson_chunks
					ORDER BY lesson_id, anchor, position) c
				CROSS JOIN generate_series(0, 3) AS v
				CROSS JOIN LATERAL (SELECT ?::bigint / 10 + abs(hashtext(c.lesson_id || c.anchor || v)) % 500 AS a) a
				CROSS JOIN LATERAL (SELECT a.a AS a, a.a * (abs(hashtext(c.anchor || v)) % 20) / 100 AS p,
					a.a * (abs(hashtext(v || c.anchor)) % 60) / 100 AS ny) n
				ON CONFLICT DO NOTHING`

// scaleQuestionTotalsSQL gives every section version 50 questions asked.
const scaleQuestionTotalsSQL = `INSERT INTO check_question_totals (lesson_id, anchor, section_hash, question_hash, question, answers, not_yet)
				SELECT t.lesson_id, t.anchor, t.section_hash, md5(t.section_hash || q),
					'Scale check question ' || q || ' about ' || t.anchor || '?',
					t.answers / 10 + q % 7, (t.not_yet / 10) * (q % 5) / 4
				FROM section_check_totals t CROSS JOIN generate_series(1, 50) AS q
				ON CONFLICT DO NOTHING`
