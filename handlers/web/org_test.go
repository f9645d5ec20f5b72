package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

const orgPass = "pass-phrase-1"

// createOrg creates an organization through /admin/organizations as root
// and returns its id.
func createOrg(t *testing.T, root *webtest.Client, name, slug, seats string) string {
	t.Helper()
	p := root.Submit(root.Get("/admin/organizations"), "#org-create", map[string]string{"name": name, "slug": slug, "seats": seats})
	id := strings.TrimPrefix(p.URL.Path, "/admin/organizations/")
	if p.Status != http.StatusOK || id == p.URL.Path || p.Text("#org-title") == "" {
		t.Fatalf("create %s: %d at %s: %s", slug, p.Status, p.URL, p.Text("#admin-error"))
	}
	return id
}

// nameAdmin names the account with email the admin of organization id.
func nameAdmin(t *testing.T, root *webtest.Client, id, email string) {
	t.Helper()
	p := root.Submit(root.Get("/admin/organizations/"+id), "#org-name-admin", map[string]string{"email": email})
	if p.Status != http.StatusOK || !strings.Contains(p.Text("#admin-flash"), email) {
		t.Fatalf("name admin %s: %d %q %q", email, p.Status, p.Text("#admin-flash"), p.Text("#admin-error"))
	}
}

// joinLink makes a join link on /org as an organization admin and returns its path.
func joinLink(t *testing.T, admin *webtest.Client) string {
	t.Helper()
	p := admin.Submit(admin.Get("/org"), "#link-form", map[string]string{"expires": farDate()})
	link := p.Text("#new-link")
	u, err := url.Parse(link)
	if p.Status != http.StatusOK || err != nil || !strings.HasPrefix(u.Path, "/join/") || len(u.Path) < len("/join/")+43 {
		t.Fatalf("join link: %d %q %q", p.Status, link, p.Text("#admin-error"))
	}
	return u.Path
}

// farDate is a link expiry 20 days ahead, within the allowed year.
func farDate() string { return time.Now().AddDate(0, 0, 20).Format(time.DateOnly) }

func planOf(t *testing.T, s *apptest.Server, id string) string {
	t.Helper()
	var plan string
	s.DB.Raw(`SELECT plan FROM users WHERE id = ?`, id).Scan(&plan)
	return plan
}

// Without JavaScript, the whole foundation of organizations: a SUPER_ADMIN
// creates one with seats and names its admin; the admin makes a join
// link; a visitor signs up on the way and joins; a signed-in student joins;
// the seats run out; the admin promotes, demotes and removes; a member
// sees on /settings what the admin sees and leaves.
func TestOrganizationsWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	boss := s.User(t, "boss@example.com", orgPass, models.PlanFree)
	pro := s.User(t, "pro@example.com", orgPass, models.PlanPro)
	s.User(t, "late@example.com", orgPass, models.PlanFree)
	root := s.SignIn(t, "root@example.com", orgPass)

	id := createOrg(t, root, "Colegio Norte", "colegio-norte", "3")
	nameAdmin(t, root, id, "boss@example.com")
	if p := planOf(t, s, boss.ID); p != models.PlanCorporateAdmin {
		t.Fatalf("the named admin's plan: %s", p)
	}
	admin := s.SignIn(t, "boss@example.com", orgPass)
	link := joinLink(t, admin)
	if h := admin.Get("/org"); h.Text("#new-link") != "" || h.Doc.Find(`#link-state[data-state="live"]`).Length() != 1 {
		t.Errorf("the link is shown twice, or not said to work: %q", h.Text("#link-state"))
	}

	// A visitor: sign up on the way, come back, join.
	v := webtest.New(t, s.URL)
	p := v.Get(link)
	if p.Status != http.StatusOK || p.Doc.Find("#join-signup").Length() != 1 {
		t.Fatalf("a visitor on the link: %d", p.Status)
	}
	p = v.Get(p.Doc.Find("#join-signup").AttrOr("href", ""))
	p = v.Submit(p, `form[action="/signup"]`, map[string]string{"name": "Nora Visitor", "email": "nora@example.com", "password": orgPass})
	if p.URL.Path != link || p.Doc.Find("#join-form").Length() != 1 {
		t.Fatalf("after sign-up: at %s", p.URL)
	}
	p = v.Submit(p, "#join-form", nil)
	if p.URL.Path != "/learn" || !strings.Contains(p.Text("#flash"), "Colegio Norte") {
		t.Fatalf("after joining: at %s, flash %q", p.URL, p.Text("#flash"))
	}

	// A signed-in PRO student is told the plan changes, joins, the seats are full.
	st := s.SignIn(t, "pro@example.com", orgPass)
	p = st.Get(link)
	if p.Doc.Find("#join-plan-note").Length() != 1 {
		t.Errorf("no note that the PRO plan becomes corporate")
	}
	st.Submit(p, "#join-form", nil)
	if plan := planOf(t, s, pro.ID); plan != models.PlanCorporateUser {
		t.Fatalf("the member's plan: %s", plan)
	}
	late := s.SignIn(t, "late@example.com", orgPass)
	late.Lang = "es"
	if p = late.Submit(late.Get(link), "#join-form", nil); p.Status != http.StatusConflict ||
		!strings.Contains(p.Text("#join-problem"), "no tiene plazas libres") {
		t.Fatalf("a fourth person for 3 seats: %d %q", p.Status, p.Text("#join-problem"))
	}

	// The admin: the last admin cannot step down; promote, demote, remove.
	h := admin.Get("/org")
	if h.Text("#org-seats-used") != "3 of 3 seats used" || h.Doc.Find("#members tbody tr").Length() != 3 {
		t.Fatalf("/org: %q, %d rows", h.Text("#org-seats-used"), h.Doc.Find("#members tbody tr").Length())
	}
	if r := admin.Post("/org/members/"+boss.ID+"/role", url.Values{"_csrf": {h.CSRF()}, "role": {"member"}}); r.Status != http.StatusConflict {
		t.Errorf("the only admin demoted themself: %d", r.Status)
	}
	h = admin.Submit(h, "form:has(#promote-"+pro.ID+")", nil)
	if h.Doc.Find(`#member-`+pro.ID+`[data-role="admin"]`).Length() != 1 || planOf(t, s, pro.ID) != models.PlanCorporateAdmin {
		t.Fatalf("promote: %q", h.Text("#admin-flash"))
	}
	h = admin.Submit(h, "form:has(#demote-"+pro.ID+")", nil)
	confirm := admin.Get(h.Doc.Find("#remove-"+pro.ID).AttrOr("href", ""))
	if h = admin.Submit(confirm, "#remove-confirm", nil); h.Doc.Find("#member-"+pro.ID).Length() != 0 || planOf(t, s, pro.ID) != models.PlanFree {
		t.Fatalf("remove: %d, plan %s", h.Status, planOf(t, s, pro.ID))
	}

	// The member: /settings says what the admin sees; leave.
	set := v.Get("/settings")
	if !strings.Contains(set.Text("#org-belongs"), "Colegio Norte") || !strings.Contains(set.Text("#org-sees"), "Never the text") {
		t.Fatalf("/settings: %q %q", set.Text("#org-belongs"), set.Text("#org-sees"))
	}
	set = v.Submit(v.Get("/settings/organization/leave"), "#leave-confirm", nil)
	if set.Doc.Find("#org-none").Length() != 1 || apptest.Count(t, s, `SELECT count(*) FROM organization_members`) != 1 {
		t.Fatalf("after leaving: %q", set.Text("#organization"))
	}
	if p = admin.Submit(admin.Get("/settings/organization/leave"), "#leave-confirm", nil); p.Status != http.StatusConflict {
		t.Errorf("the only admin left: %d", p.Status)
	}

	// Revoked, then deleted: the link explains itself, the admin is FREE.
	admin.Submit(admin.Get("/org"), `form[action="/org/link/revoke"]`, nil)
	if p = late.Get(link); p.Status != http.StatusGone || !strings.Contains(p.Text("#join-problem"), "revocó") {
		t.Errorf("a revoked link: %d %q", p.Status, p.Text("#join-problem"))
	}
	root.Submit(root.Get("/admin/organizations/"+id+"/delete"), "#org-delete-confirm", nil)
	if planOf(t, s, boss.ID) != models.PlanFree || admin.Get("/org").Status != http.StatusNotFound {
		t.Errorf("after deletion the admin is %s", planOf(t, s, boss.ID))
	}
}
