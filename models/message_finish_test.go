package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"aula/internal/pgtest"
	"aula/models"
)

// TestFinishAnswersEndingTogether ends many answers at the same moment, so
// they share statements: each caller learns whether it stored its own
// answer, and every row holds its own final state.
func TestFinishAnswersEndingTogether(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	msgs := models.NewMessages(db.DB)
	const n = 40
	ids := make([]string, n)
	for i := range ids {
		u := newUser(t, db, models.PlanPro)
		c, err := models.NewConversations(db.DB).Create(ctx, u, models.ModeTutor, "", 0, "")
		if err != nil {
			t.Fatal(err)
		}
		turn, err := msgs.BeginTurn(ctx, models.TurnInput{UserID: u, ConversationID: c.ID, Content: "q",
			AssistantID: uuid.NewString(), Now: time.Now(), Lease: models.Lease{Owner: "here", TTL: time.Minute}})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = turn.Assistant.ID
	}
	// Answer 0 was already ended elsewhere; answer 1 is another owner's.
	if _, err := msgs.Finish(ctx, ids[0], models.FinishInput{Status: models.StatusFailed, ErrorCode: "interrupted", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	stored := make([]*models.Message, n)
	twice := make(chan *models.Message, 1)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			owner := "here"
			if i == 1 {
				owner = "elsewhere"
			}
			ttft := i
			m, err := msgs.Finish(ctx, ids[i], models.FinishInput{Status: models.StatusComplete, Content: fmt.Sprintf("answer %d\x00 ñ", i),
				Provider: "openai", Model: "m", LatencyMs: 100 + i, TtftMs: &ttft, TokensIn: i, TokensOut: 2 * i,
				Metadata: models.JSON(fmt.Sprintf(`{"n":%d}`, i)), Now: time.Now(), LeaseOwner: owner})
			if err != nil {
				t.Error(err)
			}
			stored[i] = m
		})
	}
	wg.Go(func() {
		m, _ := msgs.Finish(ctx, ids[5], models.FinishInput{Status: models.StatusCancelled, Now: time.Now(), LeaseOwner: "here"})
		twice <- m
	})
	wg.Wait()

	if stored[0] != nil || stored[1] != nil {
		t.Errorf("stored an answer already ended (%v) or another owner's (%v)", stored[0] != nil, stored[1] != nil)
	}
	second := <-twice
	if (second == nil) == (stored[5] == nil) {
		t.Errorf("answer 5 ended twice at once: stored by both or by neither (%v, %v)", second != nil, stored[5] != nil)
	}
	for i := 2; i < n; i++ {
		if i == 5 && stored[i] == nil {
			continue
		}
		m := stored[i]
		want := fmt.Sprintf("answer %d ñ", i)
		if m == nil || m.ID != ids[i] || m.Content != want || m.Status != models.StatusComplete || *m.LatencyMs != 100+i ||
			*m.TtftMs != i || *m.TokensOut != 2*i || string(m.Metadata) != fmt.Sprintf(`{"n": %d}`, i) {
			t.Fatalf("answer %d returned %+v", i, m)
		}
		var content, status string
		db.Raw(`SELECT content, status FROM messages WHERE id = ?`, ids[i]).Row().Scan(&content, &status)
		if content != want || status != models.StatusComplete {
			t.Errorf("answer %d stored %q %s", i, content, status)
		}
	}
	var failed string
	db.Raw(`SELECT status FROM messages WHERE id = ?`, ids[0]).Row().Scan(&failed)
	if failed != models.StatusFailed {
		t.Errorf("the answer ended elsewhere became %s", failed)
	}
}
