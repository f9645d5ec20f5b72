package web_test

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

// Ten Continues and ten Regenerates of one stopped answer at once (a
// double click, two tabs): no request fails, the answer goes on exactly
// once, its text is the stopped text with one continuation or one new
// version, and the plan counts what it should.
func TestContinueAndRegenerateInParallel(t *testing.T) {
	for _, action := range []string{"continue", "retry"} {
		t.Run(action, func(t *testing.T) {
			s := apptest.New(t, apptest.WithProvider(stoppable()))
			// A regenerated answer goes on until stopped: the posts
			// redirect at once instead of waiting for its end.
			s.App.NoJSWait = time.Millisecond
			u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
			c := s.SignIn(t, "ana@example.com", "a-long-password-1")
			cid := apptest.NewThread(t, c)
			c.HTTP.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			ctx := context.Background()
			res, err := s.Tutor.Ask(ctx, tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "Count for me"})
			if err != nil {
				t.Fatal(err)
			}
			mid := res.AssistantMessage.ID
			sub, err := s.Tutor.Streams().Subscribe(ctx, u.ID, mid, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, _, err := sub.Next(ctx); err != nil {
				t.Fatal(err)
			}
			sub.Close()
			page := c.Get("/chat/" + cid)
			c.Submit(page, "#m-"+mid+" form.stop-form", nil)
			if _, err := s.Tutor.Streams().Wait(ctx, u.ID, mid); err != nil {
				t.Fatal(err)
			}
			csrf := c.Get("/chat/" + cid).CSRF()
			var mu sync.Mutex
			var wg sync.WaitGroup
			codes := map[int]int{}
			for range 10 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := c.Post("/messages/"+mid+"/"+action, url.Values{"_csrf": {csrf}})
					mu.Lock()
					codes[r.Status]++
					mu.Unlock()
					if r.Status >= 500 {
						t.Errorf("%s: %d %s", action, r.Status, r.Body)
					}
				}()
			}
			wg.Wait()
			t.Logf("%s ×10: %v", action, codes)
			if codes[http.StatusSeeOther] != 1 {
				t.Errorf("%s ×10: %v, want exactly one 303", action, codes)
			}
		})
	}
}
