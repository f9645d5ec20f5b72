package web_test

import (
	"fmt"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// Edit on the last question, in /chat and in the lesson panel: only the
// last question shows it; sent, the question changes in place and its
// answer is written again ("2 / 2") without a reload; ‹ brings back the
// earlier question with its answer.
func TestBrowserEditLastQuestion(t *testing.T) {
	for _, where := range []string{"chat", "panel"} {
		t.Run(where, func(t *testing.T) {
			s := apptest.New(t, apptest.WithProvider(apptest.Numbered()))
			s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
			b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
			openAsk(b, s, where)
			waitStatus(b, sendQ(b, "First question", false), "complete")
			formWired(b)
			mid := sendQ(b, "What is a VLAN?", false)
			waitStatus(b, mid, "complete")
			qid := eval[string](b, fmt.Sprintf(`document.getElementById('m-%s').previousElementSibling.id.slice(2)`, mid))
			shown := `(q => !!q && getComputedStyle(q).display !== 'none')(document.querySelector('#m-%s .edit-q'))`
			waitFor(b, "Edit on the last question", fmt.Sprintf(shown, qid))
			if n := eval[int](b, `[...document.querySelectorAll('#messages .edit-q')].filter(e => getComputedStyle(e).display !== 'none').length`); n != 1 {
				b.Fatalf("%d questions offer Edit, want the last one only", n)
			}
			eval[bool](b, `(window.__samePage = true)`)
			b.Click("#m-" + qid + " .edit-q summary")
			waitFor(b, "the edit form wired by HTMX", fmt.Sprintf(`!!(document.querySelector('#m-%s form.edit-form')||{})['htmx-internal-data']?.listenerInfos`, qid))
			if got := eval[string](b, fmt.Sprintf(`document.getElementById('edit-%s').value`, qid)); got != "What is a VLAN?" {
				b.Fatalf("the edit starts from %q", got)
			}
			eval[bool](b, fmt.Sprintf(`(document.getElementById('edit-%s').value = 'What is a trunk?') !== ''`, qid))
			b.Click("#m-" + qid + " form.edit-form button[type=submit]")
			pair := func(what, question, answer, of string) {
				b.T.Helper()
				waitFor(b, what, fmt.Sprintf(`document.querySelector('#m-%s .msg-body')?.textContent === %q && (document.querySelector('#m-%s[data-status=complete] .msg-body')||{textContent:''}).textContent.trim() === %q && document.querySelector('#m-%s .version-of')?.textContent === %q`,
					qid, question, mid, answer, mid, of))
				if !eval[bool](b, `window.__samePage === true`) {
					b.Fatalf("%s: the page was loaded again", what)
				}
			}
			pair("the edited question answered in place", "What is a trunk?", "Version 3.", "2 / 2")
			if n := eval[int](b, fmt.Sprintf(`document.querySelectorAll('#m-%s').length + document.querySelectorAll('#m-%s').length`, qid, mid)); n != 2 {
				b.Fatalf("%d bubbles with the pair's ids, want 2", n)
			}
			waitFor(b, "‹ wired by HTMX", fmt.Sprintf(`!!(document.querySelector('#m-%s .versions form:has([aria-label="Previous version"])')||{})['htmx-internal-data']?.listenerInfos`, mid))
			b.Click("#m-" + mid + ` button[aria-label="Previous version"]`)
			pair("the earlier pair", "What is a VLAN?", "Version 2.", "1 / 2")
		})
	}
}
