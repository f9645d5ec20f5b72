package tutor

import (
	"context"
	"testing"
	"time"
)

// A section changed by another process (here plain SQL, as `aula import`
// or another instance writes it) reaches this process's memory of checked
// words through PostgreSQL's notification (models.ContentChannel): with
// the memory's clock frozen, nothing else could make it check the word
// again.
func TestContentNotificationForgetsCheckedWords(t *testing.T) {
	f := newFixture(t)
	seedDemoContent(t, f)
	ctx := context.Background()
	at := time.Now()
	chunks := f.svc.retr.chunks
	chunks.UseClock(func() time.Time { return at })
	for _, tc := range []struct {
		name  string
		help  bool
		table string
	}{
		{"a lesson section", false, "lesson_chunks"},
		{"a help section", true, "help_chunks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unknown := func() bool {
				t.Helper()
				out, err := chunks.Unknown(ctx, tc.help, []string{"'zorblax'"})
				if err != nil {
					t.Fatal(err)
				}
				return len(out) == 1
			}
			if !unknown() {
				t.Fatal("zorblax is known before any section holds it")
			}
			f.exec(`UPDATE ` + tc.table + ` SET text = text || ' A zorblax.' WHERE id = (SELECT min(id) FROM ` + tc.table + `)`)
			// Not a timing goal: a bound on waiting for a notification
			// that, without the trigger, never comes.
			for end := time.Now().Add(30 * time.Second); unknown(); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatal("zorblax is still remembered unknown: no notification reached the retrieval")
				}
			}
		})
	}
}
