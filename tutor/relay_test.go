package tutor

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"aula/models"
	"aula/tutor/stream"
)

// peer is a second service on the fixture's database: another process.
func (f *fixture) peer(tweak ...func(*Config)) *Service {
	f.t.Helper()
	cfg := Config{DB: f.db.DB, Now: f.now.Now, Stream: stream.Config{DatabaseURL: f.db.URL, LeaseTTL: time.Second, PollInterval: 200 * time.Millisecond},
		NewProvider: func(ctx context.Context, name, model string, creds Credentials) (Provider, error) {
			return f.prov, nil
		}, FirstTokenTimeout: time.Minute, AnswerTimeout: time.Minute}
	for _, fn := range tweak {
		fn(&cfg)
	}
	svc := New(cfg)
	if err := svc.Start(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(svc.Close)
	return svc
}

// readAll reads a subscription to its end, checking that every piece
// starts where the previous one ended and never splits a rune.
func readAll(t *testing.T, sub *stream.Subscription, from int) (string, *stream.Final) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var b strings.Builder
	next := from
	for {
		text, at, final, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		if final != nil {
			return b.String(), final
		}
		if at != next {
			t.Fatalf("piece at %d, want %d", at, next)
		}
		if !utf8.ValidString(text) {
			t.Fatalf("piece splits a rune: %q", text)
		}
		b.WriteString(text)
		next = at + len(text)
	}
}

func TestStreamFollowedFromAnotherProcess(t *testing.T) {
	f := newFixture(t)
	other := f.peer()
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	release := make(chan struct{})
	words := strings.Fields("Una VLAN divide un switch físico en dominios de difusión separados — así se aíslan los equipos 😀 sin cables nuevos.")
	f.prov.set(func(ctx context.Context, _ Request, on func(string) error) (Usage, error) {
		for i, w := range words {
			if i == 6 {
				<-release
			}
			if err := on(w + " "); err != nil {
				return Usage{}, err
			}
			time.Sleep(2 * time.Millisecond)
		}
		return Usage{}, nil
	})
	res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "¿qué es una VLAN?"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release) // a failed test must not leave the generation blocked
		}
	})
	// A browser reads the first words from the owner, then reconnects
	// elsewhere. Nobody follows the answer on another process yet, so
	// its text is only in the owner's memory, not in the row.
	owned, err := f.svc.Streams().Subscribe(context.Background(), u, mid, 0)
	if err != nil {
		t.Fatal(err)
	}
	var stored string
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for strings.Count(stored, " ") < 6 {
		text, _, _, err := owned.Next(ctx)
		if err != nil {
			t.Fatalf("reading from the owner: %v (read %q)", err, stored)
		}
		stored += text
	}
	owned.Close()
	var inRow string
	f.scalar(&inRow, `SELECT content FROM messages WHERE id = ?`, mid)
	if inRow != "" {
		t.Fatalf("text written mid-stream with no follower elsewhere: %q", inRow)
	}
	// An offset inside "físico" (a two-byte rune) rewinds to the rune.
	cut := strings.Index(stored, "í") + 1
	if _, err := other.Streams().Subscribe(context.Background(), f.user(models.PlanPro), mid, 0); err == nil {
		t.Fatal("someone else followed the answer")
	}
	sub, err := other.Streams().Subscribe(context.Background(), u, mid, cut)
	if err != nil {
		t.Fatal(err)
	}
	close(release)
	rest, final := readAll(t, sub, cut-1)
	if !strings.HasPrefix(final.Content, stored) {
		t.Fatalf("the owner's first words %q are not the stored answer's start %q", stored, final.Content)
	}
	if final.Status != models.StatusComplete {
		t.Fatalf("final %s %s", final.Status, final.ErrorCode)
	}
	if want := final.Content[cut-1:]; rest != want {
		t.Fatalf("followed rest:\n%q\nwant\n%q", rest, want)
	}
	if other.Streams().Stats().Remote == 0 {
		t.Fatal("the peer did not follow remotely")
	}
	// Wait on the peer (the JSON chat path) sees the stored answer too.
	m, err := other.Streams().Wait(context.Background(), u, mid)
	if err != nil || m.Content != final.Content {
		t.Fatalf("wait on peer: %v %q", err, m.Content)
	}
}

func TestCancelFromAnotherProcess(t *testing.T) {
	f := newFixture(t)
	other := f.peer()
	u := f.user(models.PlanFree)
	c := f.conv(u, models.ModeTutor, "", "")
	f.prov.set(func(ctx context.Context, _ Request, on func(string) error) (Usage, error) {
		if err := on("partial answer "); err != nil {
			return Usage{}, err
		}
		<-ctx.Done()
		return Usage{}, ctx.Err()
	})
	res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "what is DNS?"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	sub, _ := f.svc.Streams().Subscribe(context.Background(), u, mid, 0)
	if text, _, _, err := sub.Next(context.Background()); err != nil || text == "" {
		t.Fatalf("first text: %q %v", text, err)
	}
	sub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := other.Streams().Cancel(ctx, u, mid); err != nil {
		t.Fatal(err)
	}
	m, err := models.NewMessages(f.db.DB).Get(context.Background(), u, mid)
	if err != nil || m.Status != models.StatusCancelled || m.Content != "partial answer " {
		t.Fatalf("after remote cancel: %v %s %q", err, m.Status, m.Content)
	}
	if f.used(u) != 1 {
		t.Fatalf("a cancelled answer with text counts: used %d", f.used(u))
	}
}

func TestDeadOwnerAnswerFailsOnceAndFollowersSeeIt(t *testing.T) {
	f := newFixture(t)
	a, b := f.peer(), f.peer()
	u := f.user(models.PlanFree)
	c := f.conv(u, models.ModeTutor, "", "")
	period := models.Period(f.now.Now())
	f.exec(`UPDATE conversations SET next_seq = 2 WHERE id = ?`, c)
	f.exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content) VALUES (?, ?, 0, 'user', 'q')`, c, u)
	var mid string
	// A process that died after writing part of the answer: its lease
	// runs out in a second and nobody renews it.
	f.scalar(&mid, `INSERT INTO messages (conversation_id, user_id, seq, role, content, status, quota_period, lease_owner, lease_until)
		VALUES (?, ?, 1, 'assistant', 'half an ans', 'streaming', ?, 'gone-1-abc', now() + interval '1 second') RETURNING id`, c, u, period)
	f.exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 1)`, u, period)

	sub, err := b.Streams().Subscribe(context.Background(), u, mid, 5)
	if err != nil {
		t.Fatal(err)
	}
	text, final := readAll(t, sub, 5)
	if text != "an ans" || final.Status != models.StatusFailed || final.ErrorCode != CodeInterrupted || final.Content != "" {
		t.Fatalf("follower saw %q then %s %q %q", text, final.Status, final.ErrorCode, final.Content)
	}
	// Both peers sweep; the question is refunded exactly once.
	a.Streams().Sweep(context.Background())
	b.Streams().Sweep(context.Background())
	if f.used(u) != 0 {
		t.Fatalf("used %d after the sweep", f.used(u))
	}
	var qp *time.Time
	f.scalar(&qp, `SELECT quota_period FROM messages WHERE id = ?`, mid)
	if qp != nil {
		t.Fatal("quota_period not cleared")
	}
}

func TestLiveLeasesSurviveAnotherStart(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Stream.LeaseTTL = time.Second })
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	release := make(chan struct{})
	f.prov.set(func(ctx context.Context, _ Request, on func(string) error) (Usage, error) {
		if err := on("still "); err != nil {
			return Usage{}, err
		}
		select {
		case <-release:
		case <-ctx.Done():
			return Usage{}, ctx.Err()
		}
		return Usage{}, on("here")
	})
	res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "long one"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	// A process starting later, and its sweeps, spare an answer whose owner
	// keeps renewing its lease — for longer than the lease itself.
	other := f.peer()
	streams, _ := models.NewStreams(f.db.DB)
	first, _, err := streams.LeaseOf(context.Background(), mid)
	if err != nil || first != f.svc.Streams().InstanceID() {
		t.Fatalf("lease owner %q (%v), want %q", first, err, f.svc.Streams().InstanceID())
	}
	var renewed bool
	_, start, _ := streams.LeaseOf(context.Background(), mid)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !renewed; time.Sleep(50 * time.Millisecond) {
		_, until, _ := streams.LeaseOf(context.Background(), mid)
		renewed = until != nil && start != nil && until.Sub(*start) > 1500*time.Millisecond
		other.Streams().Sweep(context.Background())
	}
	if !renewed {
		t.Fatal("the lease was not renewed past its first expiry")
	}
	close(release)
	if m := f.wait(u, mid); m.Status != models.StatusComplete || m.Content != "still here" {
		t.Fatalf("answer: %s %q", m.Status, m.Content)
	}
}
