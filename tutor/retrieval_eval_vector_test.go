package tutor

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tmc/langchaingo/embeddings"

	"aula/internal/fakellm"
)

// evalFused runs the eval set again with the sections and the questions
// embedded by the fake provider's deterministic vectors (a hashed bag of
// words) and the lexical and vector ranks fused, when AULA_EVAL_EMBED=fake
// (`go tool task eval EMBED=fake`) and the database has pgvector. The
// fake's vectors know words, not meaning: the table shows the plumbing
// and the fusion at work, not what a real embedding model would add.
func evalFused(t *testing.T, f *fixture, set evalSet, title string) {
	t.Helper()
	if os.Getenv("AULA_EVAL_EMBED") != "fake" {
		return
	}
	v := f.svc.retr.vectors
	if !v.ready.Load() {
		t.Log("AULA_EVAL_EMBED=fake: this PostgreSQL has no pgvector extension, so there is no fused table")
		return
	}
	fake := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{})
	creds := Credentials{OpenAIBaseURL: fake.URL}
	embedder, timeout := v.newEmbedder, v.timeout
	v.newEmbedder = func(name, model string) (embeddings.Embedder, error) { return NewEmbedder(name, model, creds) }
	v.timeout = 10 * time.Second // a loaded machine must not turn the eval lexical
	t.Cleanup(func() { v.newEmbedder, v.timeout = embedder, timeout })
	f.setEmbeddingsRoute(ProviderOpenAI, "fake-embed")
	defer f.setEmbeddingsRoute(ProviderOffline, "")
	start := time.Now()
	n, err := f.svc.EmbedSections(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fake embeddings: %d section texts embedded in %s", n, time.Since(start).Round(time.Millisecond))
	fused := summarize(runEval(t, f, set))
	printTable(t, fused.table(title+", lexical and the fake's vectors fused (RRF k=60)"))
}
