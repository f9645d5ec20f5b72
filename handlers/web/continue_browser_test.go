package web_test

import (
	"fmt"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// Stop, then Continue, in /chat (English) and in the lesson panel
// (Spanish): the stopped answer offers Continue, which streams the rest
// into the same bubble from where it stopped; the finished bubble shows
// the whole stored answer and the usage bar still counts one question.
func TestBrowserContinueAfterStop(t *testing.T) {
	for _, tc := range []struct{ where, locale, label, hint string }{
		{"chat", "en", "Continue →", "not counted as a new question"},
		{"panel", "es", "Continuar →", "no cuenta como una pregunta nueva"},
	} {
		t.Run(tc.where, func(t *testing.T) {
			s := apptest.New(t, apptest.WithProvider(stoppable()))
			u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
			s.DB.Exec(`UPDATE users SET locale = ? WHERE id = ?`, tc.locale, u.ID)
			b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
			openAsk(b, s, tc.where)
			mid := sendQ(b, "Count for me", false)
			sel := "#m-" + mid
			waitFor(b, "some words", fmt.Sprintf(`(document.getElementById('body-%s')||{textContent:''}).textContent.includes('word2 ')`, mid))
			waitFor(b, "the answer's Stop wired by HTMX", fmt.Sprintf(`!!(document.querySelector('%s form.stop-form')||{})['htmx-internal-data']?.listenerInfos`, sel))
			// The panel is drawn again around its first question: Stop once
			// the new Send has become Stop and HTMX has wired its form.
			waitFor(b, "Send to become Stop", `document.getElementById('send').dataset.mode === 'stop' && !!document.getElementById('ask-form')['htmx-internal-data']?.listenerInfos`)
			b.Click("#send") // Send is Stop while the answer streams
			waitStatus(b, mid, "cancelled")
			stopped := apptest.Message(t, s, mid)
			// Wired by HTMX, and settled: a bubble swapped in is wired 20 ms later.
			waitFor(b, "Continue wired by HTMX", fmt.Sprintf(`!!(document.querySelector('%s form.continue-form')||{})['htmx-internal-data']?.listenerInfos && !document.querySelector('.htmx-settling, .htmx-swapping, .htmx-request')`, sel))
			if got := b.Text(sel + " button.continue"); got != tc.label {
				b.Fatalf("the stopped answer's button reads %q, want %q", got, tc.label)
			}
			if got := b.Text(sel + " .continue-form"); !strings.Contains(got, tc.hint) {
				b.Fatalf("the Continue form says %q", got)
			}
			eval[bool](b, `(window.__samePage = true)`)
			b.Click(sel + " button.continue")
			waitStatus(b, mid, "complete")
			final := apptest.Message(t, s, mid)
			if final.Content != stopped.Content+"and the end." {
				b.Fatalf("stored %q, want the stopped text and the rest", final.Content)
			}
			if got := b.Text(sel + " .msg-body"); got != final.Content {
				b.Fatalf("the bubble reads %q, stored %q", got, final.Content)
			}
			if !eval[bool](b, `window.__samePage === true`) || b.Has(sel+" .continue-form") {
				b.Fatalf("Continue reloaded the page or stays offered on the finished answer")
			}
			waitFor(b, "the usage bar", `document.querySelector('#usage').dataset.used === '1'`)
		})
	}
}
