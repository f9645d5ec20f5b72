package models_test

import (
	"context"
	"testing"

	"aula/models"
)

// The threads a process created, read or asked in are remembered as it
// last saw them, for the user they belong to only; a thread deleted or
// restyled here is forgotten, and one it never saw is not known.
func TestConversationsRememberWhatTheyLastSaw(t *testing.T) {
	w := newBatchWorld(t)
	ctx := context.Background()
	ana, eve := w.user(models.PlanPro, 0), w.user(models.PlanPro, 0)
	created := w.conv(ana)
	elsewhere := models.NewConversations(w.db.DB) // another process
	unseen, err := elsewhere.Create(ctx, ana, models.ModeHelp, "", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if c := w.convs.Remembered(ana, created); c == nil || c.UserID != ana || c.Mode != models.ModeTutor || c.NextSeq != 0 {
		t.Errorf("a thread created here is remembered as %+v", c)
	}
	if c := w.convs.Remembered(eve, created); c != nil {
		t.Errorf("someone else's thread is remembered for eve: %+v", c)
	}
	if c := w.convs.Remembered(ana, unseen.ID); c != nil {
		t.Errorf("a thread another process made is remembered: %+v", c)
	}
	if _, err := w.convs.Get(ctx, ana, unseen.ID); err != nil {
		t.Fatal(err)
	}
	if c := w.convs.Remembered(ana, unseen.ID); c == nil || c.Mode != models.ModeHelp {
		t.Errorf("a thread read here is remembered as %+v", c)
	}

	turn, err := w.msgs.BeginTurn(ctx, w.ask(ana, created, 0))
	if err != nil {
		t.Fatal(err)
	}
	w.convs.Remember(turn.Conversation)
	if c := w.convs.Remembered(ana, created); c == nil || c.NextSeq != 2 || c.Title == "" {
		t.Errorf("after a question the thread is remembered as %+v, want next seq 2 and a title", c)
	}

	for _, tc := range []struct {
		name   string
		change func(id string) error
	}{
		{"restyled", func(id string) error { return w.convs.SetStyle(ctx, ana, id, models.StyleGuide) }},
		{"deleted", func(id string) error { return w.convs.Delete(ctx, ana, id) }},
	} {
		id := w.conv(ana)
		if err := tc.change(id); err != nil {
			t.Fatal(err)
		}
		if c := w.convs.Remembered(ana, id); c != nil {
			t.Errorf("a thread %s here is still remembered: %+v", tc.name, c)
		}
	}
	// A changed copy changes nothing remembered.
	if c := w.convs.Remembered(ana, created); c != nil {
		c.Mode = models.ModeHelp
		if again := w.convs.Remembered(ana, created); again.Mode != models.ModeTutor {
			t.Errorf("changing a remembered copy changed the memory")
		}
	}
}
