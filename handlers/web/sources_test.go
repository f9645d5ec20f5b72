package web_test

import (
	"context"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

// TestSourcesCitedChangedAndLinked: in a tutor thread (no lesson of its
// own) the receipt lists the sections the answer cites first and the
// others as also given; the answer's § link goes to the lesson page; a
// re-import that gives every chunk a new id flags nothing, editing one
// section flags only it, and restoring its text clears the flag.
func TestSourcesCitedChangedAndLinked(t *testing.T) {
	var anchor, text, hash, path string
	p := &apptest.Scripted{Answer: func(_ context.Context, _ int, _ tutor.Request, emit func(string) error) error {
		return emit("A VLAN splits a switch into broadcast domains [§ Broadcast domains](#" + anchor + ").")
	}}
	s := apptest.New(t, apptest.WithProvider(p))
	if err := s.DB.Raw(`SELECT c.anchor, c.text, c.hash, p.slug FROM lesson_chunks c JOIN lessons l ON l.id = c.lesson_id
		JOIN modules m ON m.id = l.module_id JOIN paths p ON p.id = m.path_id
		WHERE c.lesson_id = 'vlan-basics' AND c.heading LIKE 'Broadcast domains%'`).Row().Scan(&anchor, &text, &hash, &path); err != nil {
		t.Fatal(err)
	}
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid,
		Content: "Which problem with broadcast domains do VLANs solve, and what are trunk ports?"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tutor.Streams().Wait(context.Background(), u.ID, res.AssistantMessage.ID); err != nil {
		t.Fatal(err)
	}
	mid := "#m-" + res.AssistantMessage.ID
	changed := func() int {
		t.Helper()
		return c.Get("/chat/" + cid).Doc.Find(mid + " .receipt .badge.warn").Length()
	}
	page := c.Get("/chat/" + cid)
	link := "/learn/" + path + "/vlan-basics#" + anchor
	if page.Doc.Find(mid+` .msg-body a[href="`+link+`"]`).Length() != 1 {
		h, _ := page.Doc.Find(mid + " .msg-body").Html()
		t.Fatalf("the answer's § link does not go to %s: %s", link, h)
	}
	cited := page.Doc.Find(mid + " .receipt .citations.cited li")
	if cited.Length() != 1 || !strings.Contains(cited.Text(), "Broadcast domains") {
		t.Fatalf("cited sections: %q", cited.Text())
	}
	if page.Doc.Find(mid+" .receipt .citations.given li").Length() == 0 {
		t.Fatal("the sections only given to the tutor are not listed")
	}

	steps := []struct {
		name, sql string
		want      int
	}{
		{"re-imported unchanged, new ids", `UPDATE lesson_chunks SET id = id + 100000 WHERE lesson_id = 'vlan-basics'`, 0},
		{"one section edited", `UPDATE lesson_chunks SET text = text || ' Edited.', hash = 'edited' WHERE lesson_id = 'vlan-basics' AND anchor = ?`, 1},
		{"text restored", `UPDATE lesson_chunks SET text = ?, hash = ? WHERE lesson_id = 'vlan-basics' AND anchor = ?`, 0},
	}
	for _, st := range steps {
		var args []any
		switch strings.Count(st.sql, "?") {
		case 1:
			args = []any{anchor}
		case 3:
			args = []any{text, hash, anchor}
		}
		if err := s.DB.Exec(st.sql, args...).Error; err != nil {
			t.Fatal(err)
		}
		if got := changed(); got != st.want {
			t.Fatalf("%s: %d sections flagged changed, want %d", st.name, got, st.want)
		}
	}
}
