package api_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"aula/handlers"
	"aula/internal/apptest"
)

// withProgress has A's admin assign (through the API) vlan-basics to Red
// with its check required and subnetting to everyone; a1 (in Red) reads
// vlan-basics, a2 masters a section of subnetting.
func withProgress(t *testing.T) *orgFixture {
	t.Helper()
	f := newOrgFixture(t)
	s := f.s
	apptest.APIJSON(t, s, f.adminA, "POST", "/org/assignments", map[string]any{"lessonIds": []string{"vlan-basics"},
		"groupId": f.red, "checkRequired": true, "dueOn": "2030-01-31"}, 201)
	apptest.APIJSON(t, s, f.adminA, "POST", "/org/assignments", `{"lessonIds":["subnetting"]}`, 201)
	if err := s.App.Progress.MarkRead(context.Background(), s.UserID(t, "a1@example.com"), "networking", "vlan-basics", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.DB.Exec(`INSERT INTO section_mastery (user_id, lesson_id, anchor, streak, step, last_verdict, last_checked_at, due_at, mastered_at)
		SELECT ?, 'subnetting', anchor, 2, 2, 'correct', now(), now(), now() FROM lesson_chunks
		WHERE lesson_id = 'subnetting' AND anchor <> '' ORDER BY position LIMIT 1`, s.UserID(t, "a2@example.com")).Error; err != nil {
		t.Fatal(err)
	}
	return f
}

// cell is a member's cell on the lesson with id, failing when either is missing.
func cell(t *testing.T, p handlers.ProgressJSON, email, lesson string) handlers.ProgressCellJSON {
	t.Helper()
	col := -1
	for i, l := range p.Lessons {
		if l.ID == lesson {
			col = i
		}
	}
	for _, m := range p.Members {
		if m.Email == email && col >= 0 {
			return m.Cells[col]
		}
	}
	t.Fatalf("no cell for %s on %s in %+v", email, lesson, p)
	return handlers.ProgressCellJSON{}
}

// state is a cell's state, "-" for none.
func state(c handlers.ProgressCellJSON) string {
	if c.State == nil {
		return "-"
	}
	return *c.State
}

// The admin's token reads the completion matrix: each member's state on
// each assigned lesson as the member's own progress says, filtered by
// group, sorted, paged by keyset.
func TestOrgAPIProgress(t *testing.T) {
	f := withProgress(t)
	s := f.s
	var all handlers.ProgressJSON
	decodeInto(t, s, f.adminA, "GET", "/org/progress", nil, 200, &all)
	if len(all.Lessons) != 2 || len(all.Members) != 4 || all.Group != nil || all.NextCursor != nil {
		t.Fatalf("the whole organization: %+v", all)
	}
	for _, tc := range []struct {
		email, lesson, state string
		done                 bool
	}{
		{"a1@example.com", "vlan-basics", "read", false}, // read, but its check is required
		{"a1@example.com", "subnetting", "not_started", false},
		{"a2@example.com", "vlan-basics", "-", false}, // not in Red: not assigned
		{"a2@example.com", "subnetting", "mastered", true},
	} {
		if c := cell(t, all, tc.email, tc.lesson); state(c) != tc.state || c.Done != tc.done {
			t.Errorf("%s on %s: %+v, want %s done=%v", tc.email, tc.lesson, c, tc.state, tc.done)
		}
	}

	var red handlers.ProgressJSON
	decodeInto(t, s, f.adminA, "GET", fmt.Sprintf("/org/progress?group=%d", f.red), nil, 200, &red)
	if red.Group == nil || red.Group.Name != "Red" || len(red.Members) != 1 || red.Members[0].Email != "a1@example.com" {
		t.Fatalf("group Red: %+v", red)
	}

	var byDone handlers.ProgressJSON
	decodeInto(t, s, f.adminA, "GET", "/org/progress?sort=done&desc=true", nil, 200, &byDone)
	if byDone.Members[0].Email != "a2@example.com" || byDone.Members[0].Done != 1 {
		t.Fatalf("most done first: %+v", byDone.Members[0])
	}

	var seen []string
	next, pages := "/org/progress?limit=3", 0
	for next != "" {
		var p handlers.ProgressJSON
		decodeInto(t, s, f.adminA, "GET", next, nil, 200, &p)
		pages++
		for _, m := range p.Members {
			seen = append(seen, m.Email)
		}
		next = ""
		if p.NextCursor != nil {
			next = "/org/progress?limit=3&cursor=" + url.QueryEscape(*p.NextCursor)
		}
	}
	if pages != 2 || len(seen) != 4 {
		t.Fatalf("%d pages: %v", pages, seen)
	}
}

// Admin A asking for B's group is a 404; nothing of B shows in A's
// matrix; bad parameters are 4xx in the owner's language.
func TestOrgAPIProgressIsolationAndBadInput(t *testing.T) {
	f := withProgress(t)
	s := f.s
	_, b := apptest.APICall(t, s, f.adminA, "GET", "/org/progress", nil)
	for _, secret := range bSecrets {
		if strings.Contains(string(b), secret) {
			t.Errorf("A's progress shows B's %q: %s", secret, b)
		}
	}
	if err := s.App.Users.SetLocale(context.Background(), s.UserID(t, "a@example.com"), "es"); err != nil {
		t.Fatal(err)
	}
	var first handlers.ProgressJSON
	decodeInto(t, s, f.adminA, "GET", "/org/progress?limit=1", nil, 200, &first)
	for _, tc := range []struct {
		query        string
		status       int
		code, saying string
	}{
		{fmt.Sprintf("group=%d", f.blue), 404, "NOT_FOUND", fmt.Sprintf("no tiene el grupo %d", f.blue)},
		{"group=999999", 404, "NOT_FOUND", "no tiene el grupo 999999"},
		{"group=-1", 422, "INVALID_PARAMETER", "group debe ser un número entero"},
		{"group=red", 422, "INVALID_PARAMETER", "group debe ser un número entero"},
		{"sort=email", 422, "INVALID_PARAMETER", "sort es name o done"},
		{"desc=maybe", 422, "INVALID_PARAMETER", "desc es true o false"},
		{"limit=201", 422, "INVALID_PARAMETER", "limit debe ser un número entero de 1 a 200"},
		{"cursor=forged", 422, "INVALID_PARAMETER", "cursor no es"},
		{"sort=done&cursor=" + url.QueryEscape(*first.NextCursor), 422, "INVALID_PARAMETER", "cursor no es"},
		{"cursor=%FF", 400, "INVALID_TEXT", "no puede guardar"},
	} {
		resp, b := apptest.APICall(t, s, f.adminA, "GET", "/org/progress?"+tc.query, nil)
		if code, msg := apiError(t, b); resp.StatusCode != tc.status || code != tc.code || !strings.Contains(msg, tc.saying) {
			t.Errorf("?%s: %d %s, want %d %s %q", tc.query, resp.StatusCode, b, tc.status, tc.code, tc.saying)
		}
	}
}
