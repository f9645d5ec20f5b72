package models_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

func newUser(t *testing.T, db *pgtest.DB, plan string) string {
	t.Helper()
	var id string
	err := db.Raw(`INSERT INTO users (email, password_hash, name, plan) VALUES (?, 'x', 'T', ?) RETURNING id`,
		fmt.Sprintf("c%d@example.com", time.Now().UnixNano()), plan).Row().Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestConversationsListDeleteScoped(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	convs := models.NewConversations(db.DB)
	msgs := models.NewMessages(db.DB)
	u, other := newUser(t, db, models.PlanPro), newUser(t, db, models.PlanPro)
	base := time.Date(2025, 5, 1, 10, 0, 0, 0, time.UTC)
	var ids []string
	for i := range 5 {
		c, err := convs.Create(ctx, u, models.ModeTutor, "", 0, "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
		if i == 4 {
			continue // an empty thread is not listed
		}
		if _, err := msgs.BeginTurn(ctx, models.TurnInput{UserID: u, ConversationID: c.ID, Content: fmt.Sprintf("q%d", i),
			AssistantID: fmt.Sprintf("00000000-0000-0000-0000-%012d", i+1), Now: base.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	page, next, err := convs.List(ctx, u, models.ListOptions{Limit: 2})
	if err != nil || len(page) != 2 || next == nil || page[0].ID != ids[3] || page[1].ID != ids[2] {
		t.Fatalf("first page %v next %v err %v", page, next, err)
	}
	page, next, err = convs.List(ctx, u, models.ListOptions{Limit: 2, After: next})
	if err != nil || len(page) != 2 || next != nil || page[0].ID != ids[1] || page[1].ID != ids[0] {
		t.Fatalf("second page %v next %v err %v", page, next, err)
	}
	if got, _, _ := convs.List(ctx, other, models.ListOptions{}); len(got) != 0 {
		t.Fatalf("another user sees %d threads", len(got))
	}
	tests := []struct {
		name string
		err  error
	}{
		{"get", func() error { _, err := convs.Get(ctx, other, ids[0]); return err }()},
		{"delete", convs.Delete(ctx, other, ids[0])},
		{"set style", convs.SetStyle(ctx, other, ids[0], models.StyleGuide)},
		{"list messages", func() error { _, err := msgs.ListByConversation(ctx, other, ids[0]); return err }()},
		{"bad id", convs.Delete(ctx, u, "nope")},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, models.ErrNotFound) {
			t.Errorf("%s by someone else: %v, want ErrNotFound", tt.name, tt.err)
		}
	}
	if err := convs.Delete(ctx, u, ids[3]); err != nil {
		t.Fatal(err)
	}
	if _, err := convs.Get(ctx, u, ids[3]); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("deleted thread still readable: %v", err)
	}
	if page, _, _ := convs.List(ctx, u, models.ListOptions{}); len(page) != 3 {
		t.Fatalf("%d threads after delete", len(page))
	}
}

func TestRateOnlyCompleteAnswers(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	u, other := newUser(t, db, models.PlanPro), newUser(t, db, models.PlanPro)
	c, err := models.NewConversations(db.DB).Create(ctx, u, models.ModeTutor, "", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	msgs := models.NewMessages(db.DB)
	turn, err := msgs.BeginTurn(ctx, models.TurnInput{UserID: u, ConversationID: c.ID, Content: "q",
		AssistantID: "00000000-0000-0000-0000-000000000001", Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	a := turn.Assistant.ID
	if err := msgs.Rate(ctx, u, a, models.RatingUp, "", ""); !errors.Is(err, models.ErrNotRateable) {
		t.Fatalf("rating a streaming answer: %v", err)
	}
	if _, err := msgs.Finish(ctx, a, models.FinishInput{Status: models.StatusComplete, Content: "answer", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                     string
		user, id, rating, reason string
		want                     error
	}{
		{"someone else's", other, a, models.RatingUp, "", models.ErrNotFound},
		{"a question", u, turn.User.ID, models.RatingUp, "", models.ErrNotRateable},
		{"bad rating", u, a, "meh", "", models.ErrInvalidRating},
		{"bad reason", u, a, models.RatingDown, "because", models.ErrInvalidReason},
		{"down with reason", u, a, models.RatingDown, "answer_wrong", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := msgs.Rate(ctx, tt.user, tt.id, tt.rating, tt.reason, "a comment"); !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
		})
	}
	m, err := msgs.Get(ctx, u, a)
	if err != nil || m.Rating == nil || *m.Rating != models.RatingDown || m.RatingReason == nil || m.RatingComment != "a comment" || m.RatedAt == nil {
		t.Fatalf("stored rating %+v %v", m, err)
	}
}
