package models_test

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
)

// manyAtOnce runs check(i) for i in [0, calls) all at the same moment, so
// the reads share batched statements, and reports every failure.
func manyAtOnce(t *testing.T, calls int, check func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	start := make(chan struct{})
	for i := range calls {
		wg.Go(func() {
			<-start
			if err := check(i); err != nil {
				errs <- fmt.Errorf("call %d: %w", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// sessionCase is a session to load and what it holds ("" data: not found).
type sessionCase struct{ id, data, user string }

// storeSessions saves live sessions of several users, a session without
// a user and an expired one, and returns the cases to load, an unknown
// id among them.
func storeSessions(t *testing.T, db *pgtest.DB, sessions *models.Sessions) []sessionCase {
	t.Helper()
	ctx := context.Background()
	live := time.Now().Add(time.Hour)
	var cases []sessionCase
	for i := range 4 {
		u := newUser(t, db, models.PlanFree)
		c := sessionCase{id: fmt.Sprintf("live-%d", i), data: "values of " + u, user: u}
		if err := sessions.Save(ctx, c.id, u, []byte(c.data), live); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	anon := sessionCase{id: "anonymous", data: "a visitor's values"}
	if err := sessions.Save(ctx, anon.id, "", []byte(anon.data), live); err != nil {
		t.Fatal(err)
	}
	expired := newUser(t, db, models.PlanFree)
	if err := sessions.Save(ctx, "expired", expired, []byte("old values"), time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	return append(cases, anon, sessionCase{id: "expired"}, sessionCase{id: "unknown"})
}

// TestSessionsLoadInParallel has many requests load their sessions at the
// same moment: live sessions of several users (one named by many calls),
// a session without a user, an expired and an unknown one. Each call gets
// its own session's values and user, or ErrNotFound.
func TestSessionsLoadInParallel(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	sessions := models.NewSessions(db.DB)
	cases := storeSessions(t, db, sessions)

	manyAtOnce(t, 150, func(i int) error {
		w := cases[i%len(cases)]
		if i%3 == 0 {
			w = cases[0] // one browser's requests at once
		}
		got, err := sessions.Load(ctx, w.id)
		switch {
		case w.data == "":
			if !errors.Is(err, models.ErrNotFound) {
				return fmt.Errorf("session %s: %v, want ErrNotFound", w.id, err)
			}
			return nil
		case err != nil:
			return fmt.Errorf("session %s: %w", w.id, err)
		case string(got.Data) != w.data:
			return fmt.Errorf("session %s has values %q, want %q", w.id, got.Data, w.data)
		case w.user == "" && got.User != nil:
			return fmt.Errorf("anonymous session has user %s", got.User.ID)
		case w.user != "" && (got.User == nil || got.User.ID != w.user || got.User.Plan != models.PlanFree):
			return fmt.Errorf("session %s has user %+v, want %s", w.id, got.User, w.user)
		}
		if got.User != nil {
			got.User.Name = "changed by one caller" // each caller's user is its own
		}
		return nil
	})
	got, err := sessions.Load(ctx, cases[0].id)
	if err != nil || got.User.Name != "T" {
		t.Fatalf("after the burst: %+v %v", got, err)
	}
	// In a transaction the read is the transaction's own.
	err = models.WithTx(ctx, db.DB, func(ctx context.Context) error {
		got, err := sessions.Load(ctx, cases[1].id)
		if err != nil || got.User == nil || got.User.ID != cases[1].user {
			return fmt.Errorf("in a transaction: %+v %v", got, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestConversationsGetInParallel has many requests read threads at the
// same moment: each user's own (one thread by many calls, one spelled in
// capitals), someone else's, a deleted one and an unknown id. Only the
// user's own live thread is found; everything else is ErrNotFound.
func TestConversationsGetInParallel(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	convs := models.NewConversations(db.DB)
	type want struct {
		user, id string
		found    bool
	}
	var cases []want
	var users []string
	for range 3 {
		u := newUser(t, db, models.PlanFree)
		c, err := convs.Create(ctx, u, models.ModeTutor, "", 0, "")
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
		cases = append(cases, want{u, c.ID, true})
	}
	gone, err := convs.Create(ctx, users[0], models.ModeTutor, "", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := convs.Delete(ctx, users[0], gone.ID); err != nil {
		t.Fatal(err)
	}
	cases = append(cases,
		want{users[1], strings.ToUpper(cases[1].id), true}, // the same thread, spelled in capitals
		want{users[1], cases[0].id, false},                 // someone else's
		want{users[0], gone.ID, false},                     // deleted
		want{users[2], "00000000-0000-4000-8000-000000000000", false},
		want{users[2], "not-a-uuid", false})

	manyAtOnce(t, 150, func(i int) error {
		w := cases[i%len(cases)]
		if i%3 == 0 {
			w = cases[0]
		}
		c, err := convs.Get(ctx, w.user, w.id)
		switch {
		case !w.found:
			if !errors.Is(err, models.ErrNotFound) {
				return fmt.Errorf("thread %s of %s: %v %v, want ErrNotFound", w.id, w.user, c, err)
			}
		case err != nil:
			return fmt.Errorf("thread %s of %s: %w", w.id, w.user, err)
		case c.ID != strings.ToLower(w.id) || c.UserID != w.user || c.Mode != models.ModeTutor:
			return fmt.Errorf("thread %s of %s: got %+v", w.id, w.user, c)
		}
		return nil
	})
}

// TestQuotaUsageInParallel has many requests read the month's counts at
// the same moment: users with different counts and plans (one read by
// many calls), and an unknown user (ErrNotFound).
func TestQuotaUsageInParallel(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	quotas := models.NewQuotas(db.DB)
	now := time.Now().UTC()
	type want struct {
		user, plan string
		used       int
	}
	var cases []want
	for i, plan := range []string{models.PlanFree, models.PlanFree, models.PlanPro} {
		u := newUser(t, db, plan)
		if i > 0 {
			db.Exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, ?)`, u, models.Period(now), i*3)
		}
		// Last month's count is not this month's.
		db.Exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 7)`, u, models.Period(now).AddDate(0, -1, 0))
		cases = append(cases, want{u, plan, i * 3})
	}
	cases = append(cases, want{user: "00000000-0000-4000-8000-000000000000"})

	manyAtOnce(t, 120, func(i int) error {
		w := cases[i%len(cases)]
		if i%3 == 0 {
			w = cases[1]
		}
		got, err := quotas.Usage(ctx, w.user, now)
		switch {
		case w.plan == "":
			if !errors.Is(err, models.ErrNotFound) {
				return fmt.Errorf("unknown user: %+v %v, want ErrNotFound", got, err)
			}
		case err != nil:
			return fmt.Errorf("usage of %s: %w", w.user, err)
		case got.Plan != w.plan || got.Used != w.used || got.Limit != models.PlanLimit(w.plan) ||
			!got.Period.Equal(models.Period(now)):
			return fmt.Errorf("usage of %s: %+v, want plan %s, %d used", w.user, got, w.plan, w.used)
		}
		return nil
	})
}
