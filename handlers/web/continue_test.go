package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

// stoppable writes words until stopped; asked to continue, it ends the
// answer it was given.
func stoppable() *apptest.Scripted {
	return &apptest.Scripted{Answer: func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		if req.Partial != "" {
			return emit("and the end.")
		}
		for i := 0; ; i++ {
			if err := emit(fmt.Sprintf("word%d ", i)); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	}}
}

// Without JavaScript: Stop and Continue are plain forms answered with 303
// to the thread, where the stopped answer has gone on from its text and
// ended; the plan counted the question once.
func TestContinueWithoutJavaScript(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(stoppable()))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	c.HTTP.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "Count for me"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	sub, err := s.Tutor.Streams().Subscribe(context.Background(), u.ID, mid, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := sub.Next(context.Background()); err != nil { // some text first
		t.Fatal(err)
	}
	sub.Close()
	page := c.Get("/chat/" + cid)
	if got := c.Submit(page, "#m-"+mid+" form.stop-form", nil); got.Status != http.StatusSeeOther {
		t.Fatalf("Stop answered %d", got.Status)
	}
	stopped, err := s.Tutor.Streams().Wait(context.Background(), u.ID, mid)
	if err != nil || stopped.Status != models.StatusCancelled || stopped.Content == "" {
		t.Fatalf("stopped %+v %v", stopped, err)
	}
	page = c.Get("/chat/" + cid)
	if page.Text("#m-"+mid+" button.continue") != "Continue →" || !strings.Contains(page.Text("#m-"+mid+" .continue-form"), "not counted as a new question") {
		t.Fatalf("a stopped answer offers %q", page.Text("#m-"+mid+" .continue-form"))
	}
	if page.Doc.Find("#m-"+mid+" .versions button.regenerate").Length() != 1 {
		t.Fatalf("a stopped answer offers no Regenerate")
	}
	got := c.Submit(page, "#m-"+mid+" form.continue-form", nil)
	if got.Status != http.StatusSeeOther || got.Header.Get("Location") != "/chat/"+cid+"#m-"+mid {
		t.Fatalf("Continue answered %d to %q", got.Status, got.Header.Get("Location"))
	}
	final, err := s.Tutor.Streams().Wait(context.Background(), u.ID, mid)
	if err != nil || final.Status != models.StatusComplete || final.Content != stopped.Content+"and the end." {
		t.Fatalf("continued %q (%s), want %q", final.Content, final.Status, stopped.Content+"and the end.")
	}
	if text := c.Get("/chat/" + cid).Text("#m-" + mid + " .msg-body"); text != final.Content {
		t.Fatalf("the thread shows %q", text)
	}
	if usage, _ := s.App.Quotas.Usage(context.Background(), u.ID, s.Tutor.Now()); usage.Used != 1 {
		t.Fatalf("used %d questions, want 1: continuing is not a new question", usage.Used)
	}
	// Only a stopped answer continues: now complete, it is refused.
	if got := c.Post("/messages/"+mid+"/continue", map[string][]string{"_csrf": {page.CSRF()}}); got.Status != http.StatusConflict ||
		!strings.Contains(got.Body, "Only a stopped answer can be continued.") {
		t.Fatalf("continuing a complete answer: %d", got.Status)
	}
}
