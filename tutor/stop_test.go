package tutor

import (
	"context"
	"strings"
	"testing"

	"aula/models"
)

// TestStopBeforeTheFirstToken: Stop pressed while the route is read or
// while retrieving ends the answer as cancelled, refunded, with no error
// code and no internal error text in what is stored. The stage is held
// by a lock on the table it reads, and Stop pressed once the generation
// waits for it.
func TestStopBeforeTheFirstToken(t *testing.T) {
	for _, stage := range []struct {
		name, table string
		prepared    bool // the front told Ask the thread: the reads run beside the recording
	}{
		{"while the route is read", "ai_routes", false},
		{"while retrieving", "lesson_chunks", false},
		{"while the route is read, prepared", "ai_routes", true},
		{"while retrieving, prepared", "lesson_chunks", true},
	} {
		t.Run(stage.name, func(t *testing.T) {
			f := newFixture(t)
			u := f.user(models.PlanFree)
			c := f.conv(u, models.ModeTutor, "", "")
			in := AskInput{UserID: u, ConversationID: c, Content: "explain VLANs"}
			if stage.prepared {
				in.Known = f.known(u, c)
			}
			lock := f.db.Begin()
			t.Cleanup(func() { lock.Rollback() })
			if err := lock.Exec(`LOCK TABLE ` + stage.table + ` IN ACCESS EXCLUSIVE MODE`).Error; err != nil {
				t.Fatal(err)
			}
			res, err := f.svc.Ask(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			for waiting := 0; waiting == 0; {
				f.scalar(&waiting, `SELECT count(*) FROM pg_locks l JOIN pg_class r ON r.oid = l.relation
					WHERE NOT l.granted AND r.relname = ?`, stage.table)
			}
			if err := f.svc.Streams().Cancel(context.Background(), u, res.AssistantMessage.ID); err != nil {
				t.Fatal(err)
			}
			m := f.wait(u, res.AssistantMessage.ID)
			lock.Rollback()
			if m.Status != models.StatusCancelled || m.Content != "" || m.ErrorCode != "" {
				t.Fatalf("stopped answer stored %s (code %q) %q; want cancelled", m.Status, m.ErrorCode, m.Content)
			}
			for _, internal := range []string{"context", "canceled", "SQLSTATE", "error"} {
				if strings.Contains(string(m.Metadata), internal) {
					t.Fatalf("internal error text stored: %s", m.Metadata)
				}
			}
			if f.used(u) != 0 {
				t.Fatalf("a stop before any text was not refunded: used %d", f.used(u))
			}
		})
	}
}
