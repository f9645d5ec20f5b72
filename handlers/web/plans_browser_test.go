package web_test

import (
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// A FREE student in the lesson panel: with one question left the bar is
// the warning colour and says "1 question left"; at the limit the
// suggestions and the welcome's invitation to pick one go, and "See plans"
// opens /upgrade in the same tab.
func TestBrowserPlansWithoutFriction(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: echoAnswer}))
	s.User(t, "lucia@example.com", "a-long-password-1", models.PlanFree)
	b := signInBrowser(t, s, "lucia@example.com", "a-long-password-1")
	lesson := "/learn/go-basics/go-variables-types"
	b.Navigate(s.URL + lesson + "?tutor=open")
	b.WaitVisible("#tutor-panel [data-welcome]")
	if !b.Has("#welcome-pick") || !b.Has("#suggestions button.suggestion") {
		b.Fatalf("before the limit: no invitation to pick a suggestion, or no suggestions")
	}
	b.Click("#suggestions button.suggestion")
	waitFor(b, "the first answer", `document.querySelector('#tutor-panel #usage').dataset.used === '1'`)
	if cls, _ := b.Attr("#usage", "class"); !strings.Contains(cls, "green") || b.Has("#usage-left") {
		b.Fatalf("1 of 3: bar %q, or already warning", cls)
	}
	// The panel is drawn again around its first question: send once its
	// answer has ended (its end redraws the answer) and HTMX has wired the
	// new form (a click before that is a plain post).
	waitFor(b, "the first answer ended", `[...document.querySelectorAll('#tutor-panel #messages article[data-role=assistant][id^="m-"]')].every(a => a.dataset.status === 'complete')`)
	waitFor(b, "the new form wired", `!!(document.getElementById('ask-form')||{})['htmx-internal-data']?.listenerInfos`)
	mid := sendQ(b, "What is a zero value?", false)
	waitStatus(b, mid, "complete")
	waitFor(b, "the second question counted", `document.querySelector('#tutor-panel #usage').dataset.used === '2'`)
	if cls, _ := b.Attr("#usage", "class"); !strings.Contains(cls, "amber") {
		b.Fatalf("2 of 3: bar %q, want the warning colour", cls)
	}
	if got := b.Text("#usage-left"); got != "1 question left" {
		b.Fatalf("2 of 3 says %q", got)
	}
	mid = sendQ(b, "What is a constant?", false)
	waitStatus(b, mid, "complete")
	b.WaitVisible("#see-plans")
	if b.Has("#suggestions") || b.Has("#suggestions-more") || b.Has("#welcome-pick") {
		b.Fatalf("at the limit the suggestions or the invitation to pick one stay")
	}
	if got, _ := b.Attr("#see-plans", "target"); got != "" || b.Text("#see-plans") != "See plans" {
		b.Fatalf("See plans: %q target %q", b.Text("#see-plans"), got)
	}
	b.Reload()
	b.WaitVisible("#see-plans")
	if b.Has("#suggestions") || b.Has("#welcome-pick") || strings.Contains(b.Text("[data-welcome]"), "suggestion") {
		b.Fatalf("reloaded at the limit: %q", b.Text("[data-welcome]"))
	}
	b.ClickAndWait("#see-plans")
	if b.Path() != "/upgrade" {
		b.Fatalf("See plans led to %s", b.Path())
	}
}
