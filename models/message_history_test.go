package models_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"aula/internal/pgtest"
	"aula/models"
)

// historyThread is a thread with answered turns and what its history
// read must give before its next question.
type historyThread struct {
	user, conv string
	next       int      // the seq of its next question
	want       []string // the turns, newest first
	context    []string // its context turns, oldest first
}

// answeredThread makes a thread of user with the given questions, each
// answered, and context turns when given.
func answeredThread(t *testing.T, db *pgtest.DB, user string, questions []string, earlier []models.ContextTurn) historyThread {
	t.Helper()
	ctx := context.Background()
	msgs := models.NewMessages(db.DB)
	c, err := models.NewConversations(db.DB).CreateWithContext(ctx, user, models.ModeTutor, "", 0, "", earlier)
	if err != nil {
		t.Fatal(err)
	}
	th := historyThread{user: user, conv: c.ID}
	for _, e := range earlier {
		th.context = append(th.context, e.Content)
	}
	for _, q := range questions {
		turn, err := msgs.BeginTurn(ctx, models.TurnInput{UserID: user, ConversationID: c.ID, Content: q,
			AssistantID: uuid.NewString(), Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := msgs.Finish(ctx, turn.Assistant.ID, models.FinishInput{Status: models.StatusComplete,
			Content: "answer to " + q, Now: time.Now()}); err != nil {
			t.Fatal(err)
		}
		th.want = append([]string{"answer to " + q, q}, th.want...)
		th.next = turn.Assistant.Seq + 1
	}
	return th
}

// TestHistoriesReadTogether has many follow-ups read their threads'
// history at the same moment, so they share batched statements: each
// gets its own thread's turns, newest first, and its own context, and a
// thread read as another user gives nothing.
func TestHistoriesReadTogether(t *testing.T) {
	db := pgtest.New(t)
	msgs := models.NewMessages(db.DB)
	var threads []historyThread
	for i := range 6 {
		u := newUser(t, db, models.PlanPro)
		var earlier []models.ContextTurn
		if i%2 == 0 {
			earlier = []models.ContextTurn{{Role: models.RoleUser, Content: fmt.Sprintf("context %d a", i)},
				{Role: models.RoleAssistant, Content: fmt.Sprintf("context %d b", i)}}
		}
		qs := make([]string, i%3+1)
		for j := range qs {
			qs[j] = fmt.Sprintf("question %d.%d ñ", i, j)
		}
		threads = append(threads, answeredThread(t, db, u, qs, earlier))
	}
	stranger := newUser(t, db, models.PlanPro)
	manyAtOnce(t, 120, func(i int) error {
		th := threads[i%len(threads)]
		if i%7 == 6 {
			h, err := msgs.History(context.Background(), stranger, th.conv, th.next, 20)
			if err != nil || len(h.Turns) != 0 || len(h.Context) != 0 {
				return fmt.Errorf("another user read %d turns and %d context turns (%v)", len(h.Turns), len(h.Context), err)
			}
			return nil
		}
		h, err := msgs.History(context.Background(), th.user, th.conv, th.next, 20)
		if err != nil {
			return err
		}
		var got, ctx []string
		for _, m := range h.Turns {
			got = append(got, m.Content)
		}
		for _, c := range h.Context {
			ctx = append(ctx, c.Content)
		}
		if !slices.Equal(got, th.want) || h.Total != len(th.want) || !slices.Equal(ctx, th.context) {
			return fmt.Errorf("history %q (total %d), context %q; want %q and %q", got, h.Total, ctx, th.want, th.context)
		}
		return nil
	})
}

// TestHistoryWindow reads at most the limit, newest first, and counts
// every turn that may enter a prompt.
func TestHistoryWindow(t *testing.T) {
	db := pgtest.New(t)
	th := answeredThread(t, db, newUser(t, db, models.PlanPro), []string{"one", "two", "three"}, nil)
	h, err := models.NewMessages(db.DB).History(context.Background(), th.user, th.conv, th.next, 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range h.Turns {
		got = append(got, m.Content)
	}
	if want := th.want[:3]; !slices.Equal(got, want) || h.Total != 6 {
		t.Fatalf("history %q of %d, want %q of 6", got, h.Total, want)
	}
}
