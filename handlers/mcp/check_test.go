package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"aula/handlers"
	"aula/internal/apptest"
	"aula/models"
)

// callCheck calls check_understanding: the check, or the tool error's text.
func callCheck(t *testing.T, cs *sdk.ClientSession, args map[string]any) (handlers.CheckJSON, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "check_understanding", Arguments: args})
	if err != nil {
		t.Fatalf("call check_understanding: %v", err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	var c handlers.CheckJSON
	if res.IsError {
		return c, text
	}
	if err := json.Unmarshal([]byte(text), &c); err != nil || c.ID == "" {
		t.Fatalf("check_understanding result %q is not a check", text)
	}
	return c, ""
}

// A whole check through MCP, over real HTTP with the SDK's client: started
// on a section, each answer graded with the next question, until it ends;
// the expected answers never show; the check is the user's thread.
func TestMCPWholeCheck(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "mcp-check@example.com", "mcp-pass-1", models.PlanPro)
	cs, err := mcpConnect(t, s, apptest.APIToken(t, s, u.ID))
	if err != nil {
		t.Fatal(err)
	}
	var anchor string
	s.DB.Raw(`SELECT anchor FROM lesson_chunks WHERE lesson_id = 'vlan-basics' AND anchor <> '' ORDER BY position LIMIT 1`).Scan(&anchor)
	c, msg := callCheck(t, cs, map[string]any{"lessonId": "vlan-basics", "anchor": anchor})
	if msg != "" || c.Current == nil || c.Current.Anchor != anchor || c.Current.Question == "" {
		t.Fatalf("start: %q %+v", msg, c)
	}
	for i := 1; !c.Finished; i++ {
		if i > c.MaxItems {
			t.Fatalf("the check did not end after %d answers", c.MaxItems)
		}
		answer := "no idea"
		if i == 1 {
			s.DB.Raw(`SELECT expected FROM check_items WHERE conversation_id = ? AND position = 1`, c.ID).Scan(&answer)
		}
		if c, msg = callCheck(t, cs, map[string]any{"checkId": c.ID, "answer": answer}); msg != "" {
			t.Fatalf("answer %d: %s", i, msg)
		}
		if c.Last == nil || c.Last.Position != i || c.Last.Verdict == nil || c.Last.Feedback == "" {
			t.Fatalf("answer %d: last %+v", i, c.Last)
		}
		if !c.Finished && (c.Current == nil || c.Current.Position != i+1) {
			t.Fatalf("answer %d: the next question is %+v", i, c.Current)
		}
	}
	if c.Tally.Correct < 1 || c.Tally.Correct+c.Tally.Partly+c.Tally.NotYet != c.MaxItems {
		t.Errorf("tally %+v", c.Tally)
	}
	read, msg := callCheck(t, cs, map[string]any{"checkId": c.ID})
	if msg != "" || !read.Finished || len(read.Items) != c.MaxItems {
		t.Errorf("read the finished check: %q %+v", msg, read)
	}
	if _, msg := callCheck(t, cs, map[string]any{"checkId": c.ID, "answer": "more"}); !strings.Contains(msg, handlers.CodeCheckFinished) {
		t.Errorf("an answer after the end: %q", msg)
	}
	var mode string
	s.DB.Raw(`SELECT mode FROM conversations WHERE id = ? AND user_id = ?`, c.ID, u.ID).Scan(&mode)
	if mode != models.ModeCheck {
		t.Errorf("the check's thread has mode %q", mode)
	}
}

// Someone else's check is NOT_FOUND through MCP; bad arguments are clear
// errors with the API's codes, and start nothing.
func TestMCPCheckRefusals(t *testing.T) {
	s := apptest.New(t)
	owner := s.User(t, "owner@example.com", "mcp-pass-1", models.PlanPro)
	other := s.User(t, "other@example.com", "mcp-pass-1", models.PlanPro)
	cs, err := mcpConnect(t, s, apptest.APIToken(t, s, owner.ID))
	if err != nil {
		t.Fatal(err)
	}
	ocs, err := mcpConnect(t, s, apptest.APIToken(t, s, other.ID))
	if err != nil {
		t.Fatal(err)
	}
	c, msg := callCheck(t, cs, map[string]any{"lessonId": "vlan-basics"})
	if msg != "" {
		t.Fatal(msg)
	}
	cases := []struct {
		name string
		cs   *sdk.ClientSession
		args map[string]any
		code string
	}{
		{"someone else's check", ocs, map[string]any{"checkId": c.ID}, handlers.CodeNotFound},
		{"answer someone else's check", ocs, map[string]any{"checkId": c.ID, "answer": "x"}, handlers.CodeNotFound},
		{"not an id", cs, map[string]any{"checkId": "nope"}, handlers.CodeNotFound},
		{"nothing", cs, map[string]any{}, handlers.CodeLessonRequired},
		{"unknown lesson", cs, map[string]any{"lessonId": "nope"}, handlers.CodeUnknownLesson},
		{"unknown section", cs, map[string]any{"lessonId": "vlan-basics", "anchor": "nope"}, handlers.CodeUnknownSection},
		{"answer without a check", cs, map[string]any{"lessonId": "vlan-basics", "answer": "x"}, handlers.CodeInvalidParam},
		{"empty answer", cs, map[string]any{"checkId": c.ID, "answer": " "}, handlers.CodeEmptyMessage},
		{"answer too long", cs, map[string]any{"checkId": c.ID, "answer": strings.Repeat("a", 1001)}, handlers.CodeTooLong},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, msg := callCheck(t, tc.cs, tc.args); !strings.Contains(msg, tc.code) {
				t.Fatalf("error %q, want %s", msg, tc.code)
			}
		})
	}
	// A NUL is refused at the edge, before the tool, as every request's.
	_, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "check_understanding",
		Arguments: map[string]any{"checkId": c.ID, "answer": "a\x00b"}})
	if err == nil || !strings.Contains(err.Error(), "Bad Request") {
		t.Errorf("an answer with a NUL: %v, want 400", err)
	}
	var checks int
	s.DB.Raw(`SELECT count(*) FROM checks`).Scan(&checks)
	if checks != 1 {
		t.Errorf("%d checks exist, want only the one started", checks)
	}
}
