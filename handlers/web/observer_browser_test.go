package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

// The page's scripts keep one MutationObserver between them, and a
// streamed answer of many tokens wakes them once per frame, not once per
// token: the copy buttons, Send↔Stop and following the newest message all
// still happen, and the "aula:changed" rounds are at most the stream's
// events plus the few swaps around them (asking, settling).
func TestBrowserOneObserverPerFrame(t *testing.T) {
	tokens := make([]string, 60)
	for i := range tokens {
		tokens[i] = fmt.Sprintf("word%d ", i)
	}
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		for _, tok := range tokens {
			if err := emit(tok); err != nil {
				return err
			}
			time.Sleep(5 * time.Millisecond) // tokens as a model sends them, not all in one chunk
		}
		return emit("\n\n```go\nx := 1\n```\n")
	}}))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	// Count the observers the page makes, and the rounds they wake.
	if err := chromedp.Do(b.Ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `(() => {
			const MO = window.MutationObserver; window.__observers = 0; window.__rounds = 0; window.__chunks = 0;
			window.MutationObserver = function (cb) { window.__observers++; return new MO(cb); };
			document.addEventListener("aula:changed", () => window.__rounds++);
			document.addEventListener("htmx:sseMessage", () => window.__chunks++);
		})()`})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	b.Navigate(s.URL + "/chat")
	b.ClickAndWait("#new-conversation")
	if n := eval[int](b, `window.__observers`); n != 1 {
		b.Fatalf("the page made %d MutationObservers, want one", n)
	}
	eval[bool](b, `(window.__rounds = 0, window.__chunks = 0) === 0`)
	mid := sendQ(b, "Count to sixty", false)
	waitStatus(b, mid, "complete")
	waitFor(b, "the code block's copy button", `!!document.querySelector('#m-`+mid+` .copy-code + pre')`)
	waitFor(b, "Send back", `document.getElementById('send').textContent === 'Send'`)
	if rounds, chunks := eval[int](b, `window.__rounds`), eval[int](b, `window.__chunks`); chunks < 10 || rounds > chunks+10 {
		b.Fatalf("%d rounds for %d stream events: the scripts rescan more often than the page changes", rounds, chunks)
	}
	if !strings.Contains(b.Text("#m-"+mid+" .msg-body"), "word59") {
		b.Fatalf("the answer reads %q", b.Text("#m-"+mid+" .msg-body"))
	}
}
