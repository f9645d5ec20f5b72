package models_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// Version counts read together, as a class's answers ending at once ask
// for them, each count its own answer's and scoped by its user: someone
// else's answer counts one version, as a missing one does.
func TestVersionCountsReadTogether(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if err := db.Exec(q, args...).Error; err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	answer := func(user string, versions int) string {
		t.Helper()
		c, err := models.NewConversations(db.DB).Create(ctx, user, models.ModeTutor, "", 0, "")
		if err != nil {
			t.Fatal(err)
		}
		var id string
		if err := db.Raw(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status)
			VALUES (?, ?, 1, 'assistant', 'answer', 'complete') RETURNING id`, c.ID, user).Row().Scan(&id); err != nil {
			t.Fatal(err)
		}
		for v := 1; v <= versions; v++ {
			exec(`INSERT INTO message_versions (message_id, user_id, version, content) VALUES (?, ?, ?, 'earlier')`, id, user, v)
		}
		return id
	}
	a, b := newUser(t, db, models.PlanPro), newUser(t, db, models.PlanPro)
	a2, a0, b1 := answer(a, 2), answer(a, 0), answer(b, 1)

	got, err := models.ReadVersionCounts(db.DB, a, []string{a2, a0, b1, a2})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 0, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("one statement: kept versions %v, want %v (b's answer is not a's)", got, want)
	}

	msgs := models.NewMessages(db.DB)
	cases := []struct {
		user, answer string
		want         int
	}{{a, a2, 3}, {a, a0, 1}, {b, b1, 2}, {a, b1, 1}, {b, a2, 1}}
	var wg sync.WaitGroup
	for range 10 {
		for _, c := range cases {
			wg.Go(func() {
				counts, err := msgs.VersionCounts(ctx, c.user, []string{c.answer})
				if err != nil || counts[c.answer] != c.want {
					t.Errorf("%s's count of %s: %d (%v), want %d", c.user, c.answer, counts[c.answer], err, c.want)
				}
			})
		}
	}
	wg.Wait()
}
