package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// browserSignIn signs b in as email through the login form.
func browserSignIn(b *browser.Browser, s *apptest.Server, email, password string) {
	b.T.Helper()
	b.Navigate(s.URL + "/login")
	b.WaitVisible("#login-submit")
	b.Fill("#email", email)
	b.Fill("#password", password)
	b.ClickAndWait("#login-submit")
}

// A FREE student uses the month's three questions in the chat screen, the
// answers streaming, and the input gives way to "See plans"; a
// SUPER_ADMIN upgrades them on /admin/users; the student asks again.
func TestBrowserQuotaJourney(t *testing.T) {
	s := apptest.New(t, fastTutor)
	student := s.User(t, "frida@example.com", "pass-phrase-1", models.PlanFree)
	s.User(t, "root@example.com", "pass-phrase-1", models.PlanSuperAdmin)

	b := browser.New(t)
	browserSignIn(b, s, "frida@example.com", "pass-phrase-1")
	b.Navigate(s.URL + "/chat")
	b.ClickAndWait("#new-conversation")
	cid := strings.TrimPrefix(b.Path(), "/chat/")
	for i, q := range []string{"What is a VLAN?", "Why use VLANs?", "What is a trunk port?"} {
		mid := sendQ(b, q, false)
		waitStatus(b, mid, "complete")
		waitFor(b, "the usage bar to count the question", `document.getElementById('usage').dataset.used === '`+string(rune('1'+i))+`'`)
	}
	b.WaitVisible("#see-plans")
	if got := b.Text("#see-plans"); got != "See plans" {
		b.Fatalf("call to action %q", got)
	}
	if b.Has("textarea#q") {
		b.Fatalf("the input is still there at the limit")
	}
	if cls, _ := b.Attr("#usage", "class"); !strings.Contains(cls, "red") {
		b.Fatalf("usage bar class %q at 3 of 3, want red", cls)
	}
	b.ClickAndWait("#see-plans")
	if b.Path() != "/upgrade" || !b.Has(`#plan-FREE[aria-current="true"]`) {
		b.Fatalf("at %s after See plans", b.Path())
	}

	admin := browser.New(t)
	browserSignIn(admin, s, "root@example.com", "pass-phrase-1")
	admin.Navigate(s.URL + "/admin/users?q=frida")
	admin.WaitVisible("#u-" + student.ID)
	if err := chromedp.Do(admin.Ctx, chromedp.SetValue(chromedp.CSS("#plan-"+student.ID), "PRO")); err != nil {
		admin.Fatalf("choose PRO: %v", err)
	}
	admin.ClickAndWait("#set-plan-" + student.ID)
	admin.WaitVisible("#admin-flash")
	if got := admin.Text("#audit tbody tr:first-child .to"); got != "PRO" {
		admin.Fatalf("audit log shows %q, want PRO", got)
	}

	b.Navigate(s.URL + "/chat/" + cid)
	b.WaitVisible("textarea#q")
	if b.Has("#see-plans") || b.Has("#usage") {
		b.Fatalf("after the upgrade: call to action or usage bar still shown")
	}
	mid := sendQ(b, "And a native VLAN?", false)
	waitStatus(b, mid, "complete")
}
