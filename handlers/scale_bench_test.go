package handlers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/models"
	"aula/scale"
)

// BenchmarkPagesAtScale is the server's time and its SQL statements for
// one page each of the lesson page, the catalog, the chat screen of a student with
// 10,000 threads, that student's dashboard and the admin overview, on the
// 1,000,000-message data set (scale.Generate, the generator behind
// `aula seed --scale`, plus the 10,000-thread student; built only when
// this benchmark runs, in about two minutes). The request goes through
// the whole handler (routing, session, queries, rendering) in process.
//
//	go test ./handlers/ -run '^$' -bench BenchmarkPagesAtScale
func BenchmarkPagesAtScale(b *testing.B) {
	s := apptest.New(b)
	ctx := context.Background()
	rep, err := scale.Generate(ctx, models.NewScaleData(s.DB.DB), 1, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	heavy := s.User(b, "heavy@example.com", "a-long-password-1", models.PlanPro)
	if err := s.DB.Exec(`INSERT INTO conversations (user_id, title, mode, next_seq, created_at, last_activity_at)
		SELECT ?, 'Thread number ' || g, 'tutor', 2, now() - g * interval '1 minute', now() - g * interval '1 minute'
		FROM generate_series(1, 10000) g`, heavy.ID).Error; err != nil {
		b.Fatal(err)
	}
	for seq, m := range [][2]string{{"user", "What is a VLAN?"}, {"assistant", "A **virtual** LAN: one switch, several broadcast domains."}} {
		if err := s.DB.Exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status, created_at, completed_at)
			SELECT id, user_id, ?, ?, ?, 'complete', created_at, created_at FROM conversations WHERE user_id = ?`,
			seq, m[0], m[1], heavy.ID).Error; err != nil {
			b.Fatal(err)
		}
	}
	s.DB.Exec(`VACUUM ANALYZE conversations`)
	s.DB.Exec(`VACUUM ANALYZE messages`)
	var total int64
	s.DB.Raw(`SELECT count(*) FROM messages`).Scan(&total)
	b.Logf("data set: %d users, %d conversations, %d messages generated in %s; %d messages in all",
		rep.Users, rep.Conversations, rep.Messages, rep.Took.Round(time.Millisecond), total)

	s.User(b, "root@example.com", "a-long-password-1", models.PlanSuperAdmin)
	student := s.SignIn(b, "heavy@example.com", "a-long-password-1").Cookie("aula_session")
	admin := s.SignIn(b, "root@example.com", "a-long-password-1").Cookie("aula_session")
	var cid string
	s.DB.Raw(`SELECT id FROM conversations WHERE user_id = ? ORDER BY last_activity_at DESC LIMIT 1`, heavy.ID).Scan(&cid)
	h := s.Handler
	pages := []struct {
		name, path, cookie, want string
	}{
		{"lesson", "/learn/networking/vlan-basics", student, "What a VLAN is and why it matters"},
		{"catalog", "/learn", student, `id="progress-networking"`},
		{"chat-10000-threads", "/chat/" + cid, student, "Thread number 30<"},
		{"dashboard", "/dashboard", student, `id="kpi-questions"`},
		{"admin-overview", "/admin", admin, `id="`},
	}
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			get := func() *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodGet, p.path, nil)
				req.AddCookie(&http.Cookie{Name: "aula_session", Value: p.cookie})
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec
			}
			if rec := get(); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), p.want) {
				b.Fatalf("%s: status %d, %q missing:\n%.500s", p.path, rec.Code, p.want, rec.Body.String())
			}
			// Statements of one page: the least of three, so a background
			// statement of the tutor (lease sweep) is not counted.
			stmts := int64(1 << 30)
			for range 3 {
				before := s.SQLs.Load()
				get()
				stmts = min(stmts, s.SQLs.Load()-before)
			}
			b.ReportAllocs()
			for b.Loop() {
				if rec := get(); rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/page")
			b.ReportMetric(float64(stmts), "sql/page")
		})
	}
}
