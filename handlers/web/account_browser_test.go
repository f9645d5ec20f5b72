package web_test

import (
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// The password change and the forgotten-password flow in real headless
// Chromium, with JavaScript on and off: both are plain forms answering 303.
func TestBrowserPasswordChangeAndReset(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t)
			mail := s.WithMail(t)
			s.User(t, "ana@example.com", accountPass, models.PlanFree)
			b := browser.New(t, tt.opts...)
			other := s.SignIn(t, "ana@example.com", accountPass)

			// The landing page and the way in.
			b.Navigate(s.URL + "/")
			b.WaitVisible("#landing-demo")
			b.ClickAndWait("#landing-signin")
			if b.Path() != "/login" {
				b.Fatalf("the landing's sign-in link goes to %s", b.Path())
			}
			browserSignIn(b, s, "ana@example.com", accountPass)

			// Change the password: this browser stays in, the other device is out.
			b.Navigate(s.URL + "/settings")
			b.WaitVisible("#password-form")
			b.Fill("#current-password", accountPass)
			b.Fill("#new-password", "changed-pass-77")
			b.ClickAndWait("#change-password")
			if b.Path() != "/settings" || !b.Has("#flash") {
				b.Fatalf("after the change: at %s", b.Path())
			}
			if !signedOut(t, other) {
				b.Fatalf("the other device is still signed in")
			}
			b.Reload()
			if b.Path() != "/settings" {
				b.Fatalf("this browser was signed out by its own password change")
			}

			// Sign out, forget the password, reset it from the email.
			b.ClickAndWait("#signout")
			b.ClickAndWait("#forgot-link")
			b.Fill("#email", "ana@example.com")
			b.ClickAndWait("#forgot-submit")
			b.WaitVisible("#forgot-sent")
			b.Navigate(s.URL + linkPath(t, mail.Next(t)))
			b.WaitVisible("#reset-form")
			b.Fill("#new-password", "reset-pass-99")
			b.ClickAndWait("#reset-submit")
			if b.Path() != "/login" || !b.Has("#flash") {
				b.Fatalf("after the reset: at %s", b.Path())
			}
			browserSignIn(b, s, "ana@example.com", "reset-pass-99")
			if b.Path() != "/learn" {
				b.Fatalf("sign in with the new password: at %s", b.Path())
			}
		})
	}
}
