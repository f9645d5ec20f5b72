package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// 50 people open the join link at once for the last 3 seats: exactly 3
// join and 47 are refused with a clear 409 in their language.
func TestJoinRaceForTheLastSeats(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	s.User(t, "boss@example.com", orgPass, models.PlanFree)
	first := s.User(t, "p00@example.com", orgPass, models.PlanFree)
	// The other 49 share the first one's password hash: no 49 hashings.
	if err := s.DB.Exec(`INSERT INTO users (email, name, password_hash, plan)
		SELECT 'p' || lpad(i::text, 2, '0') || '@example.com', 'Person ' || i, password_hash, 'FREE'
		FROM users, generate_series(1, 49) i WHERE id = ?`, first.ID).Error; err != nil {
		t.Fatal(err)
	}
	root := s.SignIn(t, "root@example.com", orgPass)
	id := createOrg(t, root, "Race", "race", "4")
	nameAdmin(t, root, id, "boss@example.com")
	link := joinLink(t, s.SignIn(t, "boss@example.com", orgPass))

	clients := make([]*webtest.Client, 50)
	forms := make([]url.Values, 50)
	for i := range clients {
		clients[i] = s.SignIn(t, fmt.Sprintf("p%02d@example.com", i), orgPass)
		clients[i].Lang = "es"
		forms[i] = url.Values{"_csrf": {clients[i].Get(link).CSRF()}}
	}
	pages := make([]*webtest.Page, 50)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { pages[i] = c.Post(link, forms[i]) })
	}
	wg.Wait()
	joined, refused := 0, 0
	for i, p := range pages {
		switch {
		case p.Status == http.StatusOK && p.URL.Path == "/learn":
			joined++
		case p.Status == http.StatusConflict && strings.Contains(p.Text("#join-problem"), "no tiene plazas libres"):
			refused++
		default:
			t.Errorf("person %d: %d at %s: %q", i, p.Status, p.URL, p.Text("main"))
		}
	}
	members := apptest.Count(t, s, `SELECT count(*) FROM organization_members WHERE organization_id = ?`, id)
	if joined != 3 || refused != 47 || members != 4 {
		t.Fatalf("%d joined, %d refused, %d members; want 3, 47 and 4", joined, refused, members)
	}
}

// orgPair is two organizations A and B, each with two admins (a1 and a2,
// b1 and b2) and two members (ma1 and ma2, mb1 and mb2), and a FREE
// student (free) and a CONTENT_ADMIN (content); Users by those names.
type orgPair struct {
	A, B  string
	Users map[string]*models.User
}

// twoOrgs makes an orgPair as people would: root creates the
// organizations and names all four of each admin, and each first admin
// demotes two of them on /org.
func twoOrgs(t *testing.T, s *apptest.Server, root *webtest.Client) orgPair {
	t.Helper()
	o := orgPair{Users: map[string]*models.User{}}
	for _, e := range []string{"a1", "a2", "ma1", "ma2", "b1", "b2", "mb1", "mb2", "free", "content"} {
		plan := models.PlanFree
		if e == "content" {
			plan = models.PlanContentAdmin
		}
		o.Users[e] = s.User(t, e+"@example.com", orgPass, plan)
	}
	o.A, o.B = createOrg(t, root, "A", "org-a", "10"), createOrg(t, root, "B", "org-b", "10")
	for org, people := range map[string][]string{o.A: {"a1", "a2", "ma1", "ma2"}, o.B: {"b1", "b2", "mb1", "mb2"}} {
		for _, e := range people {
			nameAdmin(t, root, org, e+"@example.com")
		}
		admin := s.SignIn(t, people[0]+"@example.com", orgPass)
		demote(t, s, admin, o.Users[people[2]].ID)
		demote(t, s, admin, o.Users[people[3]].ID)
	}
	return o
}

// demote makes an admin of the organization a member with its button on /org.
func demote(t *testing.T, s *apptest.Server, admin *webtest.Client, uid string) {
	t.Helper()
	p := admin.Submit(admin.Get("/org"), "form:has(#demote-"+uid+")", nil)
	if p.Status != http.StatusOK || p.Doc.Find(`#member-`+uid+`[data-role="member"]`).Length() != 1 ||
		planOf(t, s, uid) != models.PlanCorporateUser {
		t.Fatalf("demote %s: %d %q, plan %s", uid, p.Status, p.Text("#admin-error"), planOf(t, s, uid))
	}
}

// Two organizations, two admins and two members each: an admin reaches
// nothing of the other organization (404), members and students reach
// neither /org nor /admin/organizations, and nothing changes.
func TestOrganizationIsolation(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	o := twoOrgs(t, s, root)
	users, orgA, orgB := o.Users, o.A, o.B
	before := apptest.Count(t, s, `SELECT count(*) FROM organization_members WHERE role = 'admin'`)
	if before != 4 {
		t.Fatalf("%d admins after demoting two in each organization, want 4", before)
	}

	a := s.SignIn(t, "a1@example.com", orgPass)
	csrf := a.Get("/org").CSRF()
	for _, uid := range []string{users["b2"].ID, users["mb1"].ID, users["free"].ID, "not-a-uuid"} {
		for _, r := range []struct{ method, path string }{
			{"GET", "/org/members/" + uid + "/remove"},
			{"POST", "/org/members/" + uid + "/remove"},
			{"POST", "/org/members/" + uid + "/role"},
			{"GET", "/admin/organizations/" + orgB},
			{"POST", "/admin/organizations/" + orgB + "/delete"},
		} {
			if p := send(t, a, r.method, r.path, url.Values{"role": {"member"}}, csrf); p.Status != http.StatusNotFound {
				t.Errorf("admin of A: %s %s: %d", r.method, r.path, p.Status)
			}
		}
	}
	for _, e := range []string{"ma1", "mb2", "free", "content"} {
		c := s.SignIn(t, e+"@example.com", orgPass)
		tok := c.Get("/settings").CSRF()
		for _, r := range []struct{ method, path string }{
			{"GET", "/org"}, {"POST", "/org/link"}, {"POST", "/org/link/revoke"},
			{"POST", "/org/members/" + users["ma2"].ID + "/role"}, {"GET", "/admin/organizations"},
			{"POST", "/admin/organizations"}, {"GET", "/admin/organizations/" + orgA},
			{"POST", "/admin/organizations/" + orgA + "/admins"},
		} {
			if p := send(t, c, r.method, r.path, url.Values{"expires": {farDate()}, "role": {"admin"}, "email": {e + "@example.com"}}, tok); p.Status != http.StatusNotFound {
				t.Errorf("%s: %s %s: %d", e, r.method, r.path, p.Status)
			}
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organization_members WHERE role = 'admin'`); n != before ||
		apptest.Count(t, s, `SELECT count(*) FROM organizations`) != 2 || apptest.Count(t, s, `SELECT count(*) FROM organization_links`) != 0 {
		t.Errorf("something changed: %d admins (was %d)", n, before)
	}
}

// Bad input on every new form: a clear 4xx in the user's language, never a 500.
func TestOrganizationBadInput(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	s.User(t, "boss@example.com", orgPass, models.PlanFree)
	m := s.User(t, "m@example.com", orgPass, models.PlanFree)
	root := s.SignIn(t, "root@example.com", orgPass)
	id := createOrg(t, root, "Taken", "taken", "2")
	nameAdmin(t, root, id, "boss@example.com")
	nameAdmin(t, root, id, "m@example.com")
	s.User(t, "x@example.com", orgPass, models.PlanFree)
	admin := s.SignIn(t, "boss@example.com", orgPass)
	root.Lang, admin.Lang = "es", "es"
	rc, ac := root.Get("/admin/organizations").CSRF(), admin.Get("/org").CSRF()
	create := func(name, slug, seats string) url.Values {
		return url.Values{"_csrf": {rc}, "name": {name}, "slug": {slug}, "seats": {seats}}
	}
	for _, tc := range []struct {
		name   string
		c      *webtest.Client
		path   string
		form   url.Values
		status int
		says   string
	}{
		{"NUL in the name", root, "/admin/organizations", create("a\x00b", "ok", "3"), 400, "UTF-8"},
		{"invalid UTF-8", root, "/admin/organizations", create("a\xffb", "ok", "3"), 400, "UTF-8"},
		{"overlong name", root, "/admin/organizations", create(strings.Repeat("n", 101), "ok", "3"), 422, "de 1 a 100"},
		{"bad slug", root, "/admin/organizations", create("N", "Mal Slug", "3"), 422, "nombre corto"},
		{"taken slug", root, "/admin/organizations", create("N", "taken", "3"), 409, "Otra organización"},
		{"seats 0", root, "/admin/organizations", create("N", "ok", "0"), 422, "número entero"},
		{"seats negative", root, "/admin/organizations", create("N", "ok", "-4"), 422, "número entero"},
		{"seats huge", root, "/admin/organizations", create("N", "ok", "99999999999999999999"), 422, "número entero"},
		{"seats not a number", root, "/admin/organizations", create("N", "ok", "diez"), 422, "número entero"},
		{"seats below members", root, "/admin/organizations/" + id, create("Taken", "", "1"), 409, "más miembros"},
		{"unknown admin email", root, "/admin/organizations/" + id + "/admins", url.Values{"_csrf": {rc}, "email": {"nobody@example.com"}}, 422, "Ninguna cuenta"},
		{"a staff account as admin", root, "/admin/organizations/" + id + "/admins", url.Values{"_csrf": {rc}, "email": {"root@example.com"}}, 409, "equipo de aula"},
		{"link expiry not a date", admin, "/org/link", url.Values{"_csrf": {ac}, "expires": {"mañana"}}, 422, "fecha"},
		{"link expiry past", admin, "/org/link", url.Values{"_csrf": {ac}, "expires": {"2001-01-01"}}, 422, "fecha"},
		{"unknown role", admin, "/org/members/" + m.ID + "/role", url.Values{"_csrf": {ac}, "role": {"owner"}}, 422, "administrador o miembro"},
		{"no seat left", root, "/admin/organizations/" + id + "/admins", url.Values{"_csrf": {rc}, "email": {"x@example.com"}}, 409, "plazas libres"},
	} {
		p := tc.c.Post(tc.path, tc.form)
		if p.Status != tc.status || !strings.Contains(p.Text("main"), tc.says) {
			t.Errorf("%s: %d, want %d saying %q: %q", tc.name, p.Status, tc.status, tc.says, p.Text("main"))
		}
	}
	for _, q := range []string{"/admin/organizations?after=zz", "/org?after=%FF"} {
		c := root
		if strings.HasPrefix(q, "/org") {
			c = admin
		}
		if p := c.Get(q); p.Status != http.StatusBadRequest {
			t.Errorf("%s: %d", q, p.Status)
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organizations`); n != 1 {
		t.Errorf("%d organizations after bad input, want 1", n)
	}
}
