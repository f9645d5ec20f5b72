package models_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"aula/models"
)

// TestCreateConversationsAtOnce: conversations opened together through
// CreateWithContext are created as Create would, each caller with its own
// answer.
func TestCreateConversationsAtOnce(t *testing.T) {
	w := newBatchWorld(t)
	(&fx{t: t, db: w.db}).content()
	u := w.user(models.PlanPro, 0)
	str := func(s string) *string { return &s }
	num := func(n int64) *int64 { return &n }
	tests := []struct {
		name                string
		mode, lesson        string
		module              int64
		style               string
		want                error
		wantModule          *int64
		wantMode, wantStyle string
	}{
		{"tutor by default", "", "", 0, "", nil, nil, models.ModeTutor, models.StyleExplain},
		{"a lesson gives its module", models.ModeLesson, "l1-vlans", 0, models.StyleGuide, nil, num(1), models.ModeLesson, models.StyleGuide},
		{"a module given wins", models.ModeTutor, "l2-subnets", 1, "", nil, num(1), models.ModeTutor, models.StyleExplain},
		{"a module alone", models.ModeHelp, "", 2, "", nil, num(2), models.ModeHelp, models.StyleExplain},
		{"an unknown lesson", models.ModeLesson, "no-such-lesson", 0, "", models.ErrNotFound, nil, "", ""},
		{"a bad mode", "chat", "", 0, "", models.ErrInvalidMode, nil, "", ""},
		{"a bad style", models.ModeTutor, "", 0, "loud", models.ErrInvalidStyle, nil, "", ""},
		{"a lesson mode without a lesson", models.ModeLesson, "", 0, "", models.ErrNoLesson, nil, "", ""},
	}
	check := func(t *testing.T, i int, c *models.Conversation, err error) {
		t.Helper()
		tt := tests[i%len(tests)]
		if !errors.Is(err, tt.want) {
			t.Fatalf("%s: err %v, want %v", tt.name, err, tt.want)
		}
		if tt.want != nil {
			return
		}
		lesson := str(tt.lesson)
		if tt.lesson == "" {
			lesson = nil
		}
		if c.ID == "" || c.UserID != u || c.Mode != tt.wantMode || c.Style != tt.wantStyle || c.NextSeq != 0 || c.Title != "" ||
			(c.LessonID == nil) != (lesson == nil) || lesson != nil && *c.LessonID != *lesson ||
			(c.ModuleID == nil) != (tt.wantModule == nil) || tt.wantModule != nil && *c.ModuleID != *tt.wantModule ||
			c.CreatedAt.IsZero() || c.LastActivityAt.IsZero() {
			t.Fatalf("%s: %+v", tt.name, c)
		}
		if got, err := w.convs.Get(context.Background(), u, c.ID); err != nil || got.Mode != c.Mode || got.Style != c.Style {
			t.Fatalf("%s: stored %+v %v", tt.name, got, err)
		}
	}

	t.Run("through CreateWithContext at once", func(t *testing.T) {
		before := w.int(`SELECT count(*) FROM conversations`)
		const n = 5 * 8
		outs, errs := make([]*models.Conversation, n), make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			tt := tests[i%len(tests)]
			wg.Go(func() {
				<-start
				outs[i], errs[i] = w.convs.CreateWithContext(context.Background(), u, tt.mode, tt.lesson, tt.module, tt.style, nil)
			})
		}
		close(start)
		wg.Wait()
		for i := range n {
			check(t, i, outs[i], errs[i])
		}
		if got := w.int(`SELECT count(*) FROM conversations`) - before; got != 5*4 {
			t.Fatalf("%d conversations created, want %d", got, 5*4)
		}
	})
}
