package tutor

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"aula/models"
)

// callLog is a scripted provider's record of its calls: how many started,
// how many returned, and a signal at each start.
type callLog struct {
	started, returned atomic.Int32
	start             chan struct{}
}

// hangingCalls scripts f's provider to wait for its context, counting
// the calls in the returned log.
func hangingCalls(f *fixture) *callLog {
	l := &callLog{start: make(chan struct{}, 8)}
	f.prov.set(func(ctx context.Context, _ Request, _ func(string) error) (Usage, error) {
		l.started.Add(1)
		l.start <- struct{}{}
		defer l.returned.Add(1)
		<-ctx.Done()
		return Usage{}, ctx.Err()
	})
	return l
}

// holdRow locks one row in a transaction of the test's until release, so
// the statement that records a question waits on it.
func holdRow(t *testing.T, f *fixture, sql string, args ...any) (release func()) {
	t.Helper()
	tx := f.db.DB.Begin()
	if err := tx.Exec(sql, args...).Error; err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() { once.Do(func() { tx.Rollback() }) }
	t.Cleanup(release)
	return release
}

// TestEarlyCallStartsWhileTheQuestionIsRecorded holds the thread's row so
// the question cannot be recorded: the prepared request still reaches the
// provider, its tokens wait, and the answer is the provider's, whole.
func TestEarlyCallStartsWhileTheQuestionIsRecorded(t *testing.T) {
	f := newFixture(t)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	called := make(chan struct{}, 1)
	f.prov.set(func(ctx context.Context, req Request, on func(string) error) (Usage, error) {
		called <- struct{}{}
		return emit("Trunks carry many VLANs.")(ctx, req, on)
	})
	release := holdRow(t, f, `SELECT 1 FROM conversations WHERE id = ? FOR UPDATE`, c)
	type asked struct {
		res *AskResult
		err error
	}
	done := make(chan asked, 1)
	go func() {
		res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "what is a trunk?",
			Known: f.known(u, c)})
		done <- asked{res, err}
	}()
	select {
	case <-called:
	case <-time.After(30 * time.Second):
		t.Fatal("the provider was not called while the question waited to be recorded")
	}
	var questions int
	f.scalar(&questions, `SELECT count(*) FROM messages WHERE conversation_id = ?`, c)
	if questions != 0 {
		t.Fatalf("%d messages written while the thread's row was held", questions)
	}
	release()
	a := <-done
	if a.err != nil {
		t.Fatal(a.err)
	}
	m := f.wait(u, a.res.AssistantMessage.ID)
	if m.Status != models.StatusComplete || m.Content != "Trunks carry many VLANs." {
		t.Fatalf("answer %s %q", m.Status, m.Content)
	}
	if n := len(f.prov.reqs); n != 1 {
		t.Fatalf("the provider got %d calls, want 1", n)
	}
}

// TestEarlyCallOfARefusedQuestionEnds: a question refused at the quota
// ends the call its preparation started, and that student's next
// questions make no early call at all.
func TestEarlyCallOfARefusedQuestionEnds(t *testing.T) {
	f := newFixture(t)
	u := f.user(models.PlanFree)
	c := f.conv(u, models.ModeTutor, "", "")
	period := models.Period(f.now.Now())
	f.exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 100)`, u, period)
	calls := hangingCalls(f)
	release := holdRow(t, f, `SELECT 1 FROM plan_usage WHERE user_id = ? FOR UPDATE`, u)
	refused := make(chan error, 1)
	go func() {
		_, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "what is a trunk?",
			Known: f.known(u, c)})
		refused <- err
	}()
	select {
	case <-calls.start:
	case <-time.After(30 * time.Second):
		t.Fatal("the prepared request made no provider call")
	}
	release()
	if err := <-refused; !errors.Is(err, ErrQuotaExceeded) {
		t.Fatalf("ask at the limit: %v, want the quota refusal", err)
	}
	for deadline := time.Now().Add(30 * time.Second); calls.returned.Load() != 1; {
		if time.Now().After(deadline) {
			t.Fatal("the refused question's provider call never ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for range 3 {
		_, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "and a VLAN?",
			Known: f.known(u, c)})
		if !errors.Is(err, ErrQuotaExceeded) {
			t.Fatalf("ask at the limit: %v", err)
		}
	}
	if n := calls.started.Load(); n != 1 {
		t.Fatalf("%d provider calls for a student known to be at the limit, want only the first", n)
	}
}
