package web_test

import (
	"fmt"
	"strings"
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
			// The bold paragraph was finished when the list's first line came:
			// it went once into the finished blocks, and the open part after
			// it continues the whole rendering.
			want, _ := wantBody(strings.Join(draftTokens[:4], ""))
			waitFor(b, "the swaps settled", fmt.Sprintf(`!document.querySelector('#body-%s .htmx-added')`, mid))
			shown := fmt.Sprintf(`document.getElementById('final-%s').innerHTML + '|' + document.getElementById('open-%s').innerHTML`, mid, mid)
			if got := eval[string](b, shown); !strings.HasPrefix(got, "<p>Use <strong>bold</strong> here:</p>\n|") || strings.Replace(got, "|", "", 1) != want {
				b.Fatalf("the draft's finished and open blocks are\n%s\nthe whole renders\n%s", got, want)
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
