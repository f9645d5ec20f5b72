package web_test

import (
	"net/http"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// On an aula that sends no email, "Forgot password" gives the contact
// address a SUPER_ADMIN sets in Admin → Site, as a mailto link (and says
// none is set before); a bad address is a 422 in the admin's language that
// keeps what was typed; only a SUPER_ADMIN sees the page. All without JavaScript.
func TestForgotPasswordShowsTheContactAddress(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", "a-long-password-1", models.PlanSuperAdmin)
	s.User(t, "editor@example.com", "a-long-password-1", models.PlanContentAdmin)
	visitor := webtest.New(t, s.URL)

	p := visitor.Get("/password/forgot")
	if p.Doc.Find("#ask-admin").Length() != 1 || p.Doc.Find("#no-contact").Length() != 1 || p.Doc.Find("#contact-link").Length() != 0 {
		t.Fatalf("before an address is set the page says %q", p.Text("section"))
	}

	admin := s.SignIn(t, "root@example.com", "a-long-password-1")
	if admin.Get("/admin").Doc.Find(`#tab-site[href="/admin/site"]`).Length() != 1 {
		t.Error("the admin tabs have no Site tab")
	}
	for _, tc := range []struct{ lang, want string }{{"en", "valid email"}, {"es", "correo válido"}} {
		admin.Lang = tc.lang
		s.DB.Exec(`UPDATE users SET locale = ? WHERE email = 'root@example.com'`, tc.lang)
		bad := admin.Submit(admin.Get("/admin/site"), "#site-form", map[string]string{"contact_email": "ask the office"})
		if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Text("#admin-error"), tc.want) ||
			bad.Doc.Find("#contact-email").AttrOr("value", "") != "ask the office" {
			t.Errorf("%s: a bad address: %d %q", tc.lang, bad.Status, bad.Text("#admin-error"))
		}
	}
	admin.Lang = "en"
	s.DB.Exec(`UPDATE users SET locale = 'en' WHERE email = 'root@example.com'`)
	ok := admin.Submit(admin.Get("/admin/site"), "#site-form", map[string]string{"contact_email": " Help@School.example "})
	if ok.Status != http.StatusOK || ok.URL.Path != "/admin/site" || ok.Text("#admin-flash") == "" ||
		ok.Doc.Find("#contact-email").AttrOr("value", "") != "help@school.example" {
		t.Fatalf("saving the address: %d at %s, value %q", ok.Status, ok.URL, ok.Doc.Find("#contact-email").AttrOr("value", ""))
	}

	for _, lang := range []string{"en", "es"} {
		visitor.Lang = lang
		p = visitor.Get("/password/forgot")
		if href := p.Doc.Find("#contact-link").AttrOr("href", ""); href != "mailto:help@school.example" || p.Doc.Find("#no-contact").Length() != 0 {
			t.Errorf("%s: the forgot page links %q: %q", lang, href, p.Text("section"))
		}
	}

	editor := s.SignIn(t, "editor@example.com", "a-long-password-1")
	if got := editor.Get("/admin/site"); got.Status != http.StatusNotFound {
		t.Errorf("a content admin opened the site settings: %d", got.Status)
	}
}
