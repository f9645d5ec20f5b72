package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// orgWith creates an organization whose first email is its admin and the
// others plain members, and returns its id.
func orgWith(t *testing.T, s *apptest.Server, root *webtest.Client, slug string, emails ...string) string {
	t.Helper()
	id := createOrg(t, root, slug, slug, "10")
	for i, e := range emails {
		u := s.User(t, e, orgPass, models.PlanFree)
		nameAdmin(t, root, id, e)
		if i > 0 {
			if err := s.DB.Exec(`UPDATE organization_members SET role = 'member' WHERE user_id = ?`, u.ID).Error; err != nil {
				t.Fatal(err)
			}
			if err := s.DB.Exec(`UPDATE users SET plan = ? WHERE id = ?`, models.PlanCorporateUser, u.ID).Error; err != nil {
				t.Fatal(err)
			}
		}
	}
	return id
}

// userID is the id of the account with email.
func userID(t *testing.T, s *apptest.Server, email string) string {
	t.Helper()
	var id string
	if err := s.DB.Raw(`SELECT id FROM users WHERE email = ?`, email).Scan(&id).Error; err != nil || id == "" {
		t.Fatalf("user %s: %v", email, err)
	}
	return id
}

// newGroup creates a group on /org with its form and returns its id.
func newGroup(t *testing.T, s *apptest.Server, admin *webtest.Client, orgID, name string) string {
	t.Helper()
	p := admin.Submit(admin.Get("/org"), "#group-form", map[string]string{"name": name})
	var id int64
	s.DB.Raw(`SELECT id FROM organization_groups WHERE organization_id = ? AND name = ?`, orgID, name).Scan(&id)
	if p.Status != http.StatusOK || id == 0 || !strings.Contains(p.Text("#admin-flash"), name) {
		t.Fatalf("create group %s: %d %q", name, p.Status, p.Text("main"))
	}
	return strconv.FormatInt(id, 10)
}

// Groups on /org without JavaScript: create, rename, bulk add and remove
// ticked members, delete after a confirmation; a member of another
// organization is never added.
func TestOrgGroupsWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	orgA := orgWith(t, s, root, "org-a", "a@example.com", "m1@example.com", "m2@example.com")
	orgWith(t, s, root, "org-b", "b@example.com", "mb@example.com")
	a := s.SignIn(t, "a@example.com", orgPass)
	red := newGroup(t, s, a, orgA, "Red")
	m1, m2, mb := userID(t, s, "m1@example.com"), userID(t, s, "m2@example.com"), userID(t, s, "mb@example.com")

	home := a.Get("/org")
	if home.Doc.Find(`input[type=checkbox][form=bulk-form][name=member]`).Length() != 3 || home.Doc.Find("form#bulk-form").Length() != 1 {
		t.Fatalf("no member checkboxes for the bulk form: %q", home.Text("#members"))
	}
	bulk := func(action string, ids ...string) *webtest.Page {
		return a.Post("/org/groups/members", url.Values{"_csrf": {home.CSRF()}, "group": {red}, "action": {action}, "member": ids})
	}
	if p := bulk("add", m1, m2, mb); p.Status != http.StatusOK || !strings.Contains(p.Text("#admin-flash"), "2 added to “Red”") ||
		p.Text("#member-"+m1+" .member-groups") != "Red" {
		t.Fatalf("bulk add: %d %q %q", p.Status, p.Text("#admin-flash"), p.Text("#members"))
	}
	if p := bulk("remove", m2); p.Status != http.StatusOK || !strings.Contains(p.Text("#admin-flash"), "1 removed from “Red”") {
		t.Fatalf("bulk remove: %d %q", p.Status, p.Text("#admin-flash"))
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organization_group_members WHERE group_id = ?`, red); n != 1 {
		t.Errorf("%d members in Red, want 1 (m1)", n)
	}
	p := a.Submit(home, "#group-"+red+" form", map[string]string{"name": "Rojo"})
	if p.Status != http.StatusOK || !strings.Contains(p.Text("#admin-flash"), "Rojo") {
		t.Fatalf("rename: %d %q", p.Status, p.Text("main"))
	}
	confirm := a.Get("/org/groups/" + red + "/delete")
	if confirm.Status != http.StatusOK || !strings.Contains(confirm.Text("h1"), "Rojo") {
		t.Fatalf("delete confirmation: %d %q", confirm.Status, confirm.Text("main"))
	}
	if p := a.Submit(confirm, "#group-delete-confirm", nil); p.Status != http.StatusOK || p.Text("#groups-empty") == "" {
		t.Fatalf("delete: %d %q", p.Status, p.Text("#groups"))
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organization_members WHERE organization_id = ?`, orgA); n != 3 {
		t.Errorf("deleting the group left %d members, want 3", n)
	}
}

// Two organizations: each admin gets 404 for the other's groups and
// assignments, members never reach /org, and nothing changes.
func TestOrgGroupsIsolation(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	orgA := orgWith(t, s, root, "org-a", "a@example.com", "ma@example.com")
	orgB := orgWith(t, s, root, "org-b", "b@example.com", "mb@example.com")
	a, b := s.SignIn(t, "a@example.com", orgPass), s.SignIn(t, "b@example.com", orgPass)
	groups := map[string]string{"a": newGroup(t, s, a, orgA, "Alpha"), "b": newGroup(t, s, b, orgB, "Beta")}
	assigns := map[string]string{}
	for who, c := range map[string]*webtest.Client{"a": a, "b": b} {
		c.Submit(c.Get("/org"), "#assign-form", map[string]string{"group": groups[who], "lesson": "vlan-basics"})
		var id int64
		s.DB.Raw(`SELECT a.id FROM organization_assignments a JOIN organization_groups g ON g.id = a.group_id WHERE g.id = ?`, groups[who]).Scan(&id)
		if id == 0 {
			t.Fatalf("%s could not assign", who)
		}
		assigns[who] = strconv.FormatInt(id, 10)
	}
	before := apptest.Count(t, s, `SELECT count(*) FROM organization_groups`) + apptest.Count(t, s, `SELECT count(*) FROM organization_assignments`) +
		apptest.Count(t, s, `SELECT count(*) FROM organization_group_members`)
	for _, tc := range []struct {
		who   string
		c     *webtest.Client
		other string
	}{{"a", a, "b"}, {"b", b, "a"}} {
		csrf := tc.c.Get("/org").CSRF()
		g, asg := groups[tc.other], assigns[tc.other]
		mine := userID(t, s, "m"+tc.who+"@example.com")
		for _, r := range []struct{ method, path string }{
			{"GET", "/org/groups/" + g + "/delete"}, {"POST", "/org/groups/" + g + "/delete"},
			{"POST", "/org/groups/" + g}, {"POST", "/org/groups/members"},
			{"POST", "/org/assignments/" + asg + "/delete"}, {"GET", "/org/groups/x/delete"},
		} {
			f := url.Values{"name": {"Taken"}, "group": {g}, "action": {"add"}, "member": {mine}}
			if p := send(t, tc.c, r.method, r.path, f, csrf); p.Status != http.StatusNotFound {
				t.Errorf("admin of %s: %s %s: %d", tc.who, r.method, r.path, p.Status)
			}
		}
		p := send(t, tc.c, "POST", "/org/assignments", url.Values{"group": {g}, "path": {"1"}}, csrf)
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("#admin-error"), "not one of your organization") {
			t.Errorf("admin of %s assigning to the other's group: %d %q", tc.who, p.Status, p.Text("#admin-error"))
		}
	}
	membersNeverReachOrg(t, s, groups, assigns)
	after := apptest.Count(t, s, `SELECT count(*) FROM organization_groups`) + apptest.Count(t, s, `SELECT count(*) FROM organization_assignments`) +
		apptest.Count(t, s, `SELECT count(*) FROM organization_group_members`)
	if after != before {
		t.Errorf("rows changed: %d, was %d", after, before)
	}
}

// Bad input on the group and assignment forms: a clear 4xx in Spanish, never a 500.
func TestOrgGroupsBadInput(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	orgA := orgWith(t, s, root, "org-a", "a@example.com", "m@example.com")
	orgB := orgWith(t, s, root, "org-b", "b@example.com")
	a := s.SignIn(t, "a@example.com", orgPass)
	red, other := newGroup(t, s, a, orgA, "Red"), newGroup(t, s, s.SignIn(t, "b@example.com", orgPass), orgB, "Blue")
	a.Submit(a.Get("/org"), "#assign-form", map[string]string{"lesson": "subnetting"})
	a.Lang = "es"
	csrf := a.Get("/org").CSRF()
	m := userID(t, s, "m@example.com")
	v := func(kv ...string) url.Values {
		f := url.Values{"_csrf": {csrf}}
		for i := 0; i < len(kv); i += 2 {
			f.Add(kv[i], kv[i+1])
		}
		return f
	}
	for _, tc := range []struct {
		name, path string
		form       url.Values
		status     int
		says       string
	}{
		{"NUL in a group name", "/org/groups", v("name", "a\x00b"), 400, "UTF-8"},
		{"invalid UTF-8 in a group name", "/org/groups", v("name", "a\xffb"), 400, "UTF-8"},
		{"empty group name", "/org/groups", v("name", "  "), 422, "de 1 a 100"},
		{"overlong group name", "/org/groups", v("name", strings.Repeat("g", 101)), 422, "de 1 a 100"},
		{"control character", "/org/groups", v("name", "a\x07b"), 422, "imprimibles"},
		{"taken name, other case", "/org/groups", v("name", "RED"), 409, "Otro grupo"},
		{"overlong rename", "/org/groups/" + red, v("name", strings.Repeat("g", 101)), 422, "de 1 a 100"},
		{"bulk without members", "/org/groups/members", v("group", red, "action", "add"), 422, "Marca"},
		{"bulk with a bad action", "/org/groups/members", v("group", red, "action", "move", "member", m), 422, "añadir al grupo"},
		{"nothing to assign", "/org/assignments", v(), 422, "Elige un itinerario"},
		{"both a path and lessons", "/org/assignments", v("path", "1", "lesson", "subnetting"), 422, "Elige un itinerario"},
		{"unknown lesson", "/org/assignments", v("lesson", "no-such-lesson"), 422, "no existe"},
		{"lesson id with NUL", "/org/assignments", v("lesson", "a\x00"), 400, "UTF-8"},
		{"unknown path", "/org/assignments", v("path", "999999"), 422, "no existe"},
		{"path not a number", "/org/assignments", v("path", "redes"), 422, "no existe"},
		{"due not a date", "/org/assignments", v("lesson", "vlan-basics", "due", "mañana"), 422, "fecha límite"},
		{"due February 30", "/org/assignments", v("lesson", "vlan-basics", "due", "2027-02-30"), 422, "fecha límite"},
		{"due year 9999", "/org/assignments", v("lesson", "vlan-basics", "due", "9999-01-01"), 422, "fecha límite"},
		{"a group of another organization", "/org/assignments", v("lesson", "vlan-basics", "group", other), 422, "no es de tu organización"},
		{"group not a number", "/org/assignments", v("lesson", "vlan-basics", "group", "rojo"), 422, "no es de tu organización"},
		{"assigned already", "/org/assignments", v("lesson", "subnetting"), 409, "ya lo tienen"},
	} {
		p := a.Post(tc.path, tc.form)
		if p.Status != tc.status || !strings.Contains(p.Text("main"), tc.says) {
			t.Errorf("%s: %d, want %d saying %q: %q", tc.name, p.Status, tc.status, tc.says, p.Text("#admin-error"))
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organization_groups WHERE organization_id = ?`, orgA); n != 1 {
		t.Errorf("%d groups after bad input, want 1", n)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organization_assignments WHERE organization_id = ?`, orgA); n != 1 {
		t.Errorf("%d assignments after bad input, want 1", n)
	}
}

// membersNeverReachOrg: plain members of either organization get 404 for
// every group and assignment route.
func membersNeverReachOrg(t *testing.T, s *apptest.Server, groups, assigns map[string]string) {
	t.Helper()
	for _, e := range []string{"ma", "mb"} {
		c := s.SignIn(t, e+"@example.com", orgPass)
		tok := c.Get("/settings").CSRF()
		for _, r := range []struct{ method, path string }{
			{"GET", "/org"}, {"POST", "/org/groups"}, {"POST", "/org/groups/" + groups["a"]},
			{"GET", "/org/groups/" + groups["b"] + "/delete"}, {"POST", "/org/groups/members"},
			{"POST", "/org/assignments"}, {"POST", "/org/assignments/" + assigns["a"] + "/delete"},
		} {
			if p := send(t, c, r.method, r.path, url.Values{"name": {"X"}, "lesson": {"subnetting"}}, tok); p.Status != http.StatusNotFound {
				t.Errorf("member %s: %s %s: %d", e, r.method, r.path, p.Status)
			}
		}
	}
}
