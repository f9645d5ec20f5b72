package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// typeQuestion types a question into the ask box as a student does.
func typeQuestion(b *browser.Browser, question string) {
	b.T.Helper()
	eval[bool](b, `(document.getElementById('q').value = '') === ''`)
	if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#q"), question)); err != nil {
		b.Fatalf("type the question: %v", err)
	}
}

// In Chromium the answer comes on the stream the page opened when the
// student started typing: no stream of the answer's own is opened, the
// bubble stands under its question named as the answer, streams, and
// its Stop stops that answer; the next question does the same.
func TestNextAnswerBrowser(t *testing.T) {
	st := &stepper{tokens: []string{"Hello", " there", " and on."}, step: make(chan struct{})}
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + "/chat")
	b.ClickAndWait("#new-conversation")
	eval[bool](b, `(() => { const make = htmx.createEventSource; window.__urls = [];
		htmx.createEventSource = url => { window.__urls.push(url); return make(url); }; return true; })()`)
	if n := s.App.Streams.Awaiting(); n != 0 {
		t.Fatalf("%d next-answer streams open before the student typed, want 0", n)
	}

	for i, question := range []string{"First question", "Second question"} {
		typeQuestion(b, question)
		awaiting(t, s, 1)
		b.Click("#send")
		waitFor(b, "the answer bubble shown", fmt.Sprintf(`(() => { const all = [...document.querySelectorAll('#messages article')], a = all.pop();
			return all.length === %d && a.dataset.role === 'assistant' && !a.hidden && a.offsetHeight > 0; })()`, 2*i+1))
		mid := strings.TrimPrefix(eval[string](b, `[...document.querySelectorAll('#messages article')].pop().id`), "m-")
		if m := apptest.Message(t, s, mid); m.Role != models.RoleAssistant {
			b.Fatalf("question %d: the bubble shown is %s, not an answer", i+1, mid)
		}
		order := shownIDs(b)
		if len(order) < 2 || order[len(order)-1] != mid+":assistant" || !strings.HasSuffix(order[len(order)-2], ":user") {
			b.Fatalf("question %d: the bubbles are %v, want the question then answer %s last", i+1, order, mid)
		}
		st.step <- struct{}{}
		waitFor(b, "the first words", fmt.Sprintf(`document.getElementById('body-%s').textContent.includes('Hello')`, mid))
		if i == 0 {
			// Stop, through Send turned Stop, stops this answer.
			waitFor(b, "Send is Stop", `document.getElementById('send').dataset.mode === 'stop'`)
			b.Click("#send")
			waitStatus(b, mid, models.StatusCancelled)
		} else {
			st.step <- struct{}{}
			st.step <- struct{}{}
			waitStatus(b, mid, models.StatusComplete)
			if got := b.Text("#m-" + mid + " .msg-body"); got != "Hello there and on." {
				b.Fatalf("the answer reads %q", got)
			}
		}
		if m := apptest.Message(t, s, mid); m.Status != map[int]string{0: models.StatusCancelled, 1: models.StatusComplete}[i] {
			b.Fatalf("question %d: stored %s", i+1, m.Status)
		}
		urls := eval[[]string](b, `window.__urls`)
		for _, u := range urls {
			if strings.Contains(u, "/messages/") {
				b.Fatalf("question %d: the page opened the answer's own stream as well: %v", i+1, urls)
			}
		}
		if len(urls) != i+1 {
			b.Fatalf("after question %d the page opened %d streams (%v), want %d", i+1, len(urls), urls, i+1)
		}
	}
}

// The lesson panel's first question redraws the whole panel: the answer
// still comes on the stream the page opened as the student typed, its
// bubble under the question in the new panel, and a follow-up in the
// panel does the same.
func TestNextAnswerBrowserPanel(t *testing.T) {
	st := &stepper{tokens: []string{"Hello", " there."}, step: make(chan struct{}, 4)}
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + "/learn/go-basics/go-variables-types")
	b.Click("summary.tutor-fab")
	waitFor(b, "the panel open", `document.getElementById('tutor').open`)
	eval[bool](b, `(() => { const make = htmx.createEventSource; window.__urls = [];
		htmx.createEventSource = url => { window.__urls.push(url); return make(url); }; return true; })()`)
	for i, question := range []string{"What is a zero value?", "And for strings?"} {
		typeQuestion(b, question)
		awaiting(t, s, 1)
		b.Click("#send")
		waitFor(b, "the answer under the question", fmt.Sprintf(`(() => { const all = [...document.querySelectorAll('#tutor-panel #messages article[id^="m-"]')];
			const a = all.pop(), q = all.pop();
			return !!q && all.length === %d && a.dataset.role === 'assistant' && !a.hidden && q.dataset.role === 'user'; })()`, 2*i))
		mid := strings.TrimPrefix(eval[string](b, `[...document.querySelectorAll('#tutor-panel #messages article')].pop().id`), "m-")
		st.step <- struct{}{}
		st.step <- struct{}{}
		waitStatus(b, mid, models.StatusComplete)
		if got := b.Text("#m-" + mid + " .msg-body"); got != "Hello there." {
			b.Fatalf("question %d: the answer reads %q", i+1, got)
		}
		urls := eval[[]string](b, `window.__urls`)
		if len(urls) != i+1 || strings.Contains(strings.Join(urls, " "), "/messages/") {
			b.Fatalf("question %d: the page opened %v, want only %d next-answer streams", i+1, urls, i+1)
		}
	}
}
