package web_test

import (
	"fmt"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// Regenerate and the versions switcher work in place, in /chat and in the
// lesson panel: the new version streams into the same bubble, which then
// reads "2 / 2"; ‹ draws version 1 without a reload and keeps the focus
// on the switcher (on ›, once ‹ is at its end).
func TestBrowserVersionsInPlace(t *testing.T) {
	for _, where := range []string{"chat", "panel"} {
		t.Run(where, func(t *testing.T) {
			s := apptest.New(t, apptest.WithProvider(apptest.Numbered()))
			s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
			b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
			openAsk(b, s, where)
			mid := sendQ(b, "What is a VLAN?", false)
			waitStatus(b, mid, "complete")
			eval[bool](b, `(window.__samePage = true)`)
			sel := "#m-" + mid
			waitFor(b, "Regenerate wired by HTMX", fmt.Sprintf(`!!(document.querySelector('%s .versions form:has(.regenerate)')||{})['htmx-internal-data']?.listenerInfos`, sel))
			b.Click(sel + " button.regenerate")
			shows := func(what, text, of string) {
				b.T.Helper()
				waitFor(b, what, fmt.Sprintf(`(document.querySelector('%s[data-status=complete] .msg-body')||{textContent:''}).textContent.trim() === %q && (document.querySelector('%s .version-of')||{}).textContent === %q`, sel, text, sel, of))
				if !eval[bool](b, `window.__samePage === true`) {
					b.Fatalf("%s: the page was loaded again", what)
				}
			}
			shows("the regenerated version in place", "Version 2.", "2 / 2")
			waitFor(b, "the switcher wired by HTMX", fmt.Sprintf(`!!(document.querySelector('%s .versions form:has([aria-label="Previous version"])')||{})['htmx-internal-data']?.listenerInfos`, sel))
			b.Click(sel + ` button[aria-label="Previous version"]`)
			shows("version 1 drawn in place", "Version 1.", "1 / 2")
			waitFor(b, "the focus on the switcher", `document.activeElement?.getAttribute('aria-label') === 'Next version'`)
			waitFor(b, "› wired by HTMX", fmt.Sprintf(`!!(document.querySelector('%s .versions form:has([aria-label="Next version"])')||{})['htmx-internal-data']?.listenerInfos`, sel))
			b.Click(sel + ` button[aria-label="Next version"]`)
			shows("version 2 again", "Version 2.", "2 / 2")
			if m := apptest.Message(t, s, mid); m.Content != "Version 2." || m.Version != 2 {
				b.Fatalf("stored %q (version %d), want version 2 on display", m.Content, m.Version)
			}
		})
	}
}
