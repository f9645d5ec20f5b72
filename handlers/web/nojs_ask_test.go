package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// heldTutor answers "Half " at once and the rest only once release is closed.
func heldTutor(release chan struct{}) *apptest.Scripted {
	return &apptest.Scripted{Answer: func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		if err := emit("Half "); err != nil {
			return err
		}
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		return emit("and the rest.")
	}}
}

// expectWriting checks a page without JavaScript shows the answer mid-way,
// refreshing itself, and an input that promises nothing about Enter.
func expectWriting(t *testing.T, p *webtest.Page, mid string) {
	t.Helper()
	if p.Doc.Find("#m-"+mid).AttrOr("data-status", "") != "streaming" || !strings.Contains(p.Text("#m-"+mid), "refreshes until it is complete") {
		t.Errorf("the answer being written is not shown: %q", p.Text("#m-"+mid))
	}
	if !strings.Contains(p.Body, `<noscript><meta http-equiv="refresh"`) {
		t.Errorf("the page with an unfinished answer does not refresh itself")
	}
	if ph := p.Doc.Find("#q").AttrOr("placeholder", ""); ph == "" || strings.Contains(ph, "Enter") {
		t.Errorf("without JavaScript the placeholder is %q", ph)
	}
}

// A plain form post of a question is redirected to its thread (or lesson
// panel) without waiting for the whole answer; that page shows the answer
// being written and refreshes itself until it is done.
func TestAskWithoutJavaScriptRedirectsAtOnce(t *testing.T) {
	release := make(chan struct{})
	s := apptest.New(t, apptest.WithProvider(heldTutor(release)))
	// An answer held by the provider never fits in the wait.
	s.App.NoJSWait = time.Millisecond
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)

	p, mid := askPlain(t, c, cid, "Explain slices")
	expectWriting(t, p, mid)

	lesson := "/learn/go-basics/go-variables-types"
	lp := c.Submit(c.Get(lesson+"?tutor=open"), "#ask-form", map[string]string{"content": "What is a zero value?"})
	lmid := strings.TrimPrefix(lp.URL.Fragment, "m-")
	if lp.URL.Path != lesson || lmid == "" || lp.Doc.Find("details#tutor[open]").Length() != 1 {
		t.Fatalf("the panel's question led to %s", lp.URL)
	}
	expectWriting(t, lp, lmid)

	close(release)
	for _, m := range []string{mid, lmid} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if _, err := s.Tutor.Streams().Wait(ctx, u.ID, m); err != nil {
			t.Fatalf("wait: %v", err)
		}
		cancel()
	}
	p = c.Get("/chat/" + cid)
	if p.Doc.Find("#m-"+mid).AttrOr("data-status", "") != "complete" || strings.Contains(p.Body, `http-equiv="refresh"`) {
		t.Errorf("the finished thread: %q", p.Text("#m-"+mid))
	}
	lp = c.Get(lesson + "?tutor=open")
	if strings.Contains(lp.Body, `http-equiv="refresh"`) {
		t.Errorf("the lesson page keeps refreshing after the answer")
	}
}

// In a browser without JavaScript: Send lands on the thread at once, the
// answer being written is shown and the page refreshes until it is whole.
func TestBrowserAskWithoutJavaScriptFollowsTheAnswer(t *testing.T) {
	release := make(chan struct{})
	s := apptest.New(t, apptest.WithProvider(heldTutor(release)))
	s.App.NoJSWait = time.Millisecond
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := browser.New(t, browser.WithoutJavaScript())
	signIn(b, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + "/chat")
	b.ClickAndWait("#new-conversation")
	if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#q"), "Explain slices")); err != nil {
		b.Fatalf("type: %v", err)
	}
	b.ClickAndWait("#send")
	if !b.Has(`#messages article[data-status="streaming"]`) {
		b.Fatalf("after Send without JavaScript: %q", b.Text("#messages"))
	}
	close(release)
	// Without JavaScript chromedp cannot poll inside the page: poll from here.
	for deadline := time.Now().Add(browser.StepTimeout); !b.Has(`#messages article[data-role="assistant"][data-status="complete"]`); {
		if time.Now().After(deadline) {
			b.Fatalf("the page did not refresh to the finished answer")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := b.Text(`#messages article[data-role="assistant"] .msg-body`); got != "Half and the rest." {
		b.Errorf("the finished answer shows %q", got)
	}
}
