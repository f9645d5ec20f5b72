package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"aula/internal/apptest"
)

// BenchmarkLessonPage is the lesson page end to end for a signed-in
// student: routing, session, user, the lesson's queries against the real
// database, and rendering, on the longest demo lesson.
//
//	go test ./handlers/ -run '^$' -bench BenchmarkLessonPage -benchmem
func BenchmarkLessonPage(b *testing.B) {
	s := apptest.New(b)
	s.User(b, "bench@example.com", "pass-phrase-1", "FREE")
	c := s.SignIn(b, "bench@example.com", "pass-phrase-1")
	cookie := c.Cookie("aula_session")
	if cookie == "" {
		b.Fatal("no session cookie after sign-in")
	}
	var longest struct {
		ID, Slug, Title string
		Chars           int
	}
	s.DB.Raw(`SELECT l.id, p.slug, l.title, length(l.content_md) AS chars
		FROM lessons l JOIN modules m ON m.id = l.module_id JOIN paths p ON p.id = m.path_id
		ORDER BY length(l.content_md) DESC LIMIT 1`).Scan(&longest)
	url := "/learn/" + longest.Slug + "/" + longest.ID
	h := s.Handler
	get := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, url, nil)
		req.AddCookie(&http.Cookie{Name: "aula_session", Value: cookie})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := get(); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), longest.Title) {
		b.Fatalf("%s: status %d, %d bytes, title %q missing", url, rec.Code, rec.Body.Len(), longest.Title)
	}
	b.Logf("%s: %d characters of Markdown", url, longest.Chars)
	b.ReportAllocs()
	for b.Loop() {
		if rec := get(); rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
}
