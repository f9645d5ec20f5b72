package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"aula/internal/pgtest"
	"aula/models"
)

// TestSweepEndsOwnAnswersNoLongerHeld: an answer of this process whose
// lease ran out is failed and refunded once the process no longer holds
// it (its final write failed), while one it holds is left alone, as are
// live leases.
func TestSweepEndsOwnAnswersNoLongerHeld(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	msgs := models.NewMessages(db.DB)
	streams, err := models.NewStreams(db.DB)
	if err != nil {
		t.Fatal(err)
	}
	u := newUser(t, db, models.PlanFree)
	answer := func(ttl time.Duration) string {
		t.Helper()
		c, err := models.NewConversations(db.DB).Create(ctx, u, models.ModeTutor, "", 0, "")
		if err != nil {
			t.Fatal(err)
		}
		turn, err := msgs.BeginTurn(ctx, models.TurnInput{UserID: u, ConversationID: c.ID, Content: "q",
			AssistantID: uuid.NewString(), Now: time.Now(), Lease: models.Lease{Owner: "self", TTL: ttl}})
		if err != nil {
			t.Fatal(err)
		}
		return turn.Assistant.ID
	}
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
