package tutor

import (
	"context"
	"testing"
	"time"

	"aula/internal/fakellm"
	"aula/models"
)

// BenchmarkForTurnEmbeddings is a turn's retrieval on the demo content
// with the embeddings route off, on with a fake answering at once or
// after 50 ms, and on with a fake that never answers (the 300 ms timeout,
// then words alone): what the question's embedding adds before the first
// token. With pgvector absent every case is the lexical one.
func BenchmarkForTurnEmbeddings(b *testing.B) {
	for _, bc := range []struct {
		name string
		on   bool
		opts fakellm.EmbedOptions
	}{
		{"off", false, fakellm.EmbedOptions{}},
		{"fake-0ms", true, fakellm.EmbedOptions{}},
		{"fake-50ms", true, fakellm.EmbedOptions{Delay: 50 * time.Millisecond}},
		{"fake-hangs", true, fakellm.EmbedOptions{Hang: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			fake := fakellm.Start(b, fakellm.OpenAI, fakellm.Options{})
			f := newFixture(b, func(c *Config) { c.Credentials.OpenAIBaseURL, c.EmbedInterval = fake.URL, -1 })
			seedDemoContent(b, f)
			if bc.on {
				f.setEmbeddingsRoute(ProviderOpenAI, "fake-embed")
				if _, err := f.svc.EmbedSections(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			fake.SetEmbed(bc.opts)
			sc := Scope{Mode: models.ModeLesson, LessonID: "vlan-basics", Lang: "en"}
			b.ResetTimer()
			for b.Loop() {
				if _, err := f.svc.retr.ForTurn(context.Background(), "How do trunk ports carry several VLANs?", nil, sc, DefaultTopK); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
