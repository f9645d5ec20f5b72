package web_test

import (
	"fmt"
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// openAsk brings the student to the question input: a new thread on
// /chat, or the tutor panel of a lesson.
func openAsk(b *browser.Browser, s *apptest.Server, where string) {
	b.T.Helper()
	if where == "chat" {
		b.Navigate(s.URL + "/chat")
		b.ClickAndWait("#new-conversation")
		return
	}
	b.Navigate(s.URL + "/learn/go-basics/go-variables-types")
	b.WaitVisible("summary.tutor-fab")
	b.Click("summary.tutor-fab")
	waitFor(b, "the panel open", `document.getElementById('tutor').open`)
}

// formWired waits until HTMX has wired the question form: the panel is
// drawn again around its first question, and a click on the new form
// before that would be a plain post.
func formWired(b *browser.Browser) {
	b.T.Helper()
	waitFor(b, "the question form wired", `!!(document.getElementById('ask-form')||{})['htmx-internal-data']?.listenerInfos`)
}

// The answer's Markdown is formatted while it streams, in /chat and in the
// lesson panel: the bold, the list and the § link appear before the answer
// ends, and the finished bubble is exactly the stored message's rendering
// (the page drawn again after a reload shows the same HTML).
func TestBrowserMarkdownWhileStreaming(t *testing.T) {
	for _, where := range []string{"chat", "panel"} {
		t.Run(where, func(t *testing.T) {
			st := &stepper{tokens: draftTokens, step: make(chan struct{})}
			s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
			s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
			b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
			openAsk(b, s, where)
			mid := sendQ(b, "Show me", false)
			body := fmt.Sprintf(`document.querySelector('#m-%s[data-status=streaming] #body-%s')`, mid, mid)
			st.step <- struct{}{}
			waitFor(b, "the first token, raw", body+`?.textContent === 'Use **bo'`)
			st.step <- struct{}{}
			waitFor(b, "the bold formatted while streaming", body+`?.querySelector('strong')?.textContent === 'bold'`)
			if got := eval[string](b, body+`.textContent`); got != "Use bold here:\n\n" {
				b.Fatalf("the draft reads %q", got)
			}
			st.step <- struct{}{}
			st.step <- struct{}{}
			waitFor(b, "the list and the § link while streaming",
				body+`?.querySelectorAll('li').length === 2 && !!`+body+`.querySelector('a[href$="#vlans"]')`)
			// Raw text never shows its Markdown once rendered.
			if got := eval[string](b, body+`.textContent`); got != "Use bold here:\n\none\ntwo\n\nSee § VLANs " {
				b.Fatalf("the draft reads %q", got)
			}
			st.step <- struct{}{}
			waitStatus(b, mid, "complete")
			final := eval[string](b, fmt.Sprintf(`document.querySelector('#m-%s .msg-body').innerHTML`, mid))
			b.Reload()
			waitStatus(b, mid, "complete")
			if where == "panel" {
				b.Click("summary.tutor-fab")
			}
			if again := eval[string](b, fmt.Sprintf(`document.querySelector('#m-%s .msg-body').innerHTML`, mid)); again != final {
				b.Fatalf("the streamed answer ended as\n%s\nthe stored one renders as\n%s", final, again)
			}
		})
	}
}
