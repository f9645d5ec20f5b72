package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"aula/internal/apptest"
	"aula/models"
)

// bearer adds the token to every request of the MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpConnect opens an MCP session over real HTTP with the SDK's own client.
func mcpConnect(t *testing.T, s *apptest.Server, token string) (*sdk.ClientSession, error) {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "aula-test", Version: "1"}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}},
		DisableStandaloneSSE: true, MaxRetries: -1}
	cs, err := client.Connect(context.Background(), tr, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// callAsk calls ask and returns its answer, or the tool error's text.
func callAsk(t *testing.T, cs *sdk.ClientSession, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask", Arguments: args})
	if err != nil {
		t.Fatalf("call ask: %v", err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if res.IsError {
		return text, false
	}
	var out struct{ Answer string }
	if err := json.Unmarshal([]byte(text), &out); err != nil || out.Answer == "" {
		t.Fatalf("ask result %q is not {\"answer\": ...}", text)
	}
	return out.Answer, true
}

func TestMCPToolsOverHTTP(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "mcp@example.com", "mcp-pass-1", models.PlanPro)
	tok := apptest.APIToken(t, s, u.ID)
	cs, err := mcpConnect(t, s, tok)
	if err != nil {
		t.Fatal(err)
	}
	if cs.InitializeResult().ServerInfo.Name != "aula" {
		t.Fatalf("server %+v", cs.InitializeResult().ServerInfo)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*sdk.Tool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = tl
	}
	if names["ask"] == nil || names["list_lessons"] == nil || names["get_lesson"] == nil {
		t.Fatalf("tools %v", names)
	}
	schema, _ := json.Marshal(names["ask"].InputSchema)
	for _, want := range []string{`"required":["question"]`, `"enum":["help","tutor","lesson"]`, `"enum":["en","es"]`, `"history":{`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("ask schema lacks %s: %s", want, schema)
		}
	}

	lessons, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "list_lessons", Arguments: map[string]any{"lang": "es"}})
	if err != nil || lessons.IsError || !strings.Contains(lessons.Content[0].(*sdk.TextContent).Text, `"language":"es"`) ||
		strings.Contains(lessons.Content[0].(*sdk.TextContent).Text, `"language":"en"`) {
		t.Fatalf("list_lessons: %v %+v", err, lessons)
	}
	lesson, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_lesson", Arguments: map[string]any{"lessonId": "vlan-basics"}})
	if err != nil || lesson.IsError || !strings.Contains(lesson.Content[0].(*sdk.TextContent).Text, `"suggestions":[`) {
		t.Fatalf("get_lesson: %v %+v", err, lesson)
	}
	missing, _ := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_lesson", Arguments: map[string]any{"lessonId": "nope"}})
	if !missing.IsError {
		t.Fatal("get_lesson of an unknown lesson is not an error")
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"question": "What is a VLAN?", "mode": "tutor", "lang": "en"}, "Offline tutor: I answer only from the lesson"},
		{map[string]any{"question": "What is a VLAN?", "mode": "tutor", "lang": "es"}, "Tutor sin conexión: respondo solo con el material"},
		{map[string]any{"question": "How do I create an API token?", "mode": "help", "lang": "en"}, "from the help articles"},
		{map[string]any{"question": "¿Cómo creo un token de API?", "mode": "help"}, "artículos de ayuda"},
		{map[string]any{"question": "What problem does a VLAN solve?", "mode": "lesson", "lessonId": "vlan-basics", "lang": "en"}, "Offline tutor"},
		{map[string]any{"question": "¿Qué problema resuelve una VLAN?", "lessonId": "vlan-basics", "lang": "es"}, "Tutor sin conexión"},
	} {
		answer, ok := callAsk(t, cs, tc.args)
		if !ok || !strings.Contains(answer, tc.want) {
			t.Errorf("ask %v: %q, want %q", tc.args, answer, tc.want)
		}
	}

	// Malformed entries are dropped, any role but assistant is the user's.
	history := []any{1, nil, "text", []any{"user", "x"}, map[string]any{"role": "user"}, map[string]any{"content": "no role"},
		map[string]any{"role": 5, "content": "numeric role"}, map[string]any{"role": "user", "content": 7},
		map[string]any{"role": "system", "content": "I study networking."},
		map[string]any{"role": "model", "content": "And switching."},
		map[string]any{"role": "assistant", "content": "Happy to help with VLANs."}}
	if _, ok := callAsk(t, cs, map[string]any{"question": "What is a trunk port?", "history": history}); !ok {
		t.Fatal("ask with a malformed history failed")
	}
	var meta []byte
	var mode string
	s.DB.Raw(`SELECT m.metadata, c.mode FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE m.user_id = ? AND m.role = 'assistant' ORDER BY m.created_at DESC LIMIT 1`, u.ID).Row().Scan(&meta, &mode)
	var receipt struct{ TurnsSent int }
	_ = json.Unmarshal(meta, &receipt)
	if receipt.TurnsSent != 3 || mode != models.ModeTutor {
		t.Fatalf("turns sent %d mode %s, want the 3 well-formed turns in a tutor conversation (%s)", receipt.TurnsSent, mode, meta)
	}
	// A question the lessons cover: one they do not is not counted.
	if _, ok := callAsk(t, cs, map[string]any{"question": "What is a native VLAN? Good history", "lang": "en",
		"history": []any{map[string]any{"role": "user", "content": "Hi"}, map[string]any{"role": "assistant", "content": "Hello"}}}); !ok {
		t.Fatal("ask with a good history failed")
	}

	if text, ok := callAsk(t, cs, map[string]any{"question": "   "}); ok || !strings.Contains(text, "EMPTY_MESSAGE") {
		t.Fatalf("empty question: %q", text)
	}
	if text, ok := callAsk(t, cs, map[string]any{"question": "hi", "mode": "lesson"}); ok || !strings.Contains(text, "LESSON_REQUIRED") {
		t.Fatalf("lesson mode without a lesson: %q", text)
	}
	if text, ok := callAsk(t, cs, map[string]any{"question": "hi", "mode": "chat"}); ok || text == "" {
		t.Fatalf("a mode outside the enum was taken: %q", text)
	}

	// Every question counted and is in the user's history.
	usage := apptest.APIJSON(t, s, tok, "GET", "/tutor/monthly-usage", nil, 200)
	if usage["used"].(float64) != 8 {
		t.Fatalf("MCP questions counted %v, want 8", usage["used"])
	}
	hist := apptest.APIJSON(t, s, tok, "GET", "/tutor/my-history?limit=100", nil, 200)
	if hist["total"].(float64) != 8 {
		t.Fatalf("MCP conversations in history: %v", hist["total"])
	}
}

func TestMCPQuotaShared(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "mcpfree@example.com", "mcp-pass-1", models.PlanFree)
	tok := apptest.APIToken(t, s, u.ID)
	for range 3 {
		apptest.APIJSON(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "What is a VLAN?"}, 200)
	}
	cs, err := mcpConnect(t, s, tok)
	if err != nil {
		t.Fatal(err)
	}
	if text, ok := callAsk(t, cs, map[string]any{"question": "What is a VLAN?"}); ok || !strings.Contains(text, "QUOTA_EXCEEDED") {
		t.Fatalf("over the quota through MCP: %q", text)
	}
	// The refused question opened no thread: the three answered ones only.
	if n := apptest.Count(t, s, `SELECT count(*) FROM conversations WHERE user_id = ?`, u.ID); n != 3 {
		t.Fatalf("%d threads after the refusal, want 3", n)
	}
}

func TestMCPRequiresALiveToken(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "mcpauth@example.com", "mcp-pass-1", models.PlanPro)

	resp, err := http.Post(s.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if _, err := mcpConnect(t, s, ""); err == nil {
		t.Fatal("connected without a token")
	}
	if _, err := mcpConnect(t, s, "aula_"+strings.Repeat("A", 43)); err == nil {
		t.Fatal("connected with an unknown token")
	}

	tok, raw, _ := s.App.Tokens.Create(context.Background(), u.ID, "agent")
	cs, err := mcpConnect(t, s, raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.App.Tokens.Revoke(context.Background(), u.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "hi"}}); err == nil {
		t.Fatal("a revoked token still asks")
	}
	if _, err := mcpConnect(t, s, raw); err == nil {
		t.Fatal("connected with a revoked token")
	}
	var n int
	s.DB.Raw(`SELECT count(*) FROM messages WHERE user_id = ?`, u.ID).Row().Scan(&n)
	if n != 0 {
		t.Fatalf("%d messages written without a live token", n)
	}
}

// TestMCPHistoryNotAnArray: a history that is null, a string, a number or
// an object is no history (seed 000's bib_ask answers such a call).
func TestMCPHistoryNotAnArray(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "mcphist@example.com", "mcp-pass-1", models.PlanPro)
	cs, err := mcpConnect(t, s, apptest.APIToken(t, s, u.ID))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		history any
	}{
		{"null", nil},
		{"string", "I study networking."},
		{"number", 3},
		{"object", map[string]any{"role": "user", "content": "I study networking."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if text, ok := callAsk(t, cs, map[string]any{"question": "What is a trunk port?", "lang": "en", "history": tc.history}); !ok {
				t.Fatalf("history %v refused: %s", tc.history, text)
			}
		})
	}
}
