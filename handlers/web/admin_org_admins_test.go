package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/smtptest"
	"aula/internal/webtest"
	"aula/models"
)

// nameAdminForm submits the form that names an organization's admin.
func nameAdminForm(t *testing.T, root *webtest.Client, id, email, lang string) *webtest.Page {
	t.Helper()
	return root.Submit(root.Get("/admin/organizations/"+id), "#org-name-admin", map[string]string{"email": email, "locale": lang})
}

// adminInvitationRow is the pending admin invitation of email on the organization's page.
func adminInvitationRow(root *webtest.Client, id, email string) string {
	return root.Get("/admin/organizations/"+id).Doc.Find(`#pending-admin-invitations tr[data-email="`+email+`"]`).AttrOr("id", "")
}

// Without JavaScript: a SUPER_ADMIN names the first admin of an
// organization by the address of someone with no account; the letter goes
// in the language chosen, the invitation takes a seat and is listed with
// resend (a new link) and cancel (asked first); the person follows the
// link in a new session, signs up on the way and lands on /org as its
// admin; another account cannot use the link.
func TestSuperAdminInvitesTheFirstAdminByEmail(t *testing.T) {
	s := apptest.New(t)
	box := s.WithMail(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	s.User(t, "intruder@example.com", orgPass, models.PlanFree)
	root := s.SignIn(t, "root@example.com", orgPass)
	id := createOrg(t, root, "Colegio Sur", "colegio-sur", "2")

	p := nameAdminForm(t, root, id, " Nueva@Example.com ", "es")
	if p.Status != http.StatusOK || !strings.Contains(p.Text("#admin-flash"), "nueva@example.com") ||
		adminInvitationRow(root, id, "nueva@example.com") == "" {
		t.Fatalf("invite the admin: %d %q %q", p.Status, p.Text("#admin-flash"), p.Text("#admin-error"))
	}
	m := box.Next(t)
	if m.To != "nueva@example.com" || m.Subject != "Te invitan a administrar Colegio Sur en aula" || !strings.Contains(m.Text, "Administrar Colegio Sur") {
		t.Fatalf("the letter (in Spanish, to administer): to %s %q\n%s", m.To, m.Subject, m.Text)
	}
	first := invitePath(t, m)

	// The invitation takes a seat: with a second one, the third address finds none.
	nameAdminForm(t, root, id, "otra@example.com", "en")
	other := box.Next(t)
	if other.Subject != "You are invited to administer Colegio Sur on aula" {
		t.Fatalf("the letter in English: %q", other.Subject)
	}
	root.Lang = "es"
	if p = nameAdminForm(t, root, id, "tercera@example.com", "es"); p.Status != http.StatusConflict || !strings.Contains(p.Text("#admin-error"), "plazas libres") {
		t.Fatalf("a third invitation for 2 seats: %d %q", p.Status, p.Text("#admin-error"))
	}
	if p = nameAdminForm(t, root, id, "nueva@example.com", "es"); p.Status != http.StatusConflict || !strings.Contains(p.Text("#admin-error"), "reenvíala") {
		t.Fatalf("the same address again: %d %q", p.Status, p.Text("#admin-error"))
	}
	root.Lang = ""
	// Cancel the second, asked first: its seat is free again.
	row := adminInvitationRow(root, id, "otra@example.com")
	confirm := root.Get(root.Get("/admin/organizations/"+id).Doc.Find("#"+row+" a.danger").AttrOr("href", ""))
	if p = root.Submit(confirm, "#cancel-invitation-confirm", nil); !strings.Contains(p.Text("#admin-flash"), "otra@example.com") ||
		adminInvitationRow(root, id, "otra@example.com") != "" {
		t.Fatalf("cancel: %d %q", p.Status, p.Text("#admin-flash"))
	}
	explains(t, webtest.New(t, s.URL), invitePath(t, other), http.StatusGone, "canceled")

	// Resend: a new link, the old one no longer works.
	path := resendAdminInvitation(t, root, box, id, "nueva@example.com")
	explains(t, webtest.New(t, s.URL), first, http.StatusNotFound, "does not exist")

	// Another signed-in account cannot take the admin's place.
	intruder := s.SignIn(t, "intruder@example.com", orgPass)
	explains(t, intruder, path, http.StatusForbidden, "another email address")
	if r := intruder.Post(path, url.Values{"_csrf": {intruder.Get("/settings").CSRF()}}); r.Status != http.StatusForbidden {
		t.Fatalf("another account accepted the admin invitation: %d", r.Status)
	}

	acceptAdminInvitation(t, s, path, "nueva@example.com", "Colegio Sur")
	if adminInvitationRow(root, id, "nueva@example.com") != "" {
		t.Error("the accepted invitation is still listed as pending")
	}
	explains(t, webtest.New(t, s.URL), path, http.StatusGone, "already used")
}

// resendAdminInvitation presses Resend beside email's pending admin
// invitation and returns the new letter's link path.
func resendAdminInvitation(t *testing.T, root *webtest.Client, box *smtptest.Server, id, email string) string {
	t.Helper()
	row := adminInvitationRow(root, id, email)
	p := root.Submit(root.Get("/admin/organizations/"+id), "#"+row+" form", nil)
	if p.Status != http.StatusOK || !strings.Contains(p.Text("#admin-flash"), email) {
		t.Fatalf("resend: %d %q %q", p.Status, p.Text("#admin-flash"), p.Text("#admin-error"))
	}
	m := box.Next(t)
	if m.To != email {
		t.Fatalf("the resent letter went to %s", m.To)
	}
	return invitePath(t, m)
}

// acceptAdminInvitation follows an admin invitation's link in a new
// session, signs up with email on the way, accepts, and checks the person
// lands on /org as the organization's admin.
func acceptAdminInvitation(t *testing.T, s *apptest.Server, path, email, org string) {
	t.Helper()
	v := webtest.New(t, s.URL)
	p := v.Get(path)
	if p.Status != http.StatusOK || p.Text("h1") != "Administer "+org || p.Doc.Find("#join-signup").Length() != 1 {
		t.Fatalf("the link to a visitor: %d %q", p.Status, p.Text("main"))
	}
	p = v.Get(p.Doc.Find("#join-signup").AttrOr("href", ""))
	p = v.Submit(p, `form[action="/signup"]`, map[string]string{"name": "Nueva Admin", "email": email, "password": orgPass})
	if p.URL.Path != path || p.Doc.Find("#join-form").Length() != 1 {
		t.Fatalf("after sign-up: %d at %s", p.Status, p.URL)
	}
	p = v.Submit(p, "#join-form", nil)
	if p.Status != http.StatusOK || p.URL.Path != "/org" || !strings.Contains(p.Text("#flash, #admin-flash"), "administer "+org) {
		t.Fatalf("accepted: %d at %s %q", p.Status, p.URL, p.Text("main"))
	}
	u, err := s.App.Users.GetByEmail(t.Context(), email)
	if err != nil || planOf(t, s, u.ID) != models.PlanCorporateAdmin ||
		p.Doc.Find(`#member-`+u.ID+`[data-role="admin"]`).Length() != 1 {
		t.Fatalf("the new admin: %v, plan %s", err, planOf(t, s, u.ID))
	}
}

// A pending member invitation of the address becomes the admin one (one
// seat, a new link); bad input answers a clear 4xx in the SUPER_ADMIN's
// language; another organization's invitation, or no invitation, is 404.
func TestAdminInvitationBadInput(t *testing.T) {
	s := apptest.New(t)
	box := s.WithMail(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	boss := inviteOrg(t, s, root, "norte", "3", "boss@example.com")
	invite(t, boss, "luz@example.com")
	memberLetter := invitePath(t, box.Next(t))
	norte := userOrg(t, s, "boss@example.com")
	sur := createOrg(t, root, "Sur", "sur", "3")
	nameAdminForm(t, root, sur, "ana@example.com", "en")
	box.Next(t)
	var surInv string
	s.DB.Raw(`SELECT id::text FROM organization_invitations WHERE organization_id = ?`, sur).Scan(&surInv)

	if p := nameAdminForm(t, root, norte, "luz@example.com", "es"); p.Status != http.StatusOK {
		t.Fatalf("make the member invitation an admin one: %d %q", p.Status, p.Text("#admin-error"))
	}
	if m := box.Next(t); m.Subject != "Te invitan a administrar Org norte en aula" {
		t.Fatalf("the admin letter: %q", m.Subject)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organization_invitations WHERE organization_id = ? AND role = 'admin'`, norte); n != 1 ||
		apptest.Count(t, s, `SELECT count(*) FROM organization_invitations WHERE organization_id = ?`, norte) != 1 {
		t.Fatalf("%d admin invitations; the member one should have become it", n)
	}
	explains(t, webtest.New(t, s.URL), memberLetter, http.StatusNotFound, "does not exist")

	root.Lang = "es"
	csrf := root.Get("/admin/organizations").CSRF()
	form := func(email, lang string) url.Values {
		return url.Values{"_csrf": {csrf}, "email": {email}, "locale": {lang}}
	}
	admins := "/admin/organizations/" + norte + "/admins"
	for _, tc := range []struct {
		name, method, path string
		form               url.Values
		status             int
		says               string
	}{
		{"NUL in the email", "POST", admins, form("a\x00@example.com", "es"), 400, "UTF-8"},
		{"invalid UTF-8", "POST", admins, form("a\xff@example.com", "es"), 400, "UTF-8"},
		{"not an email", "POST", admins, form("no-es-correo", "es"), 422, "no es una dirección"},
		{"a display name", "POST", admins, form("Ana <ana@example.com>", "es"), 422, "no es una dirección"},
		{"unknown language", "POST", admins, form("eva@example.com", "fr"), 422, "inglés o español"},
		{"pending already", "POST", admins, form("luz@example.com", "es"), 409, "reenvíala"},
		{"a staff account", "POST", admins, form("root@example.com", "es"), 409, "equipo de aula"},
		{"bad cursor", "GET", "/admin/organizations/" + norte + "?inv_after=zz", nil, 400, "página"},
		{"resend, not a number", "POST", "/admin/organizations/" + norte + "/invitations/x/resend", form("", ""), 404, ""},
		{"resend, no such one", "POST", "/admin/organizations/" + norte + "/invitations/999999/resend", form("", ""), 404, ""},
		{"resend, another org's", "POST", "/admin/organizations/" + norte + "/invitations/" + surInv + "/resend", form("", ""), 404, ""},
		{"cancel page, another org's", "GET", "/admin/organizations/" + norte + "/invitations/" + surInv + "/cancel", nil, 404, ""},
		{"cancel, another org's", "POST", "/admin/organizations/" + norte + "/invitations/" + surInv + "/cancel", form("", ""), 404, ""},
		{"cancel, unknown org", "POST", "/admin/organizations/not-a-uuid/invitations/" + surInv + "/cancel", form("", ""), 404, ""},
	} {
		p := send(t, root, tc.method, tc.path, tc.form, "")
		if p.Status != tc.status || !strings.Contains(p.Text("main"), tc.says) {
			t.Errorf("%s: %d, want %d saying %q: %q", tc.name, p.Status, tc.status, tc.says, p.Text("main"))
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organization_invitations WHERE canceled_at IS NULL AND accepted_at IS NULL`); n != 2 {
		t.Errorf("%d pending invitations after bad input, want 2", n)
	}
}

// userOrg is the organization email belongs to.
func userOrg(t *testing.T, s *apptest.Server, email string) string {
	t.Helper()
	var id string
	s.DB.Raw(`SELECT m.organization_id FROM organization_members m JOIN users u ON u.id = m.user_id WHERE u.email = ?`, email).Scan(&id)
	if id == "" {
		t.Fatalf("%s belongs to no organization", email)
	}
	return id
}

// The SUPER_ADMIN's organization routes, old and new, answer 404 to two
// admins and two members of each of two organizations, a FREE student, a
// CONTENT_ADMIN and a visitor, and change nothing.
func TestSuperAdminOrganizationRoutesForEveryOtherRole(t *testing.T) {
	s := apptest.New(t)
	box := s.WithMail(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	o := twoOrgs(t, s, root)
	nameAdminForm(t, root, o.A, "new-admin@example.com", "en")
	box.Next(t)
	var inv string
	s.DB.Raw(`SELECT id::text FROM organization_invitations WHERE organization_id = ?`, o.A).Scan(&inv)
	org := "/admin/organizations/" + o.A
	routes := []struct{ method, path string }{
		{"GET", "/admin/organizations"}, {"POST", "/admin/organizations"},
		{"GET", org}, {"POST", org}, {"POST", org + "/admins"},
		{"POST", org + "/invitations/" + inv + "/resend"},
		{"GET", org + "/invitations/" + inv + "/cancel"}, {"POST", org + "/invitations/" + inv + "/cancel"},
		{"GET", org + "/delete"}, {"POST", org + "/delete"},
		{"POST", "/admin/users/" + o.Users["ma1"].ID + "/plan"},
	}
	form := url.Values{"name": {"Taken"}, "slug": {"taken"}, "seats": {"1"}, "email": {"free@example.com"}, "locale": {"en"}, "plan": {"FREE"}}
	for _, who := range []string{"a1", "a2", "ma1", "ma2", "b1", "b2", "mb1", "mb2", "free", "content", "visitor"} {
		c := webtest.New(t, s.URL)
		if who != "visitor" {
			c = s.SignIn(t, who+"@example.com", orgPass)
		}
		csrf := c.Get("/login").CSRF()
		for _, r := range routes {
			if p := send(t, c, r.method, r.path, form, csrf); p.Status != http.StatusNotFound || p.URL.Path == "/login" {
				t.Errorf("%s: %s %s: %d at %s", who, r.method, r.path, p.Status, p.URL)
			}
		}
	}
	if apptest.Count(t, s, `SELECT count(*) FROM organizations`) != 2 ||
		apptest.Count(t, s, `SELECT count(*) FROM organization_invitations WHERE canceled_at IS NULL`) != 1 ||
		apptest.Count(t, s, `SELECT count(*) FROM organization_members`) != 8 || planOf(t, s, o.Users["ma1"].ID) != models.PlanCorporateUser {
		t.Error("something changed")
	}
	select {
	case m := <-box.Messages:
		t.Errorf("a letter went out: %s %q", m.To, m.Subject)
	default:
	}
}
