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
