package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"aula/internal/pgtest"
	"aula/models"
)

// sweepFixture is a fresh database with one user, who asks questions.
type sweepFixture struct {
	t       *testing.T
	db      *pgtest.DB
	ctx     context.Context
	msgs    *models.Messages
	streams *models.Streams
	user    string
}

func newSweepFixture(t *testing.T) *sweepFixture {
	t.Helper()
	db := pgtest.New(t)
	streams, err := models.NewStreams(db.DB)
	if err != nil {
		t.Fatal(err)
	}
	return &sweepFixture{t: t, db: db, ctx: context.Background(), msgs: models.NewMessages(db.DB), streams: streams,
		user: newUser(t, db, models.PlanFree)}
}

// begin asks a question in a new thread; its answer streams under lease.
func (f *sweepFixture) begin(lease models.Lease) string {
	f.t.Helper()
	c, err := models.NewConversations(f.db.DB).Create(f.ctx, f.user, models.ModeTutor, "", 0, "")
	if err != nil {
		f.t.Fatal(err)
	}
	turn, err := f.msgs.BeginTurn(f.ctx, models.TurnInput{UserID: f.user, ConversationID: c.ID, Content: "q",
		AssistantID: uuid.NewString(), Now: time.Now(), Lease: lease})
	if err != nil {
		f.t.Fatal(err)
	}
	return turn.Assistant.ID
}

// TestSweepEndsOwnAnswersNoLongerHeld: an answer of this process whose
// lease ran out is failed and refunded once the process no longer holds
// it (its final write failed), while one it holds is left alone, as are
// live leases.
func TestSweepEndsOwnAnswersNoLongerHeld(t *testing.T) {
	f := newSweepFixture(t)
	db, ctx, streams, u := f.db, f.ctx, f.streams, f.user
	answer := func(ttl time.Duration) string { return f.begin(models.Lease{Owner: "self", TTL: ttl}) }
	orphan, held, live := answer(time.Millisecond), answer(time.Millisecond), answer(time.Hour)
	time.Sleep(5 * time.Millisecond) // the two short leases run out
	failed, err := streams.FailExpired(ctx, time.Now(), "self", []string{held, live})
	if err != nil {
		t.Fatal(err)
	}
	if len(failed) != 1 || failed[0] != orphan {
		t.Fatalf("swept %v, want only the answer no longer held (%s)", failed, orphan)
	}
	for id, want := range map[string]string{orphan: models.StatusFailed, held: models.StatusStreaming, live: models.StatusStreaming} {
		var status string
		db.Raw(`SELECT status FROM messages WHERE id = ?`, id).Row().Scan(&status)
		if status != want {
			t.Errorf("answer %s is %s, want %s", id, status, want)
		}
	}
	var used int
	db.Raw(`SELECT questions FROM plan_usage WHERE user_id = ?`, u).Row().Scan(&used)
	if used != 2 {
		t.Errorf("%d questions counted, want 2 (the swept one refunded)", used)
	}
}

// TestSweepKeepsAContinuationsText: a continuation whose process died
// ends stopped as it was before Continue, with the text kept and what the
// continuation stored since, its question still counted, and can be
// continued again; a first answer's half-written text is cleared and its
// question refunded.
func TestSweepKeepsAContinuationsText(t *testing.T) {
	f := newSweepFixture(t)
	db, ctx, msgs, streams, u, begin := f.db, f.ctx, f.msgs, f.streams, f.user, f.begin
	dead := models.Lease{Owner: "dead", TTL: time.Millisecond}
	appendText := func(id string, at int, text string) {
		t.Helper()
		if grown, err := streams.AppendBatch(ctx, "dead", []models.Piece{{ID: id, At: at, Text: text}}); err != nil || grown[id] != at+len(text) {
			t.Fatalf("append %q at %d: %v %v", text, at, grown, err)
		}
	}
	const kept, more = "Kept when stopped.", " Stored by the continuation."
	continued := begin(models.Lease{Owner: "self", TTL: time.Hour})
	if m, err := msgs.Finish(ctx, continued, models.FinishInput{Status: models.StatusCancelled, Content: kept, Now: time.Now()}); err != nil || m == nil {
		t.Fatalf("stop: %v %v", m, err)
	}
	if _, _, err := msgs.BeginContinue(ctx, u, continued, 64<<10, time.Now(), dead); err != nil {
		t.Fatal(err)
	}
	appendText(continued, len(kept), more)
	first := begin(dead)
	appendText(first, 0, "Half an ans")
	time.Sleep(5 * time.Millisecond) // both leases run out

	if ended, err := streams.FailExpired(ctx, time.Now(), "sweeper", nil); err != nil || len(ended) != 2 {
		t.Fatalf("swept %v (%v), want both answers", ended, err)
	}
	for id, want := range map[string]struct{ status, code, content string }{
		continued: {models.StatusCancelled, "", kept + more},
		first:     {models.StatusFailed, "interrupted", ""},
	} {
		var status, code, content string
		db.Raw(`SELECT status, error_code, content FROM messages WHERE id = ?`, id).Row().Scan(&status, &code, &content)
		if status != want.status || code != want.code || content != want.content {
			t.Errorf("answer %s is %s %q %q, want %s %q %q", id, status, code, content, want.status, want.code, want.content)
		}
	}
	var used int
	db.Raw(`SELECT questions FROM plan_usage WHERE user_id = ?`, u).Row().Scan(&used)
	if used != 1 {
		t.Errorf("%d questions counted, want 1 (the continued one; the first answer refunded)", used)
	}
	if _, _, err := msgs.BeginContinue(ctx, u, continued, 64<<10, time.Now(), dead); err != nil {
		t.Errorf("the swept continuation cannot be continued again: %v", err)
	}
}
