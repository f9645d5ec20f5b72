package web_test

import (
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// In real Chromium, with JavaScript on and off: a SUPER_ADMIN creates an
// organization with 5 seats and names its admin; the admin makes a join
// link; a visitor opens it, signs up on the way and joins. Every new page
// fits a 390 px phone without scrolling sideways, light and dark (with
// AULA_SHOTS set, screenshots of each are saved there).
func TestBrowserOrganizationJourney(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t)
			s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
			s.User(t, "boss@example.com", orgPass, models.PlanFree)
			b := browser.New(t, tt.opts...)
			shots := !b.NoJS
			browserSignIn(b, s, "root@example.com", orgPass)
			b.Navigate(s.URL + "/admin/organizations")
			b.WaitVisible("#org-create-submit")
			b.Fill("#org-name", "Colegio Norte")
			b.Fill("#org-slug", "colegio-norte")
			b.Fill("#org-seats", "5")
			b.ClickAndWait("#org-create-submit")
			if !strings.HasPrefix(b.Path(), "/admin/organizations/") || !strings.Contains(b.Text("#org-seats-used"), "0 of 5") {
				b.Fatalf("after creating: at %s, %q", b.Path(), b.Text("#org-seats-used"))
			}
			b.Fill("#org-admin-email", "boss@example.com")
			b.ClickAndWait("#org-name-admin-submit")
			if !strings.Contains(b.Text("#admin-flash"), "boss@example.com") || !b.Has(`#members tr[data-role="admin"]`) {
				b.Fatalf("naming the admin: %q %q", b.Text("#admin-flash"), b.Text("#admin-error"))
			}
			orgShots(b, shots, "admin-org")
			b.Navigate(s.URL + "/admin/organizations")
			orgShots(b, shots, "admin-orgs")
			b.ClickAndWait("#signout")

			browserSignIn(b, s, "boss@example.com", orgPass)
			b.ClickAndWait("#nav-org")
			b.ClickAndWait("#link-create")
			link := b.Text("#new-link")
			if !strings.HasPrefix(link, s.URL+"/join/") {
				b.Fatalf("the join link: %q", link)
			}
			orgShots(b, shots, "org-home")
			b.ClickAndWait("#signout")

			b.Navigate(link)
			b.WaitVisible("#join-signup")
			orgShots(b, shots, "join-signed-out")
			b.ClickAndWait("#join-signup")
			b.Fill("#name", "Nora Student")
			b.Fill("#email", "nora@example.com")
			b.Fill("#password", orgPass)
			b.ClickAndWait("#signup-submit")
			if b.Path() != strings.TrimPrefix(link, s.URL) {
				b.Fatalf("after sign-up: at %s", b.Path())
			}
			orgShots(b, shots, "join")
			b.ClickAndWait("#join-submit")
			if b.Path() != "/learn" || !strings.Contains(b.Text("#flash"), "Colegio Norte") {
				b.Fatalf("after joining: at %s, flash %q", b.Path(), b.Text("#flash"))
			}
			b.Navigate(s.URL + "/settings#organization")
			b.WaitVisible("#org-leave")
			orgShots(b, shots, "settings-org")
			var n int64
			s.DB.Raw(`SELECT count(*) FROM organization_members m JOIN users u ON u.id = m.user_id
				WHERE u.email = 'nora@example.com' AND u.plan = ?`, models.PlanCorporateUser).Scan(&n)
			if n != 1 {
				b.Fatalf("the student is not a CORPORATE_USER member")
			}
		})
	}
}

// orgShots checks the page at 1366×900 and 390×844, light and dark: it
// never scrolls sideways; with shots, each is saved (AULA_SHOTS).
func orgShots(b *browser.Browser, shots bool, name string) {
	b.T.Helper()
	for _, size := range []struct {
		name   string
		size   [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		b.Viewport(size.size, size.mobile)
		// The scroll offset outlives the resize: bring the URL's fragment back into view.
		eval[bool](b, `(document.querySelector(location.hash || 'body') || document.body).scrollIntoView(), true`)
		for _, sch := range []string{"light", "dark"} {
			b.ColorScheme(sch)
			if w := eval[float64](b, `document.documentElement.scrollWidth`); w > float64(size.size[0]) {
				b.Errorf("%s at %s px is %v px wide", name, size.name, w)
			}
			if shots {
				b.Shot(shotsDir(), name+"-"+size.name+"-"+sch)
			}
		}
	}
	b.Viewport(browser.Desktop, false)
	b.ColorScheme("light")
}
