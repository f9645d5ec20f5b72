package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/models"
)

// orgFixture is two organizations: A (admin a, members a1 in group Red, a2
// and a3) and B (admin b, member b1 in group Blue, vlan-basics assigned to
// Blue), with a token for each admin, for a member of A and for a FREE user.
type orgFixture struct {
	s                            *apptest.Server
	orgA, orgB                   string
	red, blue, assignedB         int64
	adminA, adminB, member, free string // tokens
}

// bSecrets is what of B must never show in A's answers.
var bSecrets = []string{"b@example.com", "b1@example.com", "Blue", "org-b"}

func newOrgFixture(t *testing.T) *orgFixture {
	t.Helper()
	s := apptest.New(t)
	f := &orgFixture{s: s}
	f.orgA = s.Org(t, "org-a", "a@example.com", "a1@example.com", "a2@example.com", "a3@example.com")
	f.orgB = s.Org(t, "org-b", "b@example.com", "b1@example.com")
	ctx, now, orgs := context.Background(), time.Now(), s.App.Orgs
	red, err := orgs.CreateGroup(ctx, f.orgA, "Red", now)
	if err != nil {
		t.Fatal(err)
	}
	blue, err := orgs.CreateGroup(ctx, f.orgB, "Blue", now)
	if err != nil {
		t.Fatal(err)
	}
	f.red, f.blue = red.ID, blue.ID
	if _, err := orgs.AddToGroup(ctx, f.orgA, f.red, []string{s.UserID(t, "a1@example.com")}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := orgs.AddToGroup(ctx, f.orgB, f.blue, []string{s.UserID(t, "b1@example.com")}, now); err != nil {
		t.Fatal(err)
	}
	ids, err := orgs.Assign(ctx, f.orgB, s.UserID(t, "b@example.com"), models.NewAssignment{GroupID: f.blue, LessonIDs: []string{"vlan-basics"}}, now)
	if err != nil {
		t.Fatal(err)
	}
	f.assignedB = ids[0]
	f.adminA = apptest.APIToken(t, s, s.UserID(t, "a@example.com"))
	f.adminB = apptest.APIToken(t, s, s.UserID(t, "b@example.com"))
	f.member = apptest.APIToken(t, s, s.UserID(t, "a1@example.com"))
	f.free = apptest.APIToken(t, s, s.User(t, "free@example.com", apptest.OrgPassword, models.PlanFree).ID)
	return f
}

// apiError is the code and message of an API error body.
func apiError(t testing.TB, b []byte) (code, message string) {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(b, &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("not an API error: %s", b)
	}
	return e.Error.Code, e.Error.Message
}

// decodeInto calls and decodes the answer into v, failing unless the status is want.
func decodeInto(t testing.TB, s *apptest.Server, token, method, path string, body any, want int, v any) {
	t.Helper()
	resp, b := apptest.APICall(t, s, token, method, path, body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s %s: %v: %s", method, path, err, b)
	}
}

type memberItem struct {
	ID, Name, Email, Role string
	Groups                []string
}

type assignmentItem struct {
	ID                                     int64
	GroupID                                *int64
	PathSlug, LessonID, LessonTitle, DueOn *string
	CheckRequired                          bool
}

// An admin's token pages through the members (keyset, in the order they
// joined, groups named), lists the groups, assigns lessons to a group and
// a path to everyone, and reads the assignments back; the members see them.
func TestOrgAPIMembersGroupsAssignments(t *testing.T) {
	f := newOrgFixture(t)
	s := f.s
	var emails []string
	var a1 memberItem
	url, pages := "/org/members?limit=2", 0
	for url != "" {
		var page struct {
			Items      []memberItem
			NextCursor *string
		}
		decodeInto(t, s, f.adminA, "GET", url, nil, 200, &page)
		pages++
		for _, m := range page.Items {
			emails = append(emails, m.Email)
			if m.Email == "a1@example.com" {
				a1 = m
			}
		}
		url = ""
		if page.NextCursor != nil {
			url = "/org/members?limit=2&cursor=" + *page.NextCursor
		}
	}
	if got := strings.Join(emails, " "); pages != 2 || got != "a@example.com a1@example.com a2@example.com a3@example.com" {
		t.Fatalf("members in %d pages: %s", pages, got)
	}
	if a1.Role != "member" || len(a1.Groups) != 1 || a1.Groups[0] != "Red" {
		t.Fatalf("a1: %+v", a1)
	}

	var groups struct{ Items []struct{ ID, Members int64 } }
	decodeInto(t, s, f.adminA, "GET", "/org/groups", nil, 200, &groups)
	if len(groups.Items) != 1 || groups.Items[0].ID != f.red || groups.Items[0].Members != 1 {
		t.Fatalf("groups: %+v", groups)
	}

	var made struct{ Items []assignmentItem }
	decodeInto(t, s, f.adminA, "POST", "/org/assignments", map[string]any{"lessonIds": []string{"vlan-basics", "subnetting", "vlan-basics"},
		"groupId": f.red, "dueOn": "2030-03-31", "checkRequired": true}, 201, &made)
	if len(made.Items) != 2 {
		t.Fatalf("assign two lessons to Red: %+v", made)
	}
	for _, a := range made.Items {
		if a.GroupID == nil || *a.GroupID != f.red || a.DueOn == nil || *a.DueOn != "2030-03-31" || !a.CheckRequired ||
			a.LessonTitle == nil || a.PathSlug != nil {
			t.Errorf("made %+v", a)
		}
	}
	decodeInto(t, s, f.adminA, "POST", "/org/assignments", `{"pathSlug":"networking"}`, 201, &made)
	if len(made.Items) != 1 || made.Items[0].GroupID != nil || made.Items[0].PathSlug == nil || *made.Items[0].PathSlug != "networking" {
		t.Fatalf("assign the networking path to everyone: %+v", made)
	}
	var all struct{ Items []assignmentItem }
	decodeInto(t, s, f.adminA, "GET", "/org/assignments", nil, 200, &all)
	if len(all.Items) != 3 || all.Items[2].PathSlug == nil {
		t.Fatalf("assignments (dated first): %+v", all)
	}
	var one assignmentItem
	decodeInto(t, s, f.adminA, "GET", fmt.Sprintf("/org/assignments/%d", all.Items[0].ID), nil, 200, &one)
	if one.ID != all.Items[0].ID || *one.LessonID != *all.Items[0].LessonID {
		t.Fatalf("one assignment: %+v", one)
	}

	// What a member is shown: a1 (in Red) gets the three, a2 only the path.
	for email, want := range map[string]int{"a1@example.com": 3, "a2@example.com": 1} {
		mine, err := s.App.Orgs.AssignedTo(context.Background(), s.UserID(t, email))
		if err != nil || len(mine) != want {
			t.Errorf("%s is assigned %d, want %d (%v)", email, len(mine), want, err)
		}
	}
}

// Admin A's token never reaches B: B's assignment and group are 404, and
// nothing of B is in A's answers (nor of A in B's); a member's token and a
// FREE user's are refused every /org endpoint with 403 in their language,
// and nothing is written for them.
func TestOrgAPIIsolation(t *testing.T) {
	f := newOrgFixture(t)
	s := f.s
	for _, tc := range []struct {
		method, path string
		body         any
	}{
		{"GET", fmt.Sprintf("/org/assignments/%d", f.assignedB), nil},
		{"POST", "/org/assignments", map[string]any{"groupId": f.blue, "lessonIds": []string{"subnetting"}}},
	} {
		resp, b := apptest.APICall(t, s, f.adminA, tc.method, tc.path, tc.body)
		if code, _ := apiError(t, b); resp.StatusCode != 404 || code != "NOT_FOUND" {
			t.Errorf("admin A %s %s (B's id): %d %s", tc.method, tc.path, resp.StatusCode, b)
		}
	}
	reads := []string{"/org/members", "/org/groups", "/org/assignments", "/org/progress", "/org/progress.csv"}
	for _, path := range reads {
		_, b := apptest.APICall(t, s, f.adminA, "GET", path, nil)
		for _, secret := range bSecrets {
			if strings.Contains(string(b), secret) {
				t.Errorf("A's %s shows B's %q: %s", path, secret, b)
			}
		}
		_, b = apptest.APICall(t, s, f.adminB, "GET", path, nil)
		if strings.Contains(string(b), "a1@example.com") || strings.Contains(string(b), "Red") {
			t.Errorf("B's %s shows A's: %s", path, b)
		}
	}
	if err := s.App.Users.SetLocale(context.Background(), s.UserID(t, "a1@example.com"), "es"); err != nil {
		t.Fatal(err)
	}
	for who, tok := range map[string]string{"member (es)": f.member, "free": f.free} {
		for _, path := range append(reads, fmt.Sprintf("/org/assignments/%d", f.assignedB), "POST /org/assignments") {
			method := "GET"
			if p, ok := strings.CutPrefix(path, "POST "); ok {
				method, path = "POST", p
			}
			resp, b := apptest.APICall(t, s, tok, method, path, `{"lessonIds":["subnetting"]}`)
			code, msg := apiError(t, b)
			want := "only an organization's admins"
			if who == "member (es)" {
				want = "solo quien administra"
			}
			if resp.StatusCode != 403 || code != "NOT_ORGANIZATION_ADMIN" || !strings.Contains(msg, want) {
				t.Errorf("%s %s %s: %d %s", who, method, path, resp.StatusCode, b)
			}
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organization_assignments WHERE lesson_id = 'subnetting'`); n != 0 {
		t.Fatalf("%d assignments written by refused requests", n)
	}
}

// Bad input to the assignments and the pages: a clear 4xx with a code and
// a message in the token owner's language (Spanish here), never a 500, and
// nothing written.
func TestOrgAPIBadInput(t *testing.T) {
	f := newOrgFixture(t)
	s := f.s
	if err := s.App.Users.SetLocale(context.Background(), s.UserID(t, "a@example.com"), "es"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code, says               string
	}{
		{"broken JSON", "POST", "/org/assignments", `{"lessonIds":`, 400, "INVALID_JSON", "no es JSON válido"},
		{"no body", "POST", "/org/assignments", ``, 400, "INVALID_JSON", "debe ser un objeto JSON"},
		{"two values", "POST", "/org/assignments", `{}{}`, 400, "INVALID_JSON", "no es JSON válido"},
		{"an array", "POST", "/org/assignments", `["vlan-basics"]`, 400, "INVALID_JSON", "no es JSON válido"},
		{"unknown field", "POST", "/org/assignments", `{"lessonIds":["vlan-basics"],"lessonID":"x"}`, 400, "INVALID_JSON", "lessonID"},
		{"group as text", "POST", "/org/assignments", `{"groupId":"red","lessonIds":["vlan-basics"]}`, 400, "INVALID_JSON", "no es JSON válido"},
		{"NUL", "POST", "/org/assignments", `{"lessonIds":["vlan\u0000basics"]}`, 400, "INVALID_TEXT", "no puede guardar"},
		{"not UTF-8", "POST", "/org/assignments", "{\"lessonIds\":[\"vlan\xff\"]}", 400, "INVALID_TEXT", "no puede guardar"},
		{"nothing", "POST", "/org/assignments", `{}`, 422, "INVALID_ASSIGNMENT", "exactamente uno"},
		{"no lessons", "POST", "/org/assignments", `{"lessonIds":[]}`, 422, "INVALID_ASSIGNMENT", "exactamente uno"},
		{"path and lessons", "POST", "/org/assignments", `{"pathSlug":"networking","lessonIds":["vlan-basics"]}`, 422, "INVALID_ASSIGNMENT", "exactamente uno"},
		{"due not a day", "POST", "/org/assignments", `{"lessonIds":["vlan-basics"],"dueOn":"31/03/2030"}`, 422, "INVALID_PARAMETER", "dueOn es un día"},
		{"due in 1999", "POST", "/org/assignments", `{"lessonIds":["vlan-basics"],"dueOn":"1999-12-31"}`, 422, "INVALID_PARAMETER", "dueOn es un día"},
		{"one unknown lesson", "POST", "/org/assignments", `{"lessonIds":["vlan-basics","no-such-lesson"]}`, 422, "UNKNOWN_LESSON", "no es ninguna lección"},
		{"unknown path slug", "POST", "/org/assignments", `{"pathSlug":"no-such-path"}`, 422, "UNKNOWN_PATH", "Ningún itinerario"},
		{"unknown path id", "POST", "/org/assignments", `{"pathId":999999}`, 422, "UNKNOWN_PATH", "Ningún itinerario"},
		{"unknown group", "POST", "/org/assignments", `{"groupId":999999,"lessonIds":["vlan-basics"]}`, 404, "NOT_FOUND", "no tiene el grupo 999999"},
		{"negative group", "POST", "/org/assignments", `{"groupId":-1,"lessonIds":["vlan-basics"]}`, 404, "NOT_FOUND", "No encontrado"},
		{"limit 0", "GET", "/org/members?limit=0", ``, 422, "INVALID_PARAMETER", "debe ser un número entero"},
		{"limit text", "GET", "/org/members?limit=all", ``, 422, "INVALID_PARAMETER", "debe ser un número entero"},
		{"forged cursor", "GET", "/org/members?cursor=not-a-cursor", ``, 422, "INVALID_PARAMETER", "cursor no es"},
		{"NUL cursor", "GET", "/org/members?cursor=%00", ``, 400, "INVALID_TEXT", "no puede guardar"},
		{"assignment id text", "GET", "/org/assignments/abc", ``, 404, "NOT_FOUND", "No encontrado"},
		{"assignment id 0", "GET", "/org/assignments/0", ``, 404, "NOT_FOUND", "No encontrado"},
		{"assignment id huge", "GET", "/org/assignments/99999999999999999999", ``, 404, "NOT_FOUND", "No encontrado"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := apptest.APICall(t, s, f.adminA, tc.method, tc.path, tc.body)
			code, msg := apiError(t, b)
			if resp.StatusCode != tc.status || code != tc.code || !strings.Contains(msg, tc.says) {
				t.Fatalf("%d %s %q, want %d %s %q", resp.StatusCode, code, msg, tc.status, tc.code, tc.says)
			}
		})
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organization_assignments WHERE organization_id = ?`, f.orgA); n != 0 {
		t.Fatalf("refused requests wrote %d assignments", n)
	}
	apptest.APIJSON(t, s, f.adminA, "POST", "/org/assignments", `{"lessonIds":["vlan-basics"]}`, 201)
	resp, b := apptest.APICall(t, s, f.adminA, "POST", "/org/assignments", `{"lessonIds":["vlan-basics"]}`)
	if code, msg := apiError(t, b); resp.StatusCode != 409 || code != "ALREADY_ASSIGNED" || !strings.Contains(msg, "ya lo tienen asignado") {
		t.Fatalf("the same again: %d %s", resp.StatusCode, b)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM organization_assignments WHERE organization_id = ?`, f.orgA); n != 1 {
		t.Fatalf("%d assignments after one made and one repeated", n)
	}
}
