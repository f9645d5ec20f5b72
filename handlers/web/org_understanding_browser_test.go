package web_test

import (
	"strings"
	"testing"

	"aula/internal/browser"
)

// In real Chromium, with JavaScript on and off: the admin opens
// Understanding from the /org menu, filters it to a group with the plain
// form, and turns the weekly digest on from /org. The page and the digest
// box fit 1366 px and a 390 px phone, light and dark, in English and
// Spanish, with no serious axe-core violation (with AULA_SHOTS set,
// screenshots are saved).
func TestBrowserOrgUnderstanding(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			o := newUnderstandingOrgs(t)
			s := o.s
			gradeMany(t, s, userID(t, s, "m2@example.com"), 6)
			b := browser.New(t, tt.opts...)
			shots := !b.NoJS
			browserSignIn(b, s, "a@example.com", orgPass)
			b.Navigate(s.URL + "/org")
			b.ClickAndWait("#org-tab-understanding")
			if b.Path() != "/org/understanding" || !strings.Contains(b.Text("#u-sections"), "1 of 2") {
				b.Fatalf("Understanding from the menu: %s %q", b.Path(), b.Text("#u-sections"))
			}
			orgShots(b, shots, "org-understanding")
			b.Navigate(s.URL + "/org/understanding#sections")
			orgShots(b, shots, "org-understanding-sections")
			eval[bool](b, `document.querySelector('#u-group').value = `+"'"+o.red+"'"+`, true`)
			b.ClickAndWait("#u-scope-apply")
			if b.Text("#u-scope") != "Group: Red" || !strings.Contains(b.Text("#u-sections"), "1 of 1") {
				b.Fatalf("group filter: %q %q", b.Text("#u-scope"), b.Text("#u-sections"))
			}
			orgShots(b, shots, "org-understanding-group")
			b.Navigate(s.URL + "/org#digest")
			b.ClickAndWait("#digest-toggle")
			if !strings.Contains(b.Text("#admin-flash"), "You will get the weekly digest") || b.Text("#digest-state") != "You get the weekly digest." {
				b.Fatalf("digest toggle: %q %q", b.Text("#admin-flash"), b.Text("#digest-state"))
			}
			orgShots(b, shots, "org-digest")
			if shots {
				axeEach(t, b, s.URL, "/org/understanding", "/org/understanding?group="+o.red)
			}
			b.ClickAndWait("#lang-switch")
			b.Navigate(s.URL + "/org/understanding")
			if b.Text("h1") != "Comprensión" {
				b.Fatalf("Spanish: %q", b.Text("h1"))
			}
			orgShots(b, shots, "org-es-understanding")
		})
	}
}
