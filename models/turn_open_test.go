package models_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"aula/models"
)

// opens is a question of u opening a new thread of mode (about lesson
// or module when given).
func (w *batchWorld) opens(u, mode, lesson string, module int64, n int) models.TurnInput {
	w.t.Helper()
	c, err := models.NewThread(u, mode, lesson, module, "")
	if err != nil {
		w.t.Fatal(err)
	}
	in := w.ask(u, c.ID, n)
	in.Opens = c
	return in
}

// threads is how many conversations u has.
func (w *batchWorld) threads(u string) int {
	w.t.Helper()
	return w.int(`SELECT count(*) FROM conversations WHERE user_id = ?`, u)
}

// recordAlone records each ask alone, one after the other: the single
// statement, as BeginTurn runs an ask that meets no other.
func recordAlone(w *batchWorld, ins []models.TurnInput) ([]*models.Turn, []error) {
	outs, errs := make([]*models.Turn, len(ins)), make([]error, len(ins))
	for i, in := range ins {
		outs[i], errs[i] = w.msgs.BeginTurn(context.Background(), in)
	}
	return outs, errs
}

// Questions opening new threads, mixed with questions in existing ones,
// are recorded alike by the batch statement and the single one: a new
// thread is stored with its question (seqs 0 and 1, titled by it, the
// user's active one, a lesson thread in its lesson's module) only when
// the question is admitted; an unknown lesson or a refused question
// leaves no thread behind.
func TestQuestionsOpeningThreads(t *testing.T) {
	record := map[string]func(*batchWorld, []models.TurnInput) ([]*models.Turn, []error){
		"batch": func(w *batchWorld, ins []models.TurnInput) ([]*models.Turn, []error) {
			return models.RecordTurnBatch(w.msgs, context.Background(), ins)
		},
		"alone": recordAlone,
	}
	for name, run := range record {
		t.Run(name, func(t *testing.T) {
			w := newBatchWorld(t)
			seedChunks(t, w.db)
			pro, free, stranger := w.user(models.PlanPro, 0), w.user(models.PlanFree, 2), w.user(models.PlanPro, 0)
			proC := w.conv(pro)
			refused := &models.QuotaError{Plan: models.PlanFree, Used: 3, Limit: 3, ResetAt: time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)}
			tests := []struct {
				name   string
				in     models.TurnInput
				want   error
				seq    int
				module int64 // the new thread's module, 0 none
			}{
				{"existing thread", w.ask(pro, proC, 0), nil, 0, 0},
				{"opens a tutor thread", w.opens(pro, models.ModeTutor, "", 0, 1), nil, 0, 0},
				{"opens a lesson thread", w.opens(pro, models.ModeLesson, "routing", 0, 2), nil, 0, 2},
				{"opens a thread about a module", w.opens(pro, models.ModeTutor, "", 1, 3), nil, 0, 1},
				{"opens a thread of an unknown lesson", w.opens(pro, models.ModeLesson, "nope", 0, 4), models.ErrNotFound, 0, 0},
				{"someone else's thread", w.ask(stranger, proC, 5), models.ErrNotFound, 0, 0},
				{"existing thread again", w.ask(pro, proC, 6), nil, 2, 0},
				{"opens the last question of the month", w.opens(free, models.ModeLesson, "vlans", 0, 7), nil, 0, 1},
				{"opens one too many", w.opens(free, models.ModeTutor, "", 0, 8), refused, 0, 0},
			}
			ins := make([]models.TurnInput, len(tests))
			for i, tt := range tests {
				ins[i] = tt.in
			}
			outs, errs := run(w, ins)
			for i, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if tt.want != nil {
						sameErr(t, errs[i], tt.want)
						if n := w.wrote(tt.in); n != 0 || w.int(`SELECT count(*) FROM conversations WHERE id = ?`, tt.in.ConversationID) != btoi(tt.in.Opens == nil) {
							t.Fatalf("a refused question wrote %d messages or its new thread", n)
						}
						return
					}
					if errs[i] != nil {
						t.Fatal(errs[i])
					}
					w.checkTurn(t, outs[i], tt.in, tt.seq, tt.module)
				})
			}
			w.consecutive(proC, 4)
			w.openedTotals(t, pro, free, stranger, ins[7].ConversationID)
		})
	}
}

// openedTotals checks what TestQuestionsOpeningThreads's users were
// counted and hold: pro's two questions in its thread and three
// opening threads, free's one, none of the stranger's; free's active
// thread is the one its question opened.
func (w *batchWorld) openedTotals(t *testing.T, pro, free, stranger, freeThread string) {
	t.Helper()
	if w.used(pro) != 5 || w.used(free) != 3 || w.used(stranger) != 0 {
		t.Errorf("plan_usage pro %d, free %d, stranger %d; want 5, 3, 0", w.used(pro), w.used(free), w.used(stranger))
	}
	if w.threads(pro) != 4 || w.threads(free) != 1 || w.threads(stranger) != 0 {
		t.Errorf("threads pro %d, free %d, stranger %d; want 4, 1, 0", w.threads(pro), w.threads(free), w.threads(stranger))
	}
	if w.int(`SELECT count(*) FROM users WHERE id = ? AND active_conversation_id = ?`, free, freeThread) != 1 {
		t.Error("the thread a question opened is not the user's active one")
	}
}

// checkTurn fails unless turn is in recorded at seq; a thread it opened
// must be stored as the turn shows it: titled by its question, in
// module (0 none), holding the question and its answer only.
func (w *batchWorld) checkTurn(t *testing.T, turn *models.Turn, in models.TurnInput, seq int, module int64) {
	t.Helper()
	c := turn.Conversation
	if c.ID != in.ConversationID || turn.User.Seq != seq || turn.Assistant.Seq != seq+1 || c.NextSeq != seq+2 ||
		turn.Assistant.ID != in.AssistantID || turn.HasContext || turn.Locale != "es" {
		t.Fatalf("turn %+v", turn)
	}
	o := in.Opens
	if o == nil {
		return
	}
	if c.Mode != o.Mode || c.Style != o.Style || !sameLesson(c.LessonID, o.LessonID) || c.Title != models.TitleFrom(in.Content) ||
		(module == 0) != (c.ModuleID == nil) || (module != 0 && *c.ModuleID != module) {
		t.Fatalf("opened %+v (module %v), want %+v in module %d", c, c.ModuleID, o, module)
	}
	var stored models.Conversation
	if err := w.db.Where("id = ?", c.ID).Take(&stored).Error; err != nil {
		t.Fatal(err)
	}
	stored.DeletedAt = c.DeletedAt
	if stored.UserID != in.UserID || stored.Title != c.Title || stored.Mode != c.Mode || stored.Style != c.Style ||
		!sameLesson(stored.LessonID, c.LessonID) || (stored.ModuleID == nil) != (c.ModuleID == nil) ||
		stored.NextSeq != c.NextSeq || !stored.CreatedAt.Equal(c.CreatedAt) || !stored.LastActivityAt.Equal(c.LastActivityAt) {
		t.Fatalf("stored %+v, the turn shows %+v", stored, c)
	}
	w.consecutive(c.ID, 2)
}

func sameLesson(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// One account's questions each opening a thread, more than its quota
// leaves, in one batch: exactly the remaining ones are admitted (the
// first ones), plan_usage counts them exactly, and the refused leave no
// thread.
func TestOpeningThreadsAtTheQuotaLimit(t *testing.T) {
	w := newBatchWorld(t)
	ctx := context.Background()
	tests := []struct {
		name       string
		plan       string
		used, asks int
		admitted   int
	}{
		{"free, none used", models.PlanFree, 0, 5, 3},
		{"free, two used", models.PlanFree, 2, 4, 1},
		{"free, all used", models.PlanFree, 3, 3, 0},
		{"pro", models.PlanPro, 0, 8, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := w.user(tt.plan, tt.used)
			ins := make([]models.TurnInput, tt.asks)
			for i := range ins {
				ins[i] = w.opens(u, models.ModeTutor, "", 0, i)
			}
			outs, errs := models.RecordTurnBatch(w.msgs, ctx, ins)
			for i, in := range ins {
				if i >= tt.admitted {
					sameErr(t, errs[i], &models.QuotaError{Plan: tt.plan, Used: models.PlanLimit(tt.plan), Limit: models.PlanLimit(tt.plan),
						ResetAt: models.NextPeriod(w.now)})
					continue
				}
				if errs[i] != nil {
					t.Fatalf("ask %d: %v", i, errs[i])
				}
				w.checkTurn(t, outs[i], in, 0, 0)
			}
			if got := w.used(u); got != tt.used+tt.admitted {
				t.Errorf("plan_usage %d, want %d", got, tt.used+tt.admitted)
			}
			if got := w.threads(u); got != tt.admitted {
				t.Errorf("%d threads, want %d (none for a refused question)", got, tt.admitted)
			}
		})
	}
}

// A class asks at once through BeginTurn, every question opening its own
// thread (the batcher groups them as they meet): 15 FREE students, partly
// used, five questions each, and a PRO student's twenty. Each student
// gets exactly the questions the quota leaves, a thread for each and
// none for the refused, and plan_usage counts them exactly.
func TestOpeningThreadsAtOnce(t *testing.T) {
	w := newBatchWorld(t)
	ctx := context.Background()
	var students []string
	var ins []models.TurnInput
	for i := range 15 {
		students = append(students, w.user(models.PlanFree, i%4))
	}
	pro := w.user(models.PlanPro, 0)
	for range 5 {
		for _, u := range students {
			ins = append(ins, w.opens(u, models.ModeTutor, "", 0, len(ins)))
		}
	}
	for range 20 {
		ins = append(ins, w.opens(pro, models.ModeTutor, "", 0, len(ins)))
	}
	errs := make([]error, len(ins))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, in := range ins {
		wg.Go(func() {
			<-start
			_, errs[i] = w.msgs.BeginTurn(ctx, in)
		})
	}
	close(start)
	wg.Wait()
	admitted := map[string]int{}
	for i, in := range ins {
		if errs[i] == nil {
			admitted[in.UserID]++
			w.consecutive(in.ConversationID, 2)
			continue
		}
		sameErr(t, errs[i], &models.QuotaError{Plan: models.PlanFree, Used: 3, Limit: 3, ResetAt: models.NextPeriod(w.now)})
	}
	for i, u := range students {
		if want := 3 - i%4; admitted[u] != want || w.used(u) != 3 || w.threads(u) != want {
			t.Errorf("student %d (used %d): %d admitted, plan_usage %d, %d threads; want %d, 3, %d",
				i, i%4, admitted[u], w.used(u), w.threads(u), want, want)
		}
	}
	if admitted[pro] != 20 || w.used(pro) != 20 || w.threads(pro) != 20 {
		t.Errorf("pro: %d admitted, plan_usage %d, %d threads; want 20 each", admitted[pro], w.used(pro), w.threads(pro))
	}
}
