package web_test

import (
	"net/http"
	"strings"
	"testing"

	"aula/internal/apptest"
)

// A word an author has just published is covered at once: a student who
// asked about it a moment before publishing got an answer from general
// knowledge, and asking again right after gets the section that now
// holds it. (The retrieval remembers a word the lessons lack for a few
// seconds; the editor's publish makes it forget, see
// models.Content.Changed.)
func TestPublishedWordIsCoveredAtOnce(t *testing.T) {
	s, author, _, student := editorServer(t)
	const question = "What is a zorblax?"
	receipt := func() string {
		t.Helper()
		p, mid := askPlain(t, student, apptest.NewThread(t, student), question)
		return p.Text("#m-" + mid + " .receipt")
	}
	if got := receipt(); !strings.Contains(got, "No lesson sections: an answer from general knowledge.") {
		t.Fatalf("before publishing, the receipt is %q; want no lesson sections", got)
	}

	p := author.Get(vlanEditor)
	body := editedBody(t, p.Doc.Find("#f-body").Text(), "A **broadcast domain** is",
		"A **zorblax** is this lesson's made-up word. A **broadcast domain** is")
	r := postEditor(t, author, vlanEditor, editorFields(t, p, map[string][]string{"body": {body}, "action": {"publish"}}))
	if r.Status != http.StatusSeeOther {
		t.Fatalf("publish: %d", r.Status)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM lesson_chunks WHERE lesson_id = 'vlan-basics' AND text LIKE '%zorblax%'`); n != 1 {
		t.Fatalf("%d published sections hold the word, want 1", n)
	}
	if got := receipt(); !strings.Contains(got, "§ Broadcast domains") {
		t.Fatalf("right after publishing, the receipt is %q; want the section holding the word", got)
	}
}
