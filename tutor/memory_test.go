package tutor

import (
	"context"
	"testing"

	"aula/internal/heaptest"
	"aula/models"
)

// A class's answers stream for seconds, a thousand at once, and whatever
// each one keeps meanwhile is multiplied by the class and then by the
// collector's headroom. These tests bound what a streaming answer keeps on
// the heap, beside its text and the provider call's own.

// keptPerAnswer is the most live heap a prepared answer (the class's
// path: the front knew the thread) may keep while it waits for the
// provider's next token, in bytes. Measured at 6.2-6.9 KiB; it kept 9.2-9.4
// KiB when the job still pinned the recorded turn and the preparation's
// assumptions and result were kept to the end.
const keptPerAnswer = 8 << 10

// TestStreamingAnswerKeepsLittle asks classSize prepared questions whose
// provider streams one token and then waits, and measures the live heap
// they add while they all wait.
func TestStreamingAnswerKeepsLittle(t *testing.T) {
	const classSize = 300
	f := newFixture(t)
	release := make(chan struct{})
	f.prov.set(func(ctx context.Context, req Request, on func(string) error) (Usage, error) {
		if err := on("Trunks "); err != nil {
			return Usage{}, err
		}
		select {
		case <-release:
		case <-ctx.Done():
			return Usage{}, ctx.Err()
		}
		return emit("carry VLANs.")(ctx, req, on)
	})
	u := f.user(models.PlanPro)
	if err := models.Warm(context.Background(), f.db.DB); err != nil {
		t.Fatal(err)
	}
	// A first class fills the pool's statement caches and the pools of the
	// runtime and the database driver; the second is measured.
	close(release)
	for _, id := range askClass(t, f, u, classSize) {
		f.wait(u, id)
	}
	release = make(chan struct{})
	before := heaptest.Live()
	ids := askClass(t, f, u, classSize)
	kept := (heaptest.Live() - before) / classSize
	close(release)
	for _, id := range ids {
		if m := f.wait(u, id); m.Status != models.StatusComplete || m.Content != "Trunks carry VLANs." {
			t.Fatalf("answer %s: %s %q", id, m.Status, m.Content)
		}
	}
	t.Logf("a streaming answer keeps %d bytes", kept)
	if kept > keptPerAnswer {
		t.Errorf("a streaming answer keeps %d bytes of heap, want at most %d", kept, keptPerAnswer)
	}
}

// askClass asks n prepared questions of u, each in a thread of its own,
// and returns their answers' ids once each has streamed its first token.
func askClass(t *testing.T, f *fixture, u string, n int) []string {
	t.Helper()
	ctx := context.Background()
	known := make([]*Known, n)
	for i := range known {
		known[i] = f.known(u, f.conv(u, models.ModeTutor, "", ""))
	}
	ids := make([]string, n)
	for i, k := range known {
		res, err := f.svc.Ask(ctx, AskInput{UserID: u, ConversationID: k.Conversation.ID, Content: "what is a trunk?", Known: k})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = res.AssistantMessage.ID
	}
	for _, id := range ids {
		sub, err := f.svc.Streams().Subscribe(ctx, u, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := sub.Next(ctx); err != nil {
			t.Fatal(err)
		}
		sub.Close()
	}
	return ids
}
