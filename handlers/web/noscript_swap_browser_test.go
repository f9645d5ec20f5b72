package web_test

import (
	"fmt"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// A page drawn for a browser without JavaScript refreshes itself while an
// answer is being written (a <noscript> meta refresh). HTMX parses what it
// swaps in with scripting off, so a panel or thread swapped in around an
// answer being written carried a live refresh that reloaded the page two
// seconds after the question: on a loaded machine the answer was lost from
// view mid-stream. With JavaScript on, nothing swapped in may refresh.
func TestSwappedPanelDoesNotRefresh(t *testing.T) {
	for _, where := range []string{"chat", "panel"} {
		t.Run(where, func(t *testing.T) {
			s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: answerStates}))
			s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
			b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
			openAsk(b, s, where)
			eval[bool](b, `(window.aulaMark = true)`)
			held := sendQ(b, "hold: a long one", false)
			waitFor(b, "the answer streaming", fmt.Sprintf(`!!document.querySelector('#m-%s[data-status=streaming]')`, held))
			if n := eval[int](b, `document.querySelectorAll('meta[http-equiv="refresh" i]').length`); n != 0 {
				b.Fatalf("%d live meta refresh in the page while an answer streams with JavaScript on", n)
			}
			if !eval[bool](b, `window.aulaMark === true`) {
				b.Fatalf("the page was reloaded while the answer streamed")
			}
		})
	}
}
