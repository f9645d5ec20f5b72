package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// Without JavaScript: /upgrade shows the plans a student can have and asks
// for one; a SUPER_ADMIN sees the request on /admin/users and approves it
// (an audited plan change, an email in the student's language) or declines
// it; staff plans cannot be requested.
func TestUpgradeRequestsWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	mail := s.WithMail(t)
	student := s.User(t, "frida@example.com", "pass-phrase-1", models.PlanFree)
	s.DB.Exec(`UPDATE users SET locale = 'es' WHERE id = ?`, student.ID)
	s.User(t, "root@example.com", "pass-phrase-1", models.PlanSuperAdmin)
	c := s.SignIn(t, "frida@example.com", "pass-phrase-1")
	admin := s.SignIn(t, "root@example.com", "pass-phrase-1")

	p := c.Get("/upgrade")
	for _, staff := range []string{"CORPORATE_ADMIN", "CONTENT_ADMIN", "SUPER_ADMIN"} {
		if p.Doc.Find("#plan-"+staff).Length() != 0 || p.Doc.Find(`#upgrade-plan option[value="`+staff+`"]`).Length() != 0 {
			t.Errorf("/upgrade offers the staff plan %s", staff)
		}
	}
	if p.Doc.Find("#plan-PRO").Length() != 1 || p.Doc.Find("#request-upgrade").Length() != 1 {
		t.Fatalf("/upgrade lacks the plans or the request action")
	}
	if p = c.Submit(p, "#upgrade-request", map[string]string{"plan": "SUPER_ADMIN"}); p.Status != http.StatusUnprocessableEntity {
		t.Errorf("a staff plan was requestable: %d", p.Status)
	}
	p = c.Submit(c.Get("/upgrade"), "#upgrade-request", map[string]string{"plan": "PRO"})
	if p.Status != http.StatusOK || p.URL.Path != "/upgrade" || !strings.Contains(p.Text("#upgrade-pending"), "Pro") {
		t.Fatalf("after the request: %d at %s, pending %q", p.Status, p.URL, p.Text("#upgrade-pending"))
	}

	a := admin.Get("/admin/users")
	row := a.Doc.Find("#req-" + student.ID)
	if row.Length() != 1 || !strings.Contains(row.Text(), "frida@example.com") {
		t.Fatalf("the admin does not see the request: %q", a.Text("#upgrade-requests"))
	}
	a = admin.Submit(a, "#req-"+student.ID+" form:has(button.approve)", nil)
	if a.Status != http.StatusOK || a.URL.Path != "/admin/users" || a.Doc.Find("#req-"+student.ID).Length() != 0 {
		t.Fatalf("after approving: %d at %s", a.Status, a.URL)
	}
	var plan string
	s.DB.Raw(`SELECT plan FROM users WHERE id = ?`, student.ID).Scan(&plan)
	if plan != models.PlanPro || apptest.Count(t, s, `SELECT count(*) FROM plan_changes WHERE user_id = ? AND to_plan = 'PRO'`, student.ID) != 1 {
		t.Fatalf("approved: plan %s, or the change was not audited", plan)
	}
	if m := mail.Next(t); m.To != "frida@example.com" || !strings.Contains(m.Subject, "Se aprobó") {
		t.Errorf("approval email to %q: %q", m.To, m.Subject)
	}

	c.Submit(c.Get("/upgrade"), "#upgrade-request", map[string]string{"plan": "ELITE"})
	a = admin.Submit(admin.Get("/admin/users"), "#req-"+student.ID+" form:has(button.decline)", nil)
	s.DB.Raw(`SELECT plan FROM users WHERE id = ?`, student.ID).Scan(&plan)
	if a.Status != http.StatusOK || plan != models.PlanPro || a.Doc.Find("#upgrade-requests-empty").Length() != 1 {
		t.Fatalf("after declining: %d, plan %s", a.Status, plan)
	}
	if m := mail.Next(t); !strings.Contains(m.Subject, "ELITE") && !strings.Contains(m.Subject, "Elite") {
		t.Errorf("decline email %q", m.Subject)
	}
	// Someone else's (or a decided) request cannot be decided again.
	if p := c.Post("/admin/upgrades/1/approve", url.Values{"_csrf": {c.Get("/learn").CSRF()}}); p.Status != http.StatusNotFound {
		t.Errorf("a student deciding a request: %d", p.Status)
	}
}

// A corporate plan follows membership: a student is never offered it, a
// request for it is refused, and a member is told their organization sets
// their plan instead of being offered a request they could not get.
func TestUpgradeNeverOffersACorporatePlan(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	orgWith(t, s, root, "acme", "boss@example.com", "mia@example.com")
	s.User(t, "frida@example.com", orgPass, models.PlanFree)

	student := s.SignIn(t, "frida@example.com", orgPass)
	p := student.Get("/upgrade")
	if p.Doc.Find(`#upgrade-plan option[value="CORPORATE_USER"]`).Length() != 0 {
		t.Error("/upgrade offers a student the corporate plan")
	}
	if p = student.Submit(p, "#upgrade-request", map[string]string{"plan": "CORPORATE_USER"}); p.Status != http.StatusUnprocessableEntity {
		t.Errorf("a request for the corporate plan: %d, want 422", p.Status)
	}
	var n int64
	s.DB.Raw(`SELECT count(*) FROM upgrade_requests`).Scan(&n)
	if n != 0 {
		t.Errorf("%d upgrade requests stored, want none", n)
	}

	member := s.SignIn(t, "mia@example.com", orgPass)
	p = member.Get("/upgrade")
	if p.Doc.Find("#upgrade-request").Length() != 0 || !strings.Contains(p.Text("#upgrade-org"), "organization") {
		t.Errorf("a member's /upgrade: form %d, note %q", p.Doc.Find("#upgrade-request").Length(), p.Text("#upgrade-org"))
	}
}
