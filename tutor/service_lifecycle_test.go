package tutor

// An answer's life after Ask: refunds on failure, cancel, retry, recovery
// at start-up, who may read a stream, routes and the guide style.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/models"
)

func TestFailedGenerationRefunds(t *testing.T) {
	tests := []struct {
		name  string
		fn    func(context.Context, Request, func(string) error) (Usage, error)
		creds func(string, Credentials) error
		code  string
	}{
		{"provider error", func(context.Context, Request, func(string) error) (Usage, error) {
			return Usage{}, &ProviderError{Provider: "openai", Code: CodeRateLimited, Status: 429, Err: errors.New("slow down")}
		}, nil, CodeRateLimited},
		{"error after partial text", func(_ context.Context, _ Request, on func(string) error) (Usage, error) {
			_ = on("half an ")
			return Usage{}, &ProviderError{Provider: "openai", Code: CodeMalformedStream, Err: errors.New("eof")}
		}, nil, CodeMalformedStream},
		{"first token timeout", hang, nil, CodeFirstTokenTimeout},
		{"answer timeout", func(ctx context.Context, _ Request, on func(string) error) (Usage, error) {
			_ = on("partial ")
			<-ctx.Done()
			return Usage{}, ctx.Err()
		}, nil, CodeAnswerTimeout},
		{"empty answer", func(context.Context, Request, func(string) error) (Usage, error) { return Usage{}, nil }, nil, CodeEmptyAnswer},
		{"route without credentials", nil, func(string, Credentials) error {
			return fmt.Errorf("openai: %w", ErrNoCredentials)
		}, CodeNoCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *Config) {
				if tt.code == CodeFirstTokenTimeout {
					c.FirstTokenTimeout = 20 * time.Millisecond
				}
				if tt.code == CodeAnswerTimeout {
					c.AnswerTimeout = 50 * time.Millisecond
				}
				c.CheckCredentials = tt.creds
			})
			f.prov.set(tt.fn)
			u := f.user(models.PlanFree)
			c := f.conv(u, models.ModeTutor, "", "")
			m := f.ask(u, c, "what is a subnet mask?")
			if m.Status != models.StatusFailed || m.ErrorCode != tt.code || m.Content != "" {
				t.Fatalf("status %s code %q content %q; want failed %q and nothing kept", m.Status, m.ErrorCode, m.Content, tt.code)
			}
			if f.used(u) != 0 || m.QuotaPeriod != nil {
				t.Fatalf("not refunded: used %d", f.used(u))
			}
			if f.svc.Streams().Active() != 0 {
				t.Fatal("buffer not freed")
			}
		})
	}
}

func TestCancelKeepsPartialAnswer(t *testing.T) {
	f := newFixture(t)
	release := make(chan struct{})
	f.prov.set(func(ctx context.Context, _ Request, on func(string) error) (Usage, error) {
		_ = on("The first part ")
		close(release)
		<-ctx.Done()
		return Usage{}, ctx.Err()
	})
	u := f.user(models.PlanFree)
	c := f.conv(u, models.ModeTutor, "", "")
	res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "explain VLANs"})
	if err != nil {
		t.Fatal(err)
	}
	<-release
	if err := f.svc.Streams().Cancel(context.Background(), f.user(models.PlanFree), res.AssistantMessage.ID); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("someone else's cancel: %v", err)
	}
	if err := f.svc.Streams().Cancel(context.Background(), u, res.AssistantMessage.ID); err != nil {
		t.Fatal(err)
	}
	m := f.wait(u, res.AssistantMessage.ID)
	if m.Status != models.StatusCancelled || m.Content != "The first part " {
		t.Fatalf("cancelled answer: %s %q", m.Status, m.Content)
	}
	if f.used(u) != 1 {
		t.Fatalf("a cancelled answer with text counts: used %d", f.used(u))
	}
	if err := f.svc.Streams().Cancel(context.Background(), u, res.AssistantMessage.ID); err != nil {
		t.Fatalf("cancelling a finished answer: %v", err)
	}
}

func TestRetryRegeneratesInPlace(t *testing.T) {
	f := newFixture(t)
	f.prov.set(func(context.Context, Request, func(string) error) (Usage, error) {
		return Usage{}, &ProviderError{Provider: "openai", Code: CodeUpstreamError, Status: 500, Err: errors.New("boom")}
	})
	u := f.user(models.PlanFree)
	c := f.conv(u, models.ModeTutor, "", "")
	failed := f.ask(u, c, "what is a trunk port?")
	if failed.Status != models.StatusFailed {
		t.Fatalf("status %s", failed.Status)
	}
	f.prov.set(emit("A trunk carries many VLANs."))
	if _, err := f.svc.Retry(context.Background(), f.user(models.PlanFree), failed.ID); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("someone else's retry: %v", err)
	}
	m, err := f.svc.Retry(context.Background(), u, failed.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := f.wait(u, m.ID)
	if got.ID != failed.ID || got.Seq != failed.Seq || got.Status != models.StatusComplete || got.Content != "A trunk carries many VLANs." {
		t.Fatalf("retried: %+v", got)
	}
	if q := f.prov.last(t).Question; q != "what is a trunk port?" {
		t.Fatalf("retry asked %q", q)
	}
	if f.used(u) != 1 {
		t.Fatalf("used %d, want 1 (failed refunded, retry counted)", f.used(u))
	}
}

func TestStartupRecoversStreamingAnswers(t *testing.T) {
	f := newFixture(t)
	u := f.user(models.PlanFree)
	c := f.conv(u, models.ModeTutor, "", "")
	period := models.Period(f.now.Now())
	f.exec(`UPDATE conversations SET next_seq = 2 WHERE id = ?`, c)
	f.exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content) VALUES (?, ?, 0, 'user', 'q')`, c, u)
	var mid string
	f.scalar(&mid, `INSERT INTO messages (conversation_id, user_id, seq, role, content, status, quota_period)
		VALUES (?, ?, 1, 'assistant', 'half', 'streaming', ?) RETURNING id`, c, u, period)
	f.exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 1)`, u, period)

	svc := New(Config{DB: f.db.DB, Now: f.now.Now})
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	m, err := models.NewMessages(f.db.DB).Get(context.Background(), u, mid)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != models.StatusFailed || m.ErrorCode != CodeInterrupted {
		t.Fatalf("recovered: %s %q", m.Status, m.ErrorCode)
	}
	if f.used(u) != 0 {
		t.Fatalf("interrupted question not refunded: used %d", f.used(u))
	}
	// A second start refunds nothing more.
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if f.used(u) != 0 {
		t.Fatalf("used %d after a second start", f.used(u))
	}
}

func TestStreamOwnershipAndReplay(t *testing.T) {
	f := newFixture(t)
	u, other := f.user(models.PlanPro), f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	m := f.ask(u, c, "hi there, what is DNS?")
	if _, err := f.svc.Streams().Subscribe(context.Background(), other, m.ID, 0); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("someone else's stream: %v", err)
	}
	sub, err := f.svc.Streams().Subscribe(context.Background(), u, m.ID, 3)
	if err != nil {
		t.Fatal(err)
	}
	text, at, _, err := sub.Next(context.Background())
	if err != nil || at != 3 || text != m.Content[3:] {
		t.Fatalf("replay from 3: %q at %d (%v)", text, at, err)
	}
	_, _, final, err := sub.Next(context.Background())
	if err != nil || final == nil || final.Status != models.StatusComplete {
		t.Fatalf("final: %+v %v", final, err)
	}
}

func TestRoutes(t *testing.T) {
	var mu sync.Mutex
	var built []string
	f := newFixture(t, func(c *Config) {
		c.CheckCredentials = func(name string, _ Credentials) error {
			if name == ProviderOpenAI {
				return fmt.Errorf("%s: set OPENAI_API_KEY: %w", name, ErrNoCredentials)
			}
			return nil
		}
	})
	f.svc.cfg.NewProvider = func(ctx context.Context, name, model string, creds Credentials) (Provider, error) {
		mu.Lock()
		built = append(built, name+"/"+model)
		mu.Unlock()
		return f.prov, nil
	}
	ctx := context.Background()
	info, err := f.svc.SessionInfo(ctx)
	if err != nil || info.Provider != ProviderOffline || !info.Offline {
		t.Fatalf("seeded route: %+v %v", info, err)
	}
	// The admin page checks the provider, then saves the route.
	saveRoute := func(r models.AIRoute) error {
		if err := f.svc.CheckProvider(r.Provider); err != nil {
			return err
		}
		return models.NewAIRoutes(f.db.DB).Save(ctx, r)
	}
	err = saveRoute(models.AIRoute{UseCase: models.UseTutorChat, Provider: ProviderOpenAI, Model: "gpt-x"})
	if !errors.Is(err, ErrNoCredentials) {
		t.Fatalf("saving a route without credentials: %v", err)
	}
	if err := saveRoute(models.AIRoute{UseCase: models.UseTutorChat, Provider: ProviderOllama, Model: "llama3"}); err != nil {
		t.Fatal(err)
	}
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	m := f.ask(u, c, "what is OSPF?")
	if m.Provider != ProviderOllama || m.Model != "llama3" {
		t.Fatalf("answer from %s/%s, want the new route without a restart", m.Provider, m.Model)
	}
	// A route that lost its credentials fails the answer clearly.
	f.exec(`UPDATE ai_routes SET provider = 'openai' WHERE use_case = 'tutor_chat'`)
	m = f.ask(u, c, "and BGP?")
	if m.Status != models.StatusFailed || m.ErrorCode != CodeNoCredentials {
		t.Fatalf("route without credentials: %s %q", m.Status, m.ErrorCode)
	}
}

func TestGuideStyleHintLevels(t *testing.T) {
	f := newFixture(t)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", models.StyleGuide)
	steps := []struct {
		question string
		level    int
		full     bool
	}{
		{"how many hosts fit in a /26?", 1, false},
		{"is it 64?", 2, false},
		{"62?", 3, true},
		{"and in a /27?", 1, false},
		{"just tell me the answer", 2, true},
	}
	for _, s := range steps {
		m := f.ask(u, c, s.question)
		r := ParseReceipt(m.Metadata)
		if r.Style != models.StyleGuide || r.HintLevel != s.level || r.FullAnswer != s.full {
			t.Fatalf("%q: hint level %d full %v, want %d %v", s.question, r.HintLevel, r.FullAnswer, s.level, s.full)
		}
		sys := f.prov.last(t).System
		if s.full != strings.Contains(sys, "full worked answer") {
			t.Fatalf("%q: system prompt does not match the guide state:\n%s", s.question, sys)
		}
	}
	if err := models.NewConversations(f.db.DB).SetStyle(context.Background(), u, c, models.StyleExplain); err != nil {
		t.Fatal(err)
	}
	r := ParseReceipt(f.ask(u, c, "what is a VLSM?").Metadata)
	if r.Style != models.StyleExplain || r.HintLevel != 0 {
		t.Fatalf("explain receipt: %+v", r)
	}
}
