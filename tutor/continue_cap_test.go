package tutor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"aula/internal/fakellm"
	"aula/models"
)

// The answer size cap holds for an answer across its continuations: a
// model that writes 60 KB and stalls, stopped and continued again and
// again, leaves at most the cap stored for the one question counted, and
// no continuation re-sends the whole stopped text to the provider. A
// stopped answer already at the cap is refused a Continue.
func TestContinueKeepsTheAnswerCap(t *testing.T) {
	const written = 60_000
	tokens := make([]string, written/1000)
	for i := range tokens {
		tokens[i] = strings.Repeat("x", 999) + "\n"
	}
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: tokens, StallAfterTokens: true})
	f := newFixture(t, func(c *Config) {
		c.NewProvider = nil // the real providers
		c.Credentials = fakeCreds(fakellm.OpenAI, srv.URL)
	})
	f.exec(`UPDATE ai_routes SET provider = 'openai', model = 'm1' WHERE use_case = 'tutor_chat'`)
	u := f.user(models.PlanFree)
	res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: f.conv(u, models.ModeTutor, "", ""), Content: "Write a lot"})
	if err != nil {
		t.Fatal(err)
	}
	id := res.AssistantMessage.ID
	m := f.stopAfter(u, id, 0, written)
	first, _ := srv.LastRequest()
	for round := 1; round <= 4 && m.Status == models.StatusCancelled; round++ {
		if _, err := f.svc.Continue(context.Background(), u, id); err != nil {
			t.Fatalf("continue %d: %v", round, err)
		}
		m = f.stopAfter(u, id, len(m.Content), len(m.Content)+written)
		req, _ := srv.LastRequest()
		if extra := len(req.Body) - len(first.Body); extra > ContinueTailBytes+1024 {
			t.Fatalf("continuation %d sent %d bytes more than the question did", round, extra)
		}
	}
	var stored int
	f.scalar(&stored, `SELECT octet_length(content) FROM messages WHERE id = ?`, id)
	if stored > DefaultMaxAnswerBytes || f.used(u) != 1 {
		t.Fatalf("stored %d bytes (cap %d), used %d", stored, DefaultMaxAnswerBytes, f.used(u))
	}

	f.exec(`UPDATE messages SET status = 'cancelled', content = repeat('y', ?) WHERE id = ?`, DefaultMaxAnswerBytes, id)
	var r *Refusal
	if _, err := f.svc.Continue(context.Background(), u, id); !errors.As(err, &r) || r.Reason != RefusedAnswerFull {
		t.Fatalf("continuing an answer at the cap: %v", err)
	}
}

// stopAfter reads the user's answer from offset and presses Stop once it
// has until bytes (unless it ends first); it returns the stored answer.
func (f *fixture) stopAfter(userID, msgID string, offset, until int) *models.Message {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sub, err := f.svc.Streams().Subscribe(ctx, userID, msgID, offset)
	if err != nil {
		f.t.Fatal(err)
	}
	defer sub.Close()
	for sub.Offset() < until {
		_, _, final, err := sub.Next(ctx)
		if err != nil {
			f.t.Fatal(err)
		}
		if final != nil {
			return final.Message
		}
	}
	if err := f.svc.Streams().Cancel(ctx, userID, msgID); err != nil {
		f.t.Fatal(err)
	}
	return f.wait(userID, msgID)
}
