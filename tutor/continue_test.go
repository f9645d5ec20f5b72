package tutor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"aula/internal/fakellm"
	"aula/models"
)

// Continue, through each provider's real client and wire format: the
// request carries the question, the stopped text as the model's own turn
// and the instruction to go on without repeating it; what comes back is
// appended to the same answer, which ends complete; the plan counts the
// question once.
func TestContinueSendsThePartialAnswer(t *testing.T) {
	for _, kind := range fakellm.Kinds {
		t.Run(kind, func(t *testing.T) {
			srv := fakellm.Start(t, kind, fakellm.Options{Tokens: []string{" a", " switch", "."}})
			f := newFixture(t, func(c *Config) {
				c.NewProvider = nil // the real providers
				c.Credentials = fakeCreds(kind, srv.URL)
			})
			f.exec(`UPDATE ai_routes SET provider = ?, model = 'm1' WHERE use_case = 'tutor_chat'`, kind)
			u := f.user(models.PlanFree)
			c := f.conv(u, models.ModeTutor, "", "")
			m := f.ask(u, c, "What is a VLAN?")
			// As if Stop had come after two words.
			f.exec(`UPDATE messages SET status = 'cancelled', content = 'VLANs split' WHERE id = ?`, m.ID)

			if _, err := f.svc.Continue(context.Background(), u, m.ID); err != nil {
				t.Fatal(err)
			}
			m = f.wait(u, m.ID)
			if m.Status != models.StatusComplete || m.Content != "VLANs split a switch." {
				t.Fatalf("continued answer: %s %q", m.Status, m.Content)
			}
			req, _ := srv.LastRequest()
			msgs := req.Messages
			if len(msgs) < 3 {
				t.Fatalf("the continuation sent %+v", msgs)
			}
			q, partial, instruction := msgs[len(msgs)-3], msgs[len(msgs)-2], msgs[len(msgs)-1]
			if !strings.Contains(q.Content, "What is a VLAN?") || partial.Content != "VLANs split" ||
				partial.Role == q.Role || instruction.Content != ContinueInstruction || instruction.Role != q.Role {
				t.Fatalf("the continuation's last turns: %+v / %+v / %+v", q, partial, instruction)
			}
			if f.used(u) != 1 {
				t.Fatalf("used %d: a continuation is not a new question", f.used(u))
			}
		})
	}
}

// Only a stopped answer with text continues; a continuation that fails
// leaves it stopped with its text, counted once.
func TestContinueRefusalsAndFailure(t *testing.T) {
	f := newFixture(t)
	u := f.user(models.PlanFree)
	c := f.conv(u, models.ModeTutor, "", "")
	m := f.ask(u, c, "explain VLANs")
	var r *Refusal
	if _, err := f.svc.Continue(context.Background(), u, m.ID); !errors.As(err, &r) || r.Reason != RefusedNotContinuable {
		t.Fatalf("continuing a complete answer: %v", err)
	}
	if _, err := f.svc.Continue(context.Background(), f.user(models.PlanFree), m.ID); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("someone else's answer: %v", err)
	}
	f.exec(`UPDATE messages SET status = 'cancelled', content = 'The first part' WHERE id = ?`, m.ID)
	f.prov.set(func(context.Context, Request, func(string) error) (Usage, error) {
		return Usage{}, &ProviderError{Provider: "openai", Code: CodeUpstreamError, Status: 500, Err: errors.New("boom")}
	})
	if _, err := f.svc.Continue(context.Background(), u, m.ID); err != nil {
		t.Fatal(err)
	}
	m = f.wait(u, m.ID)
	if m.Status != models.StatusCancelled || m.Content != "The first part" || f.used(u) != 1 {
		t.Fatalf("after a failed continuation: %s %q, used %d", m.Status, m.Content, f.used(u))
	}
	if got := f.prov.last(t).Partial; got != "The first part" {
		t.Fatalf("the provider was given %q to continue", got)
	}
}
