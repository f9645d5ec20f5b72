package tutor

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"aula/internal/fakellm"
	"aula/models"
)

// fusionLesson is a lesson where the question's words point lexically to
// the wrong section: "Ping" names the question's verb in its heading (a
// heading weighs ten times a text), while the section answering it uses
// the question's words in its text. A hashed bag of words (the fake's
// vectors) puts the answering section nearest.
var fusionLesson = lessonFixture{"lan-troubles", "LAN troubles", "en", []chunkFixture{
	{"Ping in a VLAN", "Ping tests whether a host in a VLAN answers: it sends an ICMP echo request and prints the round trip time."},
	{"Hosts that cannot reach one another", "Two PCs in the same VLAN that cannot ping each other are usually on access ports of different VLANs or in different subnets."},
	{"Same subnet, other switch", "Two PCs on the same subnet behind other switches need the trunk between the switches to carry their VLAN."},
	{"Each PC's address", "Each of the PCs needs an address of its own."},
	{"Cabling", "Straight-through cables join a PC to a switch; crossover cables join two switches."},
}}

const fusionQuestion = "Why can't two PCs in the same VLAN ping each other?"

// vectorFixture is a tutor whose OpenAI credentials point at a fake
// speaking the real embeddings wire format; the embed loop is off, the
// tests embed by hand.
func vectorFixture(t *testing.T, opts fakellm.Options, timeout time.Duration) (*fixture, *fakellm.Server) {
	t.Helper()
	fake := fakellm.Start(t, fakellm.OpenAI, opts)
	f := newFixture(t, func(c *Config) {
		c.Credentials.OpenAIBaseURL = fake.URL
		c.EmbedInterval = -1
		c.QueryEmbedTimeout = timeout
	})
	return f, fake
}

// pgvectorHere reports whether the test database stores vectors, and
// logs which path the test checks, so a run says what it proved.
func pgvectorHere(t *testing.T, f *fixture) bool {
	t.Helper()
	on := f.svc.retr.vectors.ready.Load()
	var available bool
	f.scalar(&available, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`)
	if on != available {
		t.Fatalf("vectors on %v, but pgvector available %v", on, available)
	}
	if on {
		t.Log("pgvector is installed: checking vectors stored, queried and fused")
	} else {
		t.Log("pgvector is NOT installed: checking that retrieval is lexical alone and nothing breaks")
	}
	return on
}

func (f *fixture) setEmbeddingsRoute(provider, model string) {
	f.t.Helper()
	if err := models.NewAIRoutes(f.db.DB).Save(context.Background(),
		models.AIRoute{UseCase: models.UseEmbeddings, Provider: provider, Model: model}); err != nil {
		f.t.Fatal(err)
	}
	f.svc.retr.vectors.seen.Store(nil) // the next question reads the route again
}

func embedRequests(fake *fakellm.Server) []fakellm.Request {
	var out []fakellm.Request
	for _, r := range fake.Requests() {
		if strings.HasSuffix(r.Path, "/embeddings") {
			out = append(out, r)
		}
	}
	return out
}

func (f *fixture) firstFor(q string, sc Scope) string {
	f.t.Helper()
	found, err := f.svc.retr.ForTurn(context.Background(), q, nil, sc, DefaultTopK)
	if err != nil {
		f.t.Fatal(err)
	}
	if len(found.Sources) == 0 {
		return ""
	}
	return found.Sources[0].Heading
}

// With pgvector, the sections are embedded through the embeddings route
// (the real langchaingo client, OpenAI's /v1/embeddings), stored, and the
// question's nearest sections are fused with its lexical ranks: the
// section lexical ranking put second comes first. Without pgvector the
// same steps leave retrieval lexical and call no provider.
func TestRetrievalFusesVectorRanksWhenPgvectorIsThere(t *testing.T) {
	f, fake := vectorFixture(t, fakellm.Options{}, time.Minute)
	f.seedLessons(fusionLesson)
	sc := Scope{Mode: models.ModeLesson, LessonID: fusionLesson.id, Lang: "en"}
	lexical := f.firstFor(fusionQuestion, sc)
	if lexical == "" || lexical == "Hosts that cannot reach one another" {
		t.Fatalf("lexical ranking put %q first: the fixture no longer shows what fusion adds", lexical)
	}
	f.setEmbeddingsRoute(ProviderOpenAI, "fake-embed")
	n, err := f.svc.EmbedSections(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := f.firstFor(fusionQuestion, sc)
	if !pgvectorHere(t, f) {
		if n != 0 || len(embedRequests(fake)) != 0 || got != lexical {
			t.Fatalf("without pgvector: embedded %d, %d embedding calls, first %q (lexical %q)", n, len(embedRequests(fake)), got, lexical)
		}
		return
	}
	var stored int
	f.scalar(&stored, `SELECT count(*) FROM chunk_embeddings WHERE model = 'openai:fake-embed'`)
	if n != len(fusionLesson.chunks) || stored != n {
		t.Fatalf("embedded %d, stored %d, want %d", n, stored, len(fusionLesson.chunks))
	}
	if got != "Hosts that cannot reach one another" {
		t.Fatalf("fused ranking put %q first (lexical alone %q)", got, lexical)
	}
	reqs := embedRequests(fake)
	last := reqs[len(reqs)-1]
	if last.Model != "fake-embed" || !slices.Equal(last.Inputs, []string{fusionQuestion}) {
		t.Fatalf("the question's embedding call: model %q inputs %q", last.Model, last.Inputs)
	}
	t.Logf("lexical alone first: %q; fused first: %q", lexical, got)
	// A follow-up waits for the same one call as a first question: its
	// thread's words condensed into what is embedded, no other model call.
	recent := []models.Message{{Role: models.RoleAssistant}, {Role: models.RoleUser, Content: fusionQuestion}}
	if _, err := f.svc.retr.ForTurn(context.Background(), "and how do I fix it?", recent, sc, DefaultTopK); err != nil {
		t.Fatal(err)
	}
	if after := embedRequests(fake); len(after) != len(reqs)+1 || !strings.Contains(after[len(after)-1].Inputs[0], "vlan") {
		t.Fatalf("the follow-up made %d embedding calls, embedding %q", len(after)-len(reqs), after[len(after)-1].Inputs)
	}
}

// Only a changed text is embedded again: a second pass calls nothing, an
// edit of one section embeds that section alone (batched, 64 texts a
// call at most) and the vector of its old text is deleted.
func TestEmbedSectionsOnlyChangedTexts(t *testing.T) {
	f, fake := vectorFixture(t, fakellm.Options{}, time.Minute)
	seedDemoContent(t, f)
	f.setEmbeddingsRoute(ProviderOpenAI, "")
	ctx := context.Background()
	n, err := f.svc.EmbedSections(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !pgvectorHere(t, f) {
		if n != 0 || len(embedRequests(fake)) != 0 {
			t.Fatalf("without pgvector: embedded %d in %d calls", n, len(embedRequests(fake)))
		}
		return
	}
	var distinct int
	f.scalar(&distinct, `SELECT count(*) FROM (SELECT hash, heading FROM lesson_chunks UNION SELECT hash, heading FROM help_chunks) s`)
	calls := embedRequests(fake)
	if n != distinct || len(calls) != (distinct+embedBatch-1)/embedBatch {
		t.Fatalf("embedded %d of %d texts in %d calls", n, distinct, len(calls))
	}
	for _, c := range calls {
		if len(c.Inputs) > embedBatch || c.Model != DefaultOpenAIEmbeddingModel {
			t.Fatalf("a call of %d texts with model %q", len(c.Inputs), c.Model)
		}
	}
	if n, err := f.svc.EmbedSections(ctx); err != nil || n != 0 || len(embedRequests(fake)) != len(calls) {
		t.Fatalf("second pass: %d embedded, %d calls in all, %v", n, len(embedRequests(fake)), err)
	}
	var id int64
	f.scalar(&id, `SELECT id FROM lesson_chunks ORDER BY id LIMIT 1`)
	f.exec(`UPDATE lesson_chunks SET text = text || ' Edited.', hash = md5(text || ' Edited.') WHERE id = ?`, id)
	if n, err := f.svc.EmbedSections(ctx); err != nil || n != 1 {
		t.Fatalf("after one edit: %d embedded, %v", n, err)
	}
	after := embedRequests(fake)
	if len(after) != len(calls)+1 || !strings.HasSuffix(after[len(after)-1].Inputs[0], " Edited.") {
		t.Fatalf("after one edit: %d calls, the last embedding %q", len(after), after[len(after)-1].Inputs)
	}
	var stored int
	f.scalar(&stored, `SELECT count(*) FROM chunk_embeddings`)
	if stored != distinct {
		t.Fatalf("%d vectors stored for %d texts: the old text's was not deleted", stored, distinct)
	}
}

// A provider that fails or does not answer in time leaves the turn its
// lexical ranking; with the route off, no call is made at all.
func TestRetrievalFallsBackToWordsWhenEmbeddingsFail(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts fakellm.EmbedOptions
	}{
		{"provider error", fakellm.EmbedOptions{Status: http.StatusInternalServerError}},
		{"timeout", fakellm.EmbedOptions{Hang: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, fake := vectorFixture(t, fakellm.Options{}, 200*time.Millisecond)
			f.seedLessons(fusionLesson)
			sc := Scope{Mode: models.ModeLesson, LessonID: fusionLesson.id, Lang: "en"}
			lexical := f.firstFor(fusionQuestion, sc)
			if calls := len(embedRequests(fake)); calls != 0 {
				t.Fatalf("with the embeddings route off, a question made %d embedding calls", calls)
			}
			if pgvectorHere(t, f) {
				f.setEmbeddingsRoute(ProviderOpenAI, "fake-embed")
				if _, err := f.svc.EmbedSections(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			fake.SetEmbed(tc.opts)
			if got := f.firstFor(fusionQuestion, sc); got != lexical {
				t.Fatalf("with the provider failing, %q first; lexical alone %q", got, lexical)
			}
			if tc.opts.Hang && f.svc.retr.vectors.ready.Load() {
				select {
				case <-fake.Disconnected():
				case <-time.After(10 * time.Second):
					t.Fatal("the hanging embeddings call was never abandoned")
				}
			}
		})
	}
}

// A server without pgvector, as this one is made to look here whatever
// it has (no table, and the migration's function answering false): the
// tutor starts, the embeddings route can be on, and retrieval is the
// lexical ranking with no provider call.
func TestRetrievalWithoutPgvectorIsLexicalAlone(t *testing.T) {
	fake := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{})
	f := newFixture(t, func(c *Config) {
		c.Credentials.OpenAIBaseURL, c.EmbedInterval = fake.URL, -1
		for _, q := range []string{`DROP TABLE IF EXISTS chunk_embeddings`,
			`CREATE OR REPLACE FUNCTION enable_chunk_embeddings() RETURNS boolean LANGUAGE sql AS 'SELECT false'`} {
			if err := c.DB.Exec(q).Error; err != nil {
				t.Fatal(err)
			}
		}
	})
	f.seedLessons(fusionLesson)
	sc := Scope{Mode: models.ModeLesson, LessonID: fusionLesson.id, Lang: "en"}
	lexical := f.firstFor(fusionQuestion, sc)
	f.setEmbeddingsRoute(ProviderOpenAI, "fake-embed")
	n, err := f.svc.EmbedSections(context.Background())
	if err != nil || n != 0 {
		t.Fatalf("embedded %d without pgvector: %v", n, err)
	}
	if got := f.firstFor(fusionQuestion, sc); got != lexical || got != "Ping in a VLAN" {
		t.Fatalf("without pgvector %q first, lexical alone %q", got, lexical)
	}
	if calls := len(embedRequests(fake)); calls != 0 {
		t.Fatalf("without pgvector the provider got %d embedding calls", calls)
	}
}
