package tutor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
	"aula/tutor/stream"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// scripted is a provider whose behaviour a test writes as a function; it
// records every request it receives.
type scripted struct {
	mu   sync.Mutex
	reqs []Request
	fn   func(ctx context.Context, req Request, onToken func(string) error) (Usage, error)
}

func (p *scripted) Name() string { return "scripted" }

func (p *scripted) Stream(ctx context.Context, req Request, onToken func(string) error) (Usage, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	fn := p.fn
	p.mu.Unlock()
	if fn == nil {
		return emit("An answer.")(ctx, req, onToken)
	}
	return fn(ctx, req, onToken)
}

func (p *scripted) set(fn func(ctx context.Context, req Request, onToken func(string) error) (Usage, error)) {
	p.mu.Lock()
	p.fn = fn
	p.mu.Unlock()
}

func (p *scripted) last(t *testing.T) Request {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.reqs) == 0 {
		t.Fatal("provider received no request")
	}
	return p.reqs[len(p.reqs)-1]
}

// emit streams the words of text, one token each.
func emit(text string) func(context.Context, Request, func(string) error) (Usage, error) {
	return func(ctx context.Context, _ Request, onToken func(string) error) (Usage, error) {
		for _, w := range strings.SplitAfter(text, " ") {
			if err := ctx.Err(); err != nil {
				return Usage{}, err
			}
			if err := onToken(w); err != nil {
				return Usage{}, err
			}
		}
		return Usage{TokensIn: 10, TokensOut: 3}, nil
	}
}

// hang never emits and returns when ctx ends.
func hang(ctx context.Context, _ Request, _ func(string) error) (Usage, error) {
	<-ctx.Done()
	return Usage{}, ctx.Err()
}

type fixture struct {
	t    testing.TB
	db   *pgtest.DB
	svc  *Service
	prov *scripted
	now  *clock
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// newFixture starts a service on a fresh database with a scripted provider
// behind every route.
func newFixture(t testing.TB, tweak ...func(*Config)) *fixture {
	t.Helper()
	db := pgtest.New(t)
	f := &fixture{t: t, db: db, prov: &scripted{}, now: &clock{t: time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)}}
	cfg := Config{
		DB:     db.DB,
		Now:    f.now.Now,
		Stream: stream.Config{DatabaseURL: db.URL},
		NewProvider: func(ctx context.Context, name, model string, creds Credentials) (Provider, error) {
			return f.prov, nil
		},
		FirstTokenTimeout: time.Minute,
		AnswerTimeout:     time.Minute,
	}
	for _, fn := range tweak {
		fn(&cfg)
	}
	f.svc = New(cfg)
	if err := f.svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.svc.Close)
	return f
}

func (f *fixture) exec(sql string, args ...any) {
	f.t.Helper()
	if err := f.db.Exec(sql, args...).Error; err != nil {
		f.t.Fatalf("exec %q: %v", sql, err)
	}
}

func (f *fixture) scalar(dst any, sql string, args ...any) {
	f.t.Helper()
	if err := f.db.Raw(sql, args...).Row().Scan(dst); err != nil {
		f.t.Fatalf("query %q: %v", sql, err)
	}
}

var userN int

// user creates an account on plan and returns its id.
func (f *fixture) user(plan string) string {
	f.t.Helper()
	userN++
	var id string
	f.scalar(&id, `INSERT INTO users (email, password_hash, name, plan) VALUES (?, 'x', 'Test', ?) RETURNING id`,
		fmt.Sprintf("u%d-%d@example.com", userN, time.Now().UnixNano()), plan)
	return id
}

// conv creates a conversation.
func (f *fixture) conv(userID, mode, lessonID, style string) string {
	f.t.Helper()
	c, err := models.NewConversations(f.db.DB).Create(context.Background(), userID, mode, lessonID, 0, style)
	if err != nil {
		f.t.Fatal(err)
	}
	return c.ID
}

// ask asks and waits for the answer to be stored.
func (f *fixture) ask(userID, convID, content string) *models.Message {
	f.t.Helper()
	res, err := f.svc.Ask(context.Background(), AskInput{UserID: userID, ConversationID: convID, Content: content})
	if err != nil {
		f.t.Fatalf("ask %q: %v", content, err)
	}
	return f.wait(userID, res.AssistantMessage.ID)
}

func (f *fixture) wait(userID, msgID string) *models.Message {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := f.svc.Streams().Wait(ctx, userID, msgID)
	if err != nil {
		f.t.Fatalf("wait %s: %v", msgID, err)
	}
	return m
}

func (f *fixture) used(userID string) int {
	f.t.Helper()
	u, err := models.NewQuotas(f.db.DB).Usage(context.Background(), userID, f.now.Now())
	if err != nil {
		f.t.Fatal(err)
	}
	return u.Used
}

func TestAskRecordsTurn(t *testing.T) {
	f := newFixture(t)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	long := strings.Repeat("subnetting ", 10)
	res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: long})
	if err != nil {
		t.Fatal(err)
	}
	if res.UserMessage.Seq != 0 || res.AssistantMessage.Seq != 1 || res.AssistantMessage.Status != models.StatusStreaming {
		t.Fatalf("seqs/status: %+v %+v", res.UserMessage, res.AssistantMessage)
	}
	m := f.wait(u, res.AssistantMessage.ID)
	if m.Status != models.StatusComplete || m.Content != "An answer." || m.LatencyMs == nil || m.TtftMs == nil ||
		m.TokensIn == nil || *m.TokensIn != 10 {
		t.Fatalf("stored answer: %+v", m)
	}
	conv, err := models.NewConversations(f.db.DB).Get(context.Background(), u, c)
	if err != nil {
		t.Fatal(err)
	}
	if want := models.TitleFrom(long); conv.Title != want || !strings.HasSuffix(want, "…") || len([]rune(want)) != 60 {
		t.Fatalf("title %q, want %q (60 chars with an ellipsis)", conv.Title, want)
	}
	var active string
	f.scalar(&active, `SELECT active_conversation_id FROM users WHERE id = ?`, u)
	if active != c {
		t.Fatalf("active conversation %s, want %s", active, c)
	}
	// The second question keeps the title and gets the next seqs.
	res2, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "another"})
	if err != nil {
		t.Fatal(err)
	}
	f.wait(u, res2.AssistantMessage.ID)
	if res2.UserMessage.Seq != 2 || res2.Conversation.Title != conv.Title {
		t.Fatalf("second turn: seq %d title %q", res2.UserMessage.Seq, res2.Conversation.Title)
	}
	if f.used(u) != 2 {
		t.Fatalf("unlimited plans are counted too: used %d", f.used(u))
	}
}

func TestAskValidation(t *testing.T) {
	f := newFixture(t)
	u := f.user(models.PlanFree)
	c := f.conv(u, models.ModeTutor, "", "")
	tests := []struct {
		name    string
		content string
		want    error
	}{
		{"empty", "  \n ", ErrEmptyQuestion},
		{"too long", strings.Repeat("é", MaxQuestionChars+1), ErrQuestionTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: tt.content})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
		})
	}
	if f.used(u) != 0 {
		t.Fatal("a rejected question must not count")
	}
}

func TestAskSomeoneElsesConversation(t *testing.T) {
	f := newFixture(t)
	owner, other := f.user(models.PlanFree), f.user(models.PlanFree)
	c := f.conv(owner, models.ModeTutor, "", "")
	for _, id := range []string{c, "not-a-uuid", "00000000-0000-0000-0000-000000000000"} {
		_, err := f.svc.Ask(context.Background(), AskInput{UserID: other, ConversationID: id, Content: "hello?"})
		if !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("conversation %s: err %v, want ErrNotFound", id, err)
		}
	}
	var msgs, usage, seq int
	f.scalar(&msgs, `SELECT count(*) FROM messages`)
	f.scalar(&usage, `SELECT count(*) FROM plan_usage`)
	f.scalar(&seq, `SELECT next_seq FROM conversations WHERE id = ?`, c)
	if msgs != 0 || usage != 0 || seq != 0 || f.svc.Streams().Active() != 0 {
		t.Fatalf("something was written: messages %d usage rows %d next_seq %d hub %d", msgs, usage, seq, f.svc.Streams().Active())
	}
}

func TestQuotaConcurrentFreeAsks(t *testing.T) {
	f := newFixture(t)
	u := f.user(models.PlanFree)
	c := f.conv(u, models.ModeTutor, "", "")
	const n = 50
	var wg sync.WaitGroup
	errs := make([]error, n)
	ids := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: fmt.Sprintf("question %d", i)})
			errs[i] = err
			if err == nil {
				ids[i] = res.AssistantMessage.ID
			}
		}()
	}
	wg.Wait()
	admitted := 0
	for i, err := range errs {
		switch {
		case err == nil:
			admitted++
			f.wait(u, ids[i])
		case errors.Is(err, ErrQuotaExceeded):
			var qe *QuotaError
			if !errors.As(err, &qe) || qe.Limit != 3 || qe.Used != 3 || !qe.ResetAt.Equal(time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)) {
				t.Fatalf("quota error detail: %#v", qe)
			}
		default:
			t.Fatalf("ask %d: %v", i, err)
		}
	}
	if admitted != 3 {
		t.Fatalf("admitted %d questions, want exactly 3", admitted)
	}
	var msgs int
	f.scalar(&msgs, `SELECT count(*) FROM messages`)
	if msgs != 6 || f.used(u) != 3 {
		t.Fatalf("messages %d used %d, want 6 and 3", msgs, f.used(u))
	}
}

func TestQuotaMonthRollover(t *testing.T) {
	f := newFixture(t)
	u := f.user(models.PlanFree)
	c := f.conv(u, models.ModeTutor, "", "")
	f.now.Set(time.Date(2025, 1, 31, 23, 59, 0, 0, time.UTC))
	for i := range 3 {
		f.ask(u, c, fmt.Sprintf("q%d", i))
	}
	_, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "one more"})
	var qe *QuotaError
	if !errors.As(err, &qe) || !qe.ResetAt.Equal(time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("err %v, want a quota error resetting on Feb 1", err)
	}
	f.now.Set(time.Date(2025, 2, 1, 0, 0, 1, 0, time.UTC))
	if m := f.ask(u, c, "new month"); m.Status != models.StatusComplete {
		t.Fatalf("new month answer: %s", m.Status)
	}
	if f.used(u) != 1 {
		t.Fatalf("used in February: %d", f.used(u))
	}
}

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
