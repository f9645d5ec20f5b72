package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"aula/handlers"
	"aula/internal/apptest"
	"aula/models"
)

// callOrgProgress calls org_progress: the matrix, or the tool error's text.
func callOrgProgress(t *testing.T, cs *sdk.ClientSession, args map[string]any) (handlers.ProgressJSON, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "org_progress", Arguments: args})
	if err != nil {
		t.Fatalf("call org_progress: %v", err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	var p handlers.ProgressJSON
	if res.IsError {
		return p, text
	}
	if err := json.Unmarshal([]byte(text), &p); err != nil || p.Lessons == nil || p.Members == nil {
		t.Fatalf("org_progress result %q is not a matrix", text)
	}
	return p, ""
}

// org_progress gives an organization's admin the same matrix as the API:
// a's on vlan-basics (assigned to Red, check required) and subnetting
// (everyone), a1 in Red having read vlan-basics; filtered by group, paged.
// B's group is an error and nothing of B shows; a member (in Spanish) and
// a FREE user are refused as tool errors in their language.
func TestMCPOrgProgress(t *testing.T) {
	s := apptest.New(t)
	orgA := s.Org(t, "org-a", "a@example.com", "a1@example.com", "a2@example.com")
	orgB := s.Org(t, "org-b", "b@example.com", "b1@example.com")
	ctx, now, orgs := context.Background(), time.Now(), s.App.Orgs
	red, err := orgs.CreateGroup(ctx, orgA, "Red", now)
	if err != nil {
		t.Fatal(err)
	}
	blue, err := orgs.CreateGroup(ctx, orgB, "Blue", now)
	if err != nil {
		t.Fatal(err)
	}
	a1 := s.UserID(t, "a1@example.com")
	if _, err := orgs.AddToGroup(ctx, orgA, red.ID, []string{a1}, now); err != nil {
		t.Fatal(err)
	}
	adminA, adminB := s.UserID(t, "a@example.com"), s.UserID(t, "b@example.com")
	for _, as := range []struct {
		org, by string
		n       models.NewAssignment
	}{
		{orgA, adminA, models.NewAssignment{GroupID: red.ID, LessonIDs: []string{"vlan-basics"}, CheckRequired: true}},
		{orgA, adminA, models.NewAssignment{LessonIDs: []string{"subnetting"}}},
		{orgB, adminB, models.NewAssignment{GroupID: blue.ID, LessonIDs: []string{"subnetting"}}},
	} {
		if _, err := orgs.Assign(ctx, as.org, as.by, as.n, now); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.App.Progress.MarkRead(ctx, a1, "networking", "vlan-basics", now); err != nil {
		t.Fatal(err)
	}
	admin, err := mcpConnect(t, s, apptest.APIToken(t, s, adminA))
	if err != nil {
		t.Fatal(err)
	}
	tools, err := admin.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema []byte
	for _, tl := range tools.Tools {
		if tl.Name == "org_progress" {
			schema, _ = json.Marshal(tl.InputSchema)
		}
	}
	for _, want := range []string{`"groupId":{`, `"enum":["name","done"]`, `"cursor":{`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("org_progress schema lacks %s: %s", want, schema)
		}
	}

	all, msg := callOrgProgress(t, admin, nil)
	if msg != "" || len(all.Lessons) != 2 || len(all.Members) != 3 {
		t.Fatalf("the whole organization: %q %+v", msg, all)
	}
	raw, _ := json.Marshal(all)
	for _, secret := range []string{"b@example.com", "b1@example.com", "Blue"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("A's matrix shows B's %q", secret)
		}
	}
	inRed, msg := callOrgProgress(t, admin, map[string]any{"groupId": red.ID})
	if msg != "" || len(inRed.Members) != 1 || inRed.Members[0].Email != "a1@example.com" || inRed.Lessons[0].ID != "vlan-basics" ||
		*inRed.Members[0].Cells[0].State != models.StateRead || inRed.Members[0].Cells[0].Done {
		t.Fatalf("group Red: %q %+v", msg, inRed)
	}
	page, msg := callOrgProgress(t, admin, map[string]any{"limit": 2})
	if msg != "" || len(page.Members) != 2 || page.NextCursor == nil {
		t.Fatalf("first page of 2: %q %+v", msg, page)
	}
	rest, msg := callOrgProgress(t, admin, map[string]any{"limit": 2, "cursor": *page.NextCursor})
	if msg != "" || len(rest.Members) != 1 || rest.NextCursor != nil {
		t.Fatalf("second page: %q %+v", msg, rest)
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"groupId": blue.ID}, fmt.Sprintf("404 NOT_FOUND: Your organization has no group %d", blue.ID)},
		{map[string]any{"sort": "email"}, "enum"}, // the SDK holds the call to the schema
		{map[string]any{"limit": 500}, "422 INVALID_PARAMETER"},
		{map[string]any{"cursor": "forged"}, "422 INVALID_PARAMETER"},
	} {
		if _, msg := callOrgProgress(t, admin, tc.args); !strings.Contains(msg, tc.want) {
			t.Errorf("%v: %q, want %q", tc.args, msg, tc.want)
		}
	}

	if err := s.App.Users.SetLocale(ctx, a1, "es"); err != nil {
		t.Fatal(err)
	}
	free := s.User(t, "free@example.com", apptest.OrgPassword, models.PlanFree)
	for who, want := range map[string]string{a1: "403 NOT_ORGANIZATION_ADMIN: Quien tiene este token no administra",
		free.ID: "403 NOT_ORGANIZATION_ADMIN: The owner of this token does not administer"} {
		cs, err := mcpConnect(t, s, apptest.APIToken(t, s, who))
		if err != nil {
			t.Fatal(err)
		}
		if _, msg := callOrgProgress(t, cs, map[string]any{"groupId": red.ID}); !strings.HasPrefix(msg, want) {
			t.Errorf("%s: %q, want %q", who, msg, want)
		}
	}
}
