package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// ScalePassword is the password of every generated scale user
// (scale-N@aula.test), so benchmarks and demos can sign in as one.
const ScalePassword = "scale-pass-1"

// ErrScaleExists means the scale data set was generated already.
var ErrScaleExists = errors.New("scale data already present (users scale-N@aula.test exist)")

// ScaleReport counts what GenerateScale inserted.
type ScaleReport struct {
	Users, Conversations, Messages int64
	Took                           time.Duration
}

// GenerateScale fills the database with a load-test data set: 10,000×n
// users, 100,000×n conversations and 1,000,000×n messages over the last
// 180 days, with ratings, citations, failures and latencies, all set-based
// (INSERT … SELECT generate_series) in one transaction: no row is built in
// Go (about 1.5 minutes on 2 cores, most of it maintaining the messages
// indexes). Rows are derived from hashes of their numbers, so two runs give
// the same data. The demo content must be imported first: lesson threads
// point at its lessons. A VACUUM ANALYZE at the end sets the visibility
// map, so the dashboards' index-only scans do not visit the heap.
func GenerateScale(ctx context.Context, db *gorm.DB, n int, now time.Time) (ScaleReport, error) {
	start := time.Now()
	if n < 1 {
		return ScaleReport{}, fmt.Errorf("scale must be at least 1, got %d", n)
	}
	rep := ScaleReport{Users: 10_000 * int64(n), Conversations: 100_000 * int64(n), Messages: 1_000_000 * int64(n)}
	hash := HashPassword(ScalePassword)
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var lessons, existing int64
		if err := tx.Raw(`SELECT (SELECT count(*) FROM lessons), (SELECT count(*) FROM users WHERE email = 'scale-1@aula.test')`).
			Row().Scan(&lessons, &existing); err != nil {
			return fmt.Errorf("check database: %w", err)
		}
		if existing > 0 {
			return ErrScaleExists
		}
		if lessons == 0 {
			return errors.New("no lessons: import the demo content first (aula seed)")
		}
		steps := []struct {
			what string
			sql  string
			args []any
		}{
			{"users", `INSERT INTO users (id, email, password_hash, name, plan, created_at, updated_at)
				SELECT md5('scale-u' || i)::uuid, 'scale-' || i || '@aula.test', ?, 'Scale Student ' || i,
					(ARRAY['FREE','FREE','FREE','FREE','FREE','STARTER','STARTER','PRO','ELITE','CORPORATE_USER'])[1 + i % 10],
					?::timestamptz - interval '200 days', ?::timestamptz - interval '200 days'
				FROM generate_series(1, ?) AS i`, []any{hash, now, now, rep.Users}},
			{"conversations", `WITH l AS (SELECT row_number() OVER (ORDER BY id) - 1 AS k, id, module_id FROM lessons)
				INSERT INTO conversations (id, user_id, title, mode, lesson_id, module_id, next_seq, created_at, last_activity_at)
				SELECT md5('scale-c' || c)::uuid, md5('scale-u' || (1 + c % ?))::uuid, 'Scale question ' || c,
					CASE WHEN c % 10 < 7 THEN 'lesson' WHEN c % 10 < 9 THEN 'tutor' ELSE 'help' END,
					CASE WHEN c % 10 < 7 THEN l.id END, CASE WHEN c % 10 < 7 THEN l.module_id END,
					10, t.ts, t.ts + interval '9 minutes'
				FROM generate_series(1, ?) AS c
				CROSS JOIN LATERAL (SELECT ?::timestamptz - ((c::bigint * 7919) % (180 * 24 * 60)) * interval '1 minute' - interval '10 minutes' AS ts) t
				JOIN l ON l.k = c % ?`, []any{rep.Users, rep.Conversations, now, lessons}},
			{"messages", `INSERT INTO messages (conversation_id, user_id, seq, role, content, status, rating, rating_reason,
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
				WHERE c.title LIKE 'Scale question %'`, []any{rep.Messages / rep.Conversations}},
			{"plan usage", `INSERT INTO plan_usage (user_id, period, questions)
				SELECT m.user_id, ?::date, count(*) FROM messages m
				WHERE m.role = 'user' AND m.created_at >= ? AND m.content LIKE 'Scale question, part (%'
				GROUP BY m.user_id
				ON CONFLICT (user_id, period) DO UPDATE SET questions = excluded.questions`, []any{Period(now), Period(now)}},
		}
		for _, st := range steps {
			if err := tx.Exec(st.sql, st.args...).Error; err != nil {
				return fmt.Errorf("generate %s: %w", st.what, err)
			}
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	if err := db.WithContext(ctx).Exec(`VACUUM (ANALYZE) users, conversations, messages, plan_usage`).Error; err != nil {
		return rep, fmt.Errorf("vacuum analyze: %w", err)
	}
	rep.Took = time.Since(start)
	return rep, nil
}
