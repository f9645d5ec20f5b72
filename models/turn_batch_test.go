package models_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

// batchWorld is the accounts and threads the batch tests ask into.
type batchWorld struct {
	t     *testing.T
	db    *pgtest.DB
	convs *models.Conversations
	msgs  *models.Messages
	now   time.Time
}

func newBatchWorld(t *testing.T) *batchWorld {
	t.Helper()
	db := pgtest.New(t)
	return &batchWorld{t: t, db: db, convs: models.NewConversations(db.DB), msgs: models.NewMessages(db.DB),
		now: time.Date(2025, 3, 14, 9, 0, 0, 0, time.UTC)}
}

// user is a new account of plan that has already asked used questions this month.
func (w *batchWorld) user(plan string, used int) string {
	w.t.Helper()
	u := newUser(w.t, w.db, plan)
	w.exec(`UPDATE users SET locale = 'es' WHERE id = ?`, u)
	if used > 0 {
		w.exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, ?)`, u, models.Period(w.now), used)
	}
	return u
}

// conv is a new tutor thread of u.
func (w *batchWorld) conv(u string) string {
	w.t.Helper()
	c, err := w.convs.Create(context.Background(), u, models.ModeTutor, "", 0, "")
	if err != nil {
		w.t.Fatal(err)
	}
	return c.ID
}

func (w *batchWorld) exec(q string, args ...any) {
	w.t.Helper()
	if err := w.db.Exec(q, args...).Error; err != nil {
		w.t.Fatal(err)
	}
}

func (w *batchWorld) int(q string, args ...any) int {
	w.t.Helper()
	var n int
	if err := w.db.Raw(q, args...).Row().Scan(&n); err != nil {
		w.t.Fatal(err)
	}
	return n
}

// used is u's count of the month.
func (w *batchWorld) used(u string) int {
	w.t.Helper()
	return w.int(`SELECT coalesce(sum(questions), 0) FROM plan_usage WHERE user_id = ?`, u)
}

// ask is a question of u in c under a lease of its own.
func (w *batchWorld) ask(u, c string, n int) models.TurnInput {
	return models.TurnInput{UserID: u, ConversationID: c, Content: fmt.Sprintf("question %d", n),
		AssistantID: newUUID(w.t, w.db), Now: w.now,
		Lease: models.Lease{Owner: fmt.Sprintf("instance-%d", n), TTL: time.Duration(n+1) * time.Minute}}
}

// wrote says what exists of ask in: 0 messages when refused, else its two.
func (w *batchWorld) wrote(in models.TurnInput) int {
	w.t.Helper()
	return w.int(`SELECT count(*) FROM messages WHERE id = ? OR (conversation_id = ? AND content = ?)`,
		in.AssistantID, in.ConversationID, in.Content)
}

// sameErr fails unless err is want: the same *QuotaError figures, or errors.Is.
func sameErr(t *testing.T, err, want error) {
	t.Helper()
	var q, wantQ *models.QuotaError
	if !errors.As(want, &wantQ) {
		if !errors.Is(err, want) {
			t.Fatalf("err %v, want %v", err, want)
		}
		return
	}
	if !errors.As(err, &q) || q.Plan != wantQ.Plan || q.Used != wantQ.Used || q.Limit != wantQ.Limit || !q.ResetAt.Equal(wantQ.ResetAt) {
		t.Fatalf("err %v, want %v", err, want)
	}
}

// TestRecordTurnBatchKeepsEveryCallersRules runs asks of every kind as
// one statement: each caller gets what it would get alone.
func TestRecordTurnBatchKeepsEveryCallersRules(t *testing.T) {
	w := newBatchWorld(t)
	ctx := context.Background()
	partly, fresh, spent, pro := w.user(models.PlanFree, 1), w.user(models.PlanFree, 0), w.user(models.PlanFree, 3), w.user(models.PlanPro, 0)
	stranger := w.user(models.PlanPro, 0)
	partlyC, freshA, freshB, spentC, proC, proC2 := w.conv(partly), w.conv(fresh), w.conv(fresh), w.conv(spent), w.conv(pro), w.conv(pro)
	deleted, check := w.conv(stranger), ""
	if err := w.convs.Delete(ctx, stranger, deleted); err != nil {
		t.Fatal(err)
	}
	if err := w.db.Raw(`INSERT INTO conversations (user_id, mode) VALUES (?, 'check') RETURNING id`, stranger).Row().Scan(&check); err != nil {
		t.Fatal(err)
	}
	withContext, err := w.convs.CreateWithContext(ctx, stranger, models.ModeTutor, "", 0, "",
		[]models.ContextTurn{{Role: models.RoleUser, Content: "earlier"}})
	if err != nil {
		t.Fatal(err)
	}
	refused := func(used int) error {
		return &models.QuotaError{Plan: models.PlanFree, Used: used, Limit: 3, ResetAt: time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)}
	}
	tests := []struct {
		name       string
		user, c    string
		want       error
		seq        int // the question's seq when admitted
		hasContext bool
	}{
		{"partly used, first", partly, partlyC, nil, 0, false},
		{"someone else's thread", stranger, partlyC, models.ErrNotFound, 0, false},
		{"partly used, second", partly, partlyC, nil, 2, false},
		{"partly used, one too many", partly, partlyC, refused(3), 0, false},
		{"no usage yet, thread A", fresh, freshA, nil, 0, false},
		{"no usage yet, thread B", fresh, freshB, nil, 0, false},
		{"a deleted thread", stranger, deleted, models.ErrNotFound, 0, false},
		{"no usage yet, thread A again", fresh, freshA, nil, 2, false},
		{"no usage yet, one too many", fresh, freshB, refused(3), 0, false},
		{"quota spent", spent, spentC, refused(3), 0, false},
		{"a knowledge check", stranger, check, models.ErrNotFound, 0, false},
		{"unlimited, first", pro, proC, nil, 0, false},
		{"unlimited, other thread", pro, proC2, nil, 0, false},
		{"unlimited, second", pro, proC, nil, 2, false},
		{"unlimited, third", pro, proC, nil, 4, false},
		{"earlier context", stranger, withContext.ID, nil, 0, true},
	}
	ins := make([]models.TurnInput, len(tests))
	for i, tt := range tests {
		ins[i] = w.ask(tt.user, tt.c, i)
	}
	outs, errs := models.RecordTurnBatch(w.msgs, ctx, ins)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn, err := outs[i], errs[i]
			if tt.want != nil {
				sameErr(t, err, tt.want)
				if n := w.wrote(ins[i]); n != 0 {
					t.Fatalf("%d messages written for a refused ask", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if turn.Conversation.ID != tt.c || turn.User.Seq != tt.seq || turn.Assistant.Seq != tt.seq+1 ||
				turn.Conversation.NextSeq != tt.seq+2 || turn.Assistant.ID != ins[i].AssistantID || turn.HasContext != tt.hasContext ||
				turn.Locale != "es" || !turn.QuotaPeriod.Equal(models.Period(w.now)) {
				t.Fatalf("turn %+v", turn)
			}
			var owner string
			var ttl float64
			if err := w.db.Raw(`SELECT lease_owner, extract(epoch FROM lease_until - now()) FROM messages WHERE id = ?`,
				turn.Assistant.ID).Row().Scan(&owner, &ttl); err != nil {
				t.Fatal(err)
			}
			if wantTTL := float64(i + 1); owner != ins[i].Lease.Owner || ttl < wantTTL*60-30 || ttl > wantTTL*60 {
				t.Fatalf("lease %s for %.0fs, want %s for %.0fs", owner, ttl, ins[i].Lease.Owner, wantTTL*60)
			}
			if n := w.wrote(ins[i]); n != 2 {
				t.Fatalf("%d messages written, want 2", n)
			}
		})
	}
	for _, c := range []struct {
		user string
		want int
	}{{partly, 3}, {fresh, 3}, {spent, 3}, {pro, 4}, {stranger, 1}} {
		if got := w.used(c.user); got != c.want {
			t.Errorf("plan_usage %d, want %d", got, c.want)
		}
	}
	for c, want := range map[string]int{partlyC: 4, freshA: 4, freshB: 2, spentC: 0, proC: 6, proC2: 2, deleted: 0, check: 0} {
		if got := w.int(`SELECT next_seq FROM conversations WHERE id = ?`, c); got != want {
			t.Errorf("thread next_seq %d, want %d", got, want)
		}
	}
	if got := w.int(`SELECT count(*) FROM users WHERE id = ? AND active_conversation_id = ?`, pro, proC); got != 1 {
		t.Error("the active thread is not the one the last admitted ask went to")
	}
	if title := w.int(`SELECT count(*) FROM conversations WHERE id = ? AND title = ?`, proC, ins[11].Content); title != 1 {
		t.Error("the thread's title is not its first question")
	}
}

// TestBeginTurnClassAtOnce: a class asks at once through BeginTurn (the
// asks that meet are batched): 20 FREE students, partly used, three
// asks each; one PRO student's ten asks into one thread; asks into
// someone else's and a deleted thread. Every quota is exact, every
// thread's seqs consecutive, and the refused wrote nothing.
func TestBeginTurnClassAtOnce(t *testing.T) {
	w := newBatchWorld(t)
	ctx := context.Background()
	type student struct{ user, conv string }
	var class []student
	for i := range 20 {
		u := w.user(models.PlanFree, i%3)
		class = append(class, student{u, w.conv(u)})
	}
	pro, stranger := w.user(models.PlanPro, 0), w.user(models.PlanPro, 0)
	proC, deleted := w.conv(pro), w.conv(stranger)
	if err := w.convs.Delete(ctx, stranger, deleted); err != nil {
		t.Fatal(err)
	}
	var ins []models.TurnInput
	for round := range 3 {
		for _, s := range class {
			ins = append(ins, w.ask(s.user, s.conv, len(ins)))
		}
		ins = append(ins, w.ask(stranger, class[round].conv, len(ins)), w.ask(stranger, deleted, len(ins)+1))
	}
	for range 10 {
		ins = append(ins, w.ask(pro, proC, len(ins)))
	}
	outs, errs := make([]*models.Turn, len(ins)), make([]error, len(ins))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, in := range ins {
		wg.Go(func() {
			<-start
			outs[i], errs[i] = w.msgs.BeginTurn(ctx, in)
		})
	}
	close(start)
	wg.Wait()

	admitted := map[string]int{}
	for i, in := range ins {
		switch {
		case in.UserID == stranger:
			sameErr(t, errs[i], models.ErrNotFound)
		case errs[i] == nil:
			admitted[in.UserID]++
		default:
			sameErr(t, errs[i], &models.QuotaError{Plan: models.PlanFree, Used: 3, Limit: 3, ResetAt: models.NextPeriod(w.now)})
		}
		if errs[i] != nil && w.wrote(in) != 0 {
			t.Errorf("ask %d was refused (%v) but wrote messages", i, errs[i])
		}
	}
	for i, s := range class {
		if want := 3 - i%3; admitted[s.user] != want || w.used(s.user) != 3 {
			t.Errorf("student %d (used %d): %d admitted, plan_usage %d; want %d and 3", i, i%3, admitted[s.user], w.used(s.user), want)
		}
		w.consecutive(s.conv, 2*admitted[s.user])
	}
	if admitted[pro] != 10 || w.used(pro) != 10 || w.used(stranger) != 0 {
		t.Errorf("pro: %d admitted, plan_usage %d; stranger counted %d", admitted[pro], w.used(pro), w.used(stranger))
	}
	w.consecutive(proC, 20)
	if n := w.int(`SELECT count(*) FROM messages WHERE conversation_id = ? OR user_id = ?`, deleted, stranger); n != 0 {
		t.Errorf("%d messages in the deleted thread or of the stranger", n)
	}
}

// consecutive fails unless thread c holds n messages with seqs 0..n-1,
// a question then its answer, and next_seq n.
func (w *batchWorld) consecutive(c string, n int) {
	w.t.Helper()
	var seqs []struct {
		Seq  int
		Role string
	}
	if err := w.db.Raw(`SELECT seq, role FROM messages WHERE conversation_id = ? ORDER BY seq`, c).Scan(&seqs).Error; err != nil {
		w.t.Fatal(err)
	}
	ok := len(seqs) == n && w.int(`SELECT next_seq FROM conversations WHERE id = ?`, c) == n
	for i, s := range seqs {
		ok = ok && s.Seq == i && (s.Role == models.RoleUser) == (i%2 == 0)
	}
	if !ok {
		w.t.Errorf("thread %s holds %v, want %d consecutive seqs", c, seqs, n)
	}
}
