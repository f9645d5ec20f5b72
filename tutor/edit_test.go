package tutor

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"aula/models"
)

// Editing the last question: the edited text is the question, its answer
// is written again (the provider is asked the new text), the earlier
// question and answer stay as version 1 and come back together when it
// is put on display; the edit counts as a question.
func TestEditKeepsTheEarlierPairAsAVersion(t *testing.T) {
	f := newFixture(t)
	n := 0
	f.prov.set(func(ctx context.Context, req Request, on func(string) error) (Usage, error) {
		n++
		return Usage{}, on(fmt.Sprintf("Answer %d to %s", n, req.Question))
	})
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	first := f.ask(u, c, "What is a VLAN?")
	var qid string
	f.db.Raw(`SELECT id FROM messages WHERE conversation_id = ? AND seq = 0`, c).Scan(&qid)

	ed, err := f.svc.Edit(context.Background(), u, qid, "  What is a trunk?  ")
	if err != nil {
		t.Fatal(err)
	}
	if ed.Answer.ID != first.ID || ed.Question.Content != "What is a trunk?" {
		t.Fatalf("edited %+v", ed)
	}
	a := f.wait(u, first.ID)
	if a.Content != "Answer 2 to What is a trunk?" || a.Version != 2 || f.prov.last(t).Question != "What is a trunk?" {
		t.Fatalf("the edited question's answer: %q (version %d)", a.Content, a.Version)
	}
	msgs := models.NewMessages(f.db.DB)
	shown, err := msgs.ShowVersion(context.Background(), u, first.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := msgs.Get(context.Background(), u, qid)
	if shown.Content != "Answer 1 to What is a VLAN?" || q.Content != "What is a VLAN?" {
		t.Fatalf("version 1 shows %q answering %q", shown.Content, q.Content)
	}
	if _, err := msgs.ShowVersion(context.Background(), u, first.ID, 2); err != nil {
		t.Fatal(err)
	}
	if q, _ := msgs.Get(context.Background(), u, qid); q.Content != "What is a trunk?" {
		t.Fatalf("version 2 brings back the question %q", q.Content)
	}
	if f.used(u) != 2 {
		t.Fatalf("used %d: the edit is a question", f.used(u))
	}
}

// Only the thread's last question is edited, with a real question; anyone
// else's is not found.
func TestEditRefusals(t *testing.T) {
	f := newFixture(t)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	f.ask(u, c, "first")
	f.ask(u, c, "second")
	var first, second string
	f.db.Raw(`SELECT id FROM messages WHERE conversation_id = ? AND seq = 0`, c).Scan(&first)
	f.db.Raw(`SELECT id FROM messages WHERE conversation_id = ? AND seq = 2`, c).Scan(&second)
	for _, tc := range []struct {
		name, id, text string
		reason         Reason
	}{
		{"not the last", first, "changed", RefusedNotEditable},
		{"empty", second, "   ", RefusedEmpty},
	} {
		var r *Refusal
		if _, err := f.svc.Edit(context.Background(), u, tc.id, tc.text); !errors.As(err, &r) || r.Reason != tc.reason {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.reason)
		}
	}
	if _, err := f.svc.Edit(context.Background(), f.user(models.PlanPro), second, "mine now"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("someone else's question: %v", err)
	}
}
