package web_test

import (
	"net/http"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/models"
	"aula/tutor"
)

// The embeddings route on the AI routes page: it says whether the
// database has pgvector, refuses a provider without embeddings (422, and
// nothing saved), takes an OpenAI-compatible one and tests it by
// embedding a short text through the real client and the fake's
// /v1/embeddings.
func TestAIRoutesEmbeddingsRoute(t *testing.T) {
	fake := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{})
	s := apptest.New(t, func(c *tutor.Config) {
		c.Credentials.OpenAIBaseURL, c.Credentials.AnthropicKey = fake.URL, "test-key"
	})
	s.User(t, "root@example.com", "pass-phrase-1", models.PlanSuperAdmin)
	c := s.SignIn(t, "root@example.com", "pass-phrase-1")
	p := c.Get("/admin/routes")
	want := "no pgvector"
	if s.Tutor.VectorsReady() {
		want = "has pgvector"
	}
	if p.Doc.Find("#route-embeddings").Length() != 1 || !strings.Contains(p.Text("#embeddings-state"), want) {
		t.Fatalf("embeddings route: %d cards, state %q, want %q", p.Doc.Find("#route-embeddings").Length(), p.Text("#embeddings-state"), want)
	}
	got := c.Submit(p, `form[action="/admin/routes/embeddings"]`, map[string]string{"provider": "anthropic"})
	if got.Status != http.StatusUnprocessableEntity || !strings.Contains(got.Text("#admin-error"), "offers no embeddings") {
		t.Fatalf("anthropic for embeddings: status %d, error %q", got.Status, got.Text("#admin-error"))
	}
	var n int
	s.DB.Raw(`SELECT count(*) FROM ai_routes WHERE use_case = 'embeddings'`).Scan(&n)
	if n != 0 {
		t.Fatal("a refused embeddings route was saved")
	}
	got = c.Submit(p, `form[action="/admin/routes/embeddings"]`, map[string]string{"provider": "openai", "model": "fake-embed"})
	if got.Status != 200 || got.Text("#admin-flash") == "" {
		t.Fatalf("save: status %d, error %q", got.Status, got.Text("#admin-error"))
	}
	got = c.Submit(got, `form[action="/admin/routes/embeddings/test"]`, nil)
	if !strings.Contains(got.Text("#test-answer"), "256 dimensions") || got.Doc.Find("#test-latency").AttrOr("data-ms", "") == "" {
		t.Fatalf("embeddings test: answer %q, error %q", got.Text("#test-answer"), got.Text(".route-test .alert"))
	}
	if r, ok := fake.LastRequest(); !ok || r.Path != "/v1/embeddings" || r.Model != "fake-embed" {
		t.Fatalf("the test reached %q with model %q", r.Path, r.Model)
	}
}
