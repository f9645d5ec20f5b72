package handlers_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/models"
	"aula/scale"
)

// BenchmarkScalePages times the student dashboard and every admin page on
// the generated data set (10,000 users, 100,000 conversations, 1,000,000
// messages; built once, in seconds, only when this benchmark runs). The
// figure is the server's time for one page: the client reads the body
// and nothing else. AULA_EXPLAIN=1 also logs the plans of the heaviest queries.
func BenchmarkScalePages(b *testing.B) {
	s := apptest.New(b)
	rep, err := scale.Generate(context.Background(), models.NewScaleData(s.DB.DB), 1, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %d users, %d conversations, %d messages in %s", rep.Users, rep.Conversations, rep.Messages, rep.Took.Round(time.Millisecond))
	s.User(b, "root@example.com", "pass-phrase-1", models.PlanSuperAdmin)
	admin := s.SignIn(b, "root@example.com", "pass-phrase-1")
	student := s.SignIn(b, "scale-42@aula.test", scale.Password)
	pages := []struct {
		name, path string
		client     *http.Client
	}{
		{"dashboard", "/dashboard", student.HTTP},
		{"admin-overview", "/admin", admin.HTTP},
		{"admin-ratings", "/admin/ratings", admin.HTTP},
		{"admin-understanding", "/admin/understanding", admin.HTTP},
		{"admin-latency", "/admin/latency", admin.HTTP},
		{"admin-users", "/admin/users?q=scale-99", admin.HTTP},
		{"admin-suggestions", "/admin/suggestions", admin.HTTP},
		{"admin-routes", "/admin/routes", admin.HTTP},
	}
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			get := func() {
				resp, err := p.client.Get(s.URL + p.path)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("%s: status %d", p.path, resp.StatusCode)
				}
			}
			get() // warm the cache and the session
			b.ResetTimer()
			for b.Loop() {
				get()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/page")
		})
	}
	if os.Getenv("AULA_EXPLAIN") != "" {
		explainHeaviest(b, s)
	}
}

// explainHeaviest logs EXPLAIN ANALYZE of the pages' heaviest statements,
// the same SQL as models/stats.go with the benchmark's parameters inlined.
func explainHeaviest(b *testing.B, s *apptest.Server) {
	var uid string
	s.DB.Raw(`SELECT id FROM users WHERE email = 'scale-42@aula.test'`).Scan(&uid)
	for name, q := range map[string]string{
		"student activity": `SELECT (m.created_at AT TIME ZONE 'UTC')::date AS day, c.module_id, coalesce(mo.title, '') AS module, count(*) AS n
			FROM messages m JOIN conversations c ON c.id = m.conversation_id LEFT JOIN modules mo ON mo.id = c.module_id
			WHERE m.user_id = '` + uid + `' AND m.role = 'user' AND m.created_at >= now() - interval '56 days' AND m.created_at < now() + interval '7 days'
			  AND NOT EXISTS (SELECT 1 FROM messages a WHERE a.conversation_id = m.conversation_id AND a.seq = m.seq + 1 AND a.status = 'failed')
			GROUP BY 1, 2, 3`,
		"active students": `SELECT count(DISTINCT m.user_id) FILTER (WHERE m.created_at > now() - interval '7 days'), count(DISTINCT m.user_id)
			FROM messages m JOIN users u ON u.id = m.user_id
			WHERE m.role = 'user' AND m.created_at > now() - interval '30 days' AND m.created_at <= now()
			  AND u.plan NOT IN ('CONTENT_ADMIN', 'SUPER_ADMIN')`,
		"questions per day": `SELECT (created_at AT TIME ZONE 'UTC')::date AS day, count(*) FROM messages
			WHERE role = 'user' AND created_at >= now() - interval '30 days' AND created_at < now() + interval '1 day' GROUP BY 1`,
		"ratings per lesson": `SELECT c.lesson_id, l.title, count(*) FILTER (WHERE m.rating = 'up'), count(*) FILTER (WHERE m.rating = 'down') AS down
			FROM messages m JOIN conversations c ON c.id = m.conversation_id JOIN lessons l ON l.id = c.lesson_id
			WHERE m.rating IS NOT NULL GROUP BY c.lesson_id, l.title ORDER BY down DESC LIMIT 20`,
		"ratings per section": `SELECT cit->>'lessonId', cit->>'anchor', count(*) AS down FROM messages m
			CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(m.metadata->'citations') = 'array' THEN m.metadata->'citations' ELSE '[]'::jsonb END) AS cit
			WHERE m.rating = 'down' AND cit->>'kind' = 'lesson' GROUP BY 1, 2 ORDER BY down DESC LIMIT 20`,
		"latency": `SELECT provider, model, count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY ttft_ms) FILTER (WHERE status = 'complete'),
			percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) FILTER (WHERE status = 'complete')
			FROM messages WHERE role = 'assistant' AND created_at > now() - interval '7 days' AND created_at <= now() AND status <> 'streaming'
			GROUP BY provider, model`,
	} {
		var lines []string
		if err := s.DB.Raw("EXPLAIN (ANALYZE, BUFFERS) " + q).Scan(&lines).Error; err != nil {
			b.Fatalf("explain %s: %v", name, err)
		}
		b.Logf("EXPLAIN ANALYZE %s:\n%s", name, strings.Join(lines, "\n"))
	}
}
