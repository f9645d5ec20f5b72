package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// setPlan posts a plan change of user id on /admin/users.
func setPlan(t *testing.T, root *webtest.Client, id, plan string) *webtest.Page {
	t.Helper()
	return root.Post("/admin/users/"+id+"/plan", url.Values{"_csrf": {root.Get("/admin/users").CSRF()}, "plan": {plan}})
}

// A plan follows membership: /admin/users refuses a corporate plan to
// someone in no organization and any other plan to a member, pointing to
// the organizations' pages, and turns a member's corporate plan into
// their role (never taking the last admin away); an approved upgrade
// request is refused the same way. Nothing changes on a refusal.
func TestPlanFollowsMembership(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	boss, m := s.User(t, "boss@example.com", orgPass, models.PlanFree), s.User(t, "m@example.com", orgPass, models.PlanFree)
	free := s.User(t, "free@example.com", orgPass, models.PlanFree)
	id := createOrg(t, root, "Norte", "norte", "5")
	nameAdmin(t, root, id, "boss@example.com")
	nameAdmin(t, root, id, "m@example.com")
	demote(t, s, s.SignIn(t, "boss@example.com", orgPass), m.ID)
	changes := func() int64 { return apptest.Count(t, s, `SELECT count(*) FROM plan_changes`) }
	before := changes()

	for _, tc := range []struct {
		name, user, plan, lang, says, link string
	}{
		{"corporate user outside", free.ID, models.PlanCorporateUser, "", "belongs to no organization", "/admin/organizations"},
		{"corporate admin outside", free.ID, models.PlanCorporateAdmin, "es", "no pertenece a ninguna organización", "/admin/organizations"},
		{"a member to FREE", m.ID, models.PlanFree, "", "belongs to the organization “Norte”", "/admin/organizations/" + id},
		{"a member to PRO", m.ID, models.PlanPro, "es", "pertenece a la organización «Norte»", "/admin/organizations/" + id},
		{"the admin to staff", boss.ID, models.PlanContentAdmin, "", "their plan follows their role", "/admin/organizations/" + id},
		{"the last admin demoted", boss.ID, models.PlanCorporateUser, "", "the only admin of “Norte”", "/admin/organizations/" + id},
	} {
		root.Lang = tc.lang
		p := setPlan(t, root, tc.user, tc.plan)
		if p.Status != http.StatusConflict || !strings.Contains(p.Text("#admin-error"), tc.says) ||
			p.Doc.Find(`#admin-error-link[href="`+tc.link+`"]`).Length() != 1 {
			t.Errorf("%s: %d %q, link %q", tc.name, p.Status, p.Text("#admin-error"), p.Doc.Find("#admin-error-link").AttrOr("href", ""))
		}
	}
	root.Lang = ""
	if planOf(t, s, free.ID) != models.PlanFree || planOf(t, s, m.ID) != models.PlanCorporateUser ||
		planOf(t, s, boss.ID) != models.PlanCorporateAdmin || changes() != before {
		t.Fatalf("a refusal changed something: %s %s %s, %d changes (was %d)",
			planOf(t, s, free.ID), planOf(t, s, m.ID), planOf(t, s, boss.ID), changes(), before)
	}

	// A member's corporate plan is their role: promoted, then the old admin demoted.
	for _, step := range []struct{ user, plan, role string }{
		{m.ID, models.PlanCorporateAdmin, models.RoleAdmin}, {boss.ID, models.PlanCorporateUser, models.RoleMember},
	} {
		p := setPlan(t, root, step.user, step.plan)
		var role string
		s.DB.Raw(`SELECT role FROM organization_members WHERE user_id = ?`, step.user).Scan(&role)
		if p.Status != http.StatusOK || role != step.role || planOf(t, s, step.user) != step.plan {
			t.Fatalf("to %s: %d %q, role %s", step.plan, p.Status, p.Text("#admin-error"), role)
		}
	}
	if changes() != before+2 {
		t.Errorf("%d plan changes recorded, want %d", changes(), before+2)
	}
	upgradeRefused(t, s, root, free, models.PlanCorporateUser, "belongs to no organization")
	upgradeRefused(t, s, root, boss, models.PlanPro, "their plan follows their role")
}

// upgradeRefused records u's request for plan (as one made before
// /upgrade stopped offering such plans would be) and has the SUPER_ADMIN
// approve it: refused with says, the request still pending, the plan kept.
func upgradeRefused(t *testing.T, s *apptest.Server, root *webtest.Client, u *models.User, plan, says string) {
	t.Helper()
	was := planOf(t, s, u.ID)
	if err := s.DB.Exec(`INSERT INTO upgrade_requests (user_id, plan, created_at) VALUES (?, ?, now())`, u.ID, plan).Error; err != nil {
		t.Fatal(err)
	}
	p := root.Submit(root.Get("/admin/users"), "#req-"+u.ID+" form:has(button.approve)", nil)
	if p.Status != http.StatusConflict || !strings.Contains(p.Text("#admin-error"), says) ||
		p.Doc.Find("#req-"+u.ID).Length() != 1 || planOf(t, s, u.ID) != was {
		t.Errorf("approve %s for %s: %d %q, plan %s", plan, u.Email, p.Status, p.Text("#admin-error"), planOf(t, s, u.ID))
	}
}

// The only admin of an organization may delete their account (what is
// theirs is theirs to delete), told first that it stays without an admin;
// it does, with its members, and the SUPER_ADMIN's list and page say
// "No admin" until they name one from its members. A co-admin is not told.
func TestOnlyAdminDeletesAccountOrganizationStays(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	o := twoOrgs(t, s, root)
	b1 := s.SignIn(t, "b1@example.com", orgPass)
	if b1.Get("/settings/delete").Doc.Find("#delete-sole-admin").Length() != 0 {
		t.Error("a co-admin is told the organization is left without an admin")
	}
	a2 := s.SignIn(t, "a2@example.com", orgPass)
	a2.Submit(a2.Get("/settings/delete"), "#delete-form", map[string]string{"password": orgPass})
	a1 := s.SignIn(t, "a1@example.com", orgPass)
	a1.Lang = "es"
	p := a1.Get("/settings/delete")
	if !strings.Contains(p.Text("#delete-sole-admin"), "Eres quien administra A en solitario") {
		t.Fatalf("the only admin is not told: %q", p.Text("main"))
	}
	if p = a1.Submit(p, "#delete-form", map[string]string{"password": orgPass}); p.Status != http.StatusOK || p.URL.Path != "/" {
		t.Fatalf("delete the only admin's account: %d at %s", p.Status, p.URL)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organization_members WHERE organization_id = ?`, o.A); n != 2 ||
		planOf(t, s, o.Users["ma1"].ID) != models.PlanCorporateUser {
		t.Fatalf("the organization's members after its admin left: %d", n)
	}
	list := root.Get("/admin/organizations")
	if list.Doc.Find("#org-"+o.A+" .no-admin").Length() != 1 || list.Doc.Find("#org-"+o.B+" .no-admin").Length() != 0 {
		t.Fatalf("the list does not single out the organization without an admin: %q", list.Text("#orgs"))
	}
	page := root.Get("/admin/organizations/" + o.A)
	if page.Doc.Find("#org-no-admin").Length() != 1 || page.Doc.Find("#org-name-admin").Length() != 1 {
		t.Fatalf("the organization's page does not say it has no admin: %q", page.Text("main"))
	}
	nameAdmin(t, root, o.A, "ma1@example.com")
	if root.Get("/admin/organizations/"+o.A).Doc.Find("#org-no-admin").Length() != 0 ||
		s.SignIn(t, "ma1@example.com", orgPass).Get("/org").Status != http.StatusOK {
		t.Fatal("the member named admin does not administer the organization")
	}
}

// Deleting an organization asks first (a page whose form posts; opening
// it deletes nothing), returns its members to FREE with the changes
// audited, and keeps what they wrote: threads, checks, progress.
func TestDeletingAnOrganizationKeepsWhatMembersWrote(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	o := twoOrgs(t, s, root)
	ma1 := s.SignIn(t, "ma1@example.com", orgPass)
	apptest.NewThread(t, ma1)
	ma1.Post("/learn/networking/vlan-basics/read", url.Values{"_csrf": {ma1.Get("/learn/networking/vlan-basics").CSRF()}})
	checkID(t, ma1.Post("/lessons/go-functions-errors/check", url.Values{"_csrf": {ma1.Get(checkLesson).CSRF()}, "anchor": {"multiple-return-values"}}))
	const theirs = `SELECT (SELECT count(*) FROM conversations WHERE user_id = ?) + (SELECT count(*) FROM checks WHERE user_id = ?)
		+ (SELECT count(*) FROM lesson_reads WHERE user_id = ?)`
	uid := o.Users["ma1"].ID
	before := apptest.Count(t, s, theirs, uid, uid, uid)
	if before < 4 { // the thread, the check and its conversation, the read
		t.Fatalf("ma1 has %d rows of their own, want at least 4", before)
	}

	confirm := root.Get("/admin/organizations/" + o.A + "/delete")
	form := confirm.Doc.Find("form#org-delete-confirm")
	if confirm.Status != http.StatusOK || form.AttrOr("method", "") != "post" || !strings.Contains(confirm.Text("main"), "4 members return to the Free plan") ||
		apptest.Count(t, s, `SELECT count(*) FROM organizations WHERE id = ?`, o.A) != 1 {
		t.Fatalf("the confirmation: %d, method %q: %q", confirm.Status, form.AttrOr("method", ""), confirm.Text("main"))
	}
	p := root.Submit(confirm, "#org-delete-confirm", nil)
	if p.Status != http.StatusOK || p.URL.Path != "/admin/organizations" || p.Doc.Find("#org-"+o.A).Length() != 0 {
		t.Fatalf("after deleting: %d at %s", p.Status, p.URL)
	}
	for _, e := range []string{"a1", "a2", "ma1", "ma2"} {
		if plan := planOf(t, s, o.Users[e].ID); plan != models.PlanFree {
			t.Errorf("%s is %s after the deletion", e, plan)
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM plan_changes WHERE to_plan = 'FREE' AND changed_by IS NOT NULL`); n != 4 {
		t.Errorf("%d audited returns to FREE, want 4", n)
	}
	if after := apptest.Count(t, s, theirs, uid, uid, uid); after != before || ma1.Get("/dashboard").Status != http.StatusOK {
		t.Errorf("ma1 had %d rows of their own, now %d", before, after)
	}
	if planOf(t, s, o.Users["mb1"].ID) != models.PlanCorporateUser || apptest.Count(t, s, `SELECT count(*) FROM organization_members`) != 4 {
		t.Error("the other organization changed")
	}
}
