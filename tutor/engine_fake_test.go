package tutor

import (
	"context"
	"strings"
	"testing"
	"time"

	"aula/internal/fakellm"
	"aula/models"
)

func fakeCreds(kind, url string) Credentials {
	switch kind {
	case fakellm.OpenAI:
		return Credentials{OpenAIKey: "k", OpenAIBaseURL: url}
	case fakellm.Anthropic:
		return Credentials{AnthropicKey: "k", AnthropicBaseURL: url}
	case fakellm.Gemini:
		return Credentials{GoogleKey: "k", GoogleEndpoint: url}
	default:
		return Credentials{OllamaHost: url}
	}
}

// End to end through the real langchaingo clients and each provider's
// wire format: a streamed answer is stored with its receipt, and every
// upstream failure ends as a failed message, refunded, with no text kept.
func TestEngineAgainstFakeProviders(t *testing.T) {
	cases := []struct {
		name   string
		opts   fakellm.Options
		status string
		code   string
	}{
		{"streams", fakellm.Options{Tokens: []string{"VLANs", " split", " a", " switch", "."}}, models.StatusComplete, ""},
		{"429", fakellm.Options{Status: 429}, models.StatusFailed, CodeRateLimited},
		{"500", fakellm.Options{Status: 500}, models.StatusFailed, CodeUpstreamError},
		{"hang", fakellm.Options{HangBeforeFirst: true}, models.StatusFailed, CodeFirstTokenTimeout},
		{"malformed", fakellm.Options{Malformed: true}, models.StatusFailed, CodeMalformedStream},
	}
	for _, kind := range fakellm.Kinds {
		for _, tc := range cases {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				srv := fakellm.Start(t, kind, tc.opts)
				f := newFixture(t, func(c *Config) {
					c.NewProvider = nil // the real providers
					c.Credentials = fakeCreds(kind, srv.URL)
					c.FirstTokenTimeout = 300 * time.Millisecond
				})
				f.exec(`UPDATE ai_routes SET provider = ?, model = 'm1' WHERE use_case = 'tutor_chat'`, kind)
				u := f.user(models.PlanFree)
				c := f.conv(u, models.ModeTutor, "", "")
				m := f.ask(u, c, "What is a VLAN?")
				if m.Status != tc.status || m.ErrorCode != tc.code {
					t.Fatalf("status %s code %q, want %s %q (receipt %s)", m.Status, m.ErrorCode, tc.status, tc.code, m.Metadata)
				}
				if tc.status == models.StatusFailed {
					if m.Content != "" || f.used(u) != 0 {
						t.Fatalf("content %q used %d: want nothing kept and the question refunded", m.Content, f.used(u))
					}
					return
				}
				if m.Content != "VLANs split a switch." || m.Provider != kind || m.Model != "m1" || m.TtftMs == nil || f.used(u) != 1 {
					t.Fatalf("stored %+v", m)
				}
			})
		}
	}
}

// Cancelling a generation closes the upstream connection at once.
func TestEngineCancelClosesUpstream(t *testing.T) {
	for _, kind := range fakellm.Kinds {
		t.Run(kind, func(t *testing.T) {
			hold := make(chan struct{})
			t.Cleanup(func() { close(hold) })
			srv := fakellm.Start(t, kind, fakellm.Options{Tokens: []string{"first", " second"}, Hold: hold})
			f := newFixture(t, func(c *Config) {
				c.NewProvider = nil
				c.Credentials = fakeCreds(kind, srv.URL)
			})
			f.exec(`UPDATE ai_routes SET provider = ? WHERE use_case = 'tutor_chat'`, kind)
			u := f.user(models.PlanFree)
			c := f.conv(u, models.ModeTutor, "", "")
			res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "What is a VLAN?"})
			if err != nil {
				t.Fatal(err)
			}
			sub, err := f.svc.Streams().Subscribe(context.Background(), u, res.AssistantMessage.ID, 0)
			if err != nil {
				t.Fatal(err)
			}
			text, _, _, err := sub.Next(context.Background())
			if err != nil || !strings.HasPrefix(text, "first") {
				t.Fatalf("first chunk %q %v", text, err)
			}
			if err := f.svc.Streams().Cancel(context.Background(), u, res.AssistantMessage.ID); err != nil {
				t.Fatal(err)
			}
			select {
			case <-srv.Disconnected():
			case <-time.After(30 * time.Second): // hang guard, not a timing assertion
				t.Fatal("upstream connection still open after cancel")
			}
			m := f.wait(u, res.AssistantMessage.ID)
			if m.Status != models.StatusCancelled || m.Content != "first" {
				t.Fatalf("cancelled: %s %q", m.Status, m.Content)
			}
		})
	}
}
