package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/models"
	"aula/tutor"
)

// errorCode is the code of an API error body.
func errorCode(t testing.TB, b []byte) string {
	t.Helper()
	code, _ := apiError(t, b)
	return code
}

// withFake routes tutor_chat to a fake OpenAI-compatible server.
func withFake(srv *fakellm.Server) func(*tutor.Config) {
	return func(c *tutor.Config) {
		c.Credentials = tutor.Credentials{OpenAIKey: "k", OpenAIBaseURL: srv.URL}
		c.DefaultProvider, c.DefaultModel = tutor.ProviderOpenAI, "m1"
	}
}

// The stream, read line by line as a fetch-stream client reads it: the
// first chunk arrives while the provider still holds the rest of the
// answer, and the message is still streaming then.
func TestAPIStreamFirstChunkBeforeAnswerFinished(t *testing.T) {
	hold := make(chan struct{})
	fake := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: []string{"VLANs", " split", " one", " switch", "."}, Hold: hold})
	s := apptest.New(t, withFake(fake))
	u := s.User(t, "stream@example.com", "stream-pass-1", models.PlanPro)
	tok := apptest.APIToken(t, s, u.ID)

	req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/v1/tutor/stream",
		strings.NewReader(`{"message":"What is a VLAN?","lessonId":"vlan-basics"}`))
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := bufio.NewReader(resp.Body)
	next := func() map[string]any {
		t.Helper()
		for {
			line, err := lines.ReadString('\n')
			if err != nil {
				t.Fatalf("stream ended early: %v", err)
			}
			if data, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "data: "); ok {
				var ev map[string]any
				if err := json.Unmarshal([]byte(data), &ev); err != nil {
					t.Fatalf("bad event %q", data)
				}
				return ev
			}
		}
	}
	first := next()
	if first["type"] != "chunk" || first["text"] != "VLANs" {
		t.Fatalf("first event %v, want the first token alone", first)
	}
	var status string
	s.DB.Raw(`SELECT status FROM messages WHERE user_id = ? AND role = 'assistant'`, u.ID).Row().Scan(&status)
	if status != models.StatusStreaming {
		t.Fatalf("answer is %q at the first chunk; the provider has not finished", status)
	}
	close(hold)
	text := first["text"].(string)
	var done map[string]any
	for done == nil {
		ev := next()
		switch ev["type"] {
		case "chunk":
			text += ev["text"].(string)
		case "done":
			done = ev
		default:
			t.Fatalf("unexpected event %v", ev)
		}
	}
	if text != fake.Answer() {
		t.Fatalf("streamed %q, want %q", text, fake.Answer())
	}
	if done["provider"] != "openai" || done["model"] != "m1" || done["messageId"] == "" || done["conversationId"] == "" || done["latencyMs"] == nil {
		t.Fatalf("done event %v", done)
	}
	conv := apptest.APIJSON(t, s, tok, "GET", "/conversations/"+done["conversationId"].(string), nil, 200)
	msgs := conv["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if conv["mode"] != "lesson" || conv["lessonId"] != "vlan-basics" || last["content"] != fake.Answer() || last["status"] != "complete" {
		t.Fatalf("stored conversation %v", conv)
	}
}

// A provider failure ends the stream with an error line in the API's codes.
func TestAPIStreamProviderFailure(t *testing.T) {
	fake := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Status: 500})
	s := apptest.New(t, withFake(fake))
	u := s.User(t, "fail@example.com", "fail-pass-1", models.PlanFree)
	tok := apptest.APIToken(t, s, u.ID)
	resp, b := apptest.APICall(t, s, tok, "POST", "/tutor/stream", map[string]any{"message": "What is a VLAN?"})
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n\n")
	var ev map[string]any
	_ = json.Unmarshal([]byte(strings.TrimPrefix(lines[len(lines)-1], "data: ")), &ev)
	if ev["type"] != "error" || ev["code"] != "SERVICE_UNAVAILABLE" || ev["reason"] == "" {
		t.Fatalf("last event %v in %s", ev, b)
	}
	usage := apptest.APIJSON(t, s, tok, "GET", "/tutor/monthly-usage", nil, 200)
	if usage["used"].(float64) != 0 {
		t.Fatalf("a failed answer was counted: %v", usage)
	}
	_, b = apptest.APICall(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "What is a VLAN?"})
	if code := errorCode(t, b); code != "SERVICE_UNAVAILABLE" {
		t.Fatalf("chat on a failing provider: %s", b)
	}
}

// Every error status of the API, with its code, as JSON.
func TestAPIErrorStatuses(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "err@example.com", "err-pass-1", models.PlanFree)
	other := s.User(t, "other@example.com", "other-pass-1", models.PlanPro)
	tok, otherTok := apptest.APIToken(t, s, u.ID), apptest.APIToken(t, s, other.ID)
	revoked, raw, _ := s.App.Tokens.Create(context.Background(), u.ID, "old")
	if err := s.App.Tokens.Revoke(context.Background(), u.ID, revoked.ID); err != nil {
		t.Fatal(err)
	}
	theirs := apptest.APIJSON(t, s, otherTok, "POST", "/tutor/chat", map[string]any{"message": "What is a VLAN?"}, 200)

	cases := []struct {
		name, token, method, path string
		body                      any
		status                    int
		code                      string
	}{
		{"no token", "", "GET", "/tutor/monthly-usage", nil, 401, "UNAUTHORIZED"},
		{"malformed token", "not-a-token", "GET", "/tutor/monthly-usage", nil, 401, "UNAUTHORIZED"},
		{"unknown token", "aula_" + strings.Repeat("A", 43), "GET", "/tutor/monthly-usage", nil, 401, "UNAUTHORIZED"},
		{"revoked token", raw, "GET", "/tutor/monthly-usage", nil, 401, "UNAUTHORIZED"},
		{"malformed JSON", tok, "POST", "/tutor/chat", `{"message":`, 400, "INVALID_JSON"},
		{"wrong JSON type", tok, "POST", "/tutor/chat", `{"message":5}`, 400, "INVALID_JSON"},
		{"empty body", tok, "POST", "/tutor/chat", "", 400, "INVALID_JSON"},
		{"empty message", tok, "POST", "/tutor/chat", map[string]any{"message": "   "}, 422, "EMPTY_MESSAGE"},
		{"too long", tok, "POST", "/tutor/stream", map[string]any{"message": strings.Repeat("a", 4001)}, 422, "MESSAGE_TOO_LONG"},
		{"unknown lesson", tok, "POST", "/tutor/stream", map[string]any{"message": "hi", "lessonId": "no-such-lesson"}, 422, "UNKNOWN_LESSON"},
		{"unknown module", tok, "POST", "/tutor/chat", map[string]any{"message": "hi", "moduleId": 999999}, 422, "UNKNOWN_MODULE"},
		{"bad history role", tok, "POST", "/tutor/chat", map[string]any{"message": "hi",
			"conversationHistory": []any{map[string]any{"role": "system", "content": "x"}}}, 422, "INVALID_HISTORY"},
		{"empty history turn", tok, "POST", "/tutor/chat", map[string]any{"message": "hi",
			"conversationHistory": []any{map[string]any{"role": "user", "content": ""}}}, 422, "INVALID_HISTORY"},
		{"suggestions unknown lesson", tok, "GET", "/tutor/suggestions?lessonId=nope", nil, 422, "UNKNOWN_LESSON"},
		{"bad page", tok, "GET", "/tutor/my-history?page=0", nil, 422, "INVALID_PARAMETER"},
		{"bad cursor", tok, "GET", "/conversations?cursor=zzz", nil, 422, "INVALID_PARAMETER"},
		{"bad mode", tok, "POST", "/conversations", map[string]any{"mode": "chat"}, 422, "INVALID_MODE"},
		{"bad rating", tok, "POST", "/tutor/rate", map[string]any{"messageId": theirs["messageId"], "rating": "meh"}, 422, "INVALID_RATING"},
		{"someone else's conversation", tok, "GET", "/conversations/" + theirs["conversationId"].(string), nil, 404, "NOT_FOUND"},
		{"ask in someone else's conversation", tok, "POST", "/tutor/chat", map[string]any{"message": "hi", "conversationId": theirs["conversationId"]}, 404, "NOT_FOUND"},
		{"delete someone else's conversation", tok, "DELETE", "/conversations/" + theirs["conversationId"].(string), nil, 404, "NOT_FOUND"},
		{"rate someone else's answer", tok, "POST", "/tutor/rate", map[string]any{"messageId": theirs["messageId"], "rating": "up"}, 404, "NOT_FOUND"},
		{"unknown id", tok, "GET", "/conversations/not-a-uuid", nil, 404, "NOT_FOUND"},
		{"unknown route", tok, "GET", "/nope", nil, 404, "NOT_FOUND"},
		{"too large", tok, "POST", "/tutor/chat", `{"message":"` + strings.Repeat("a", 300<<10) + `"}`, 413, "PAYLOAD_TOO_LARGE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := apptest.APICall(t, s, tc.token, tc.method, tc.path, tc.body)
			if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("status %d (%s), want %d: %s", resp.StatusCode, resp.Header.Get("Content-Type"), tc.status, b)
			}
			if code := errorCode(t, b); code != tc.code {
				t.Fatalf("code %s, want %s", code, tc.code)
			}
			if tc.status == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("401 without a Bearer challenge: %q", resp.Header.Get("WWW-Authenticate"))
			}
			if resp.Header.Get("Set-Cookie") != "" {
				t.Fatal("the API set a cookie")
			}
		})
	}

	// FREE has 3 questions a month; the refusals above took none.
	for i := range 3 {
		apptest.APIJSON(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "What is a VLAN? " + string(rune('a'+i))}, 200)
	}
	resp, b := apptest.APICall(t, s, tok, "POST", "/tutor/stream", map[string]any{"message": "One more?"})
	if resp.StatusCode != 429 || errorCode(t, b) != "QUOTA_EXCEEDED" {
		t.Fatalf("over the quota: %d %s", resp.StatusCode, b)
	}
	usage := apptest.APIJSON(t, s, tok, "GET", "/tutor/monthly-usage", nil, 200)
	if usage["used"].(float64) != 3 || usage["limit"].(float64) != 3 || usage["plan"] != models.PlanFree {
		t.Fatalf("usage %v", usage)
	}
}

// The whole API on one user: chat seeded with history, a follow-up in the
// same conversation, rating, reads, conversations CRUD.
func TestAPIChatConversationsAndReads(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "api@example.com", "api-pass-1", models.PlanPro)
	tok := apptest.APIToken(t, s, u.ID)

	history := []any{}
	for i := range 12 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		history = append(history, map[string]any{"role": role, "content": "earlier turn about switching " + string(rune('a'+i))})
	}
	first := apptest.APIJSON(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "What is a VLAN?", "lessonId": "vlan-basics",
		"conversationHistory": history}, 200)
	if !strings.Contains(first["answer"].(string), "Offline tutor") || first["messageId"] == "" {
		t.Fatalf("chat answer %v", first)
	}
	cid := first["conversationId"].(string)
	second := apptest.APIJSON(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "¿Y cómo se configura en Cisco?",
		"conversationId": cid, "conversationHistory": []any{map[string]any{"role": "user", "content": "ignored"}}}, 200)
	if second["conversationId"] != cid || !strings.Contains(second["answer"].(string), "Tutor sin conexión") {
		t.Fatalf("follow-up %v", second)
	}
	conv := apptest.APIJSON(t, s, tok, "GET", "/conversations/"+cid, nil, 200)
	msgs := conv["messages"].([]any)
	if len(msgs) != 4 {
		t.Fatalf("the seed history was stored as messages: %d messages", len(msgs))
	}
	r1 := msgs[1].(map[string]any)["receipt"].(map[string]any)
	r2 := msgs[3].(map[string]any)["receipt"].(map[string]any)
	// 10 seeded turns (the last ten of twelve), then those 10 again (kept
	// as the conversation's earlier context) and its own 2.
	if r1["turnsRemembered"].(float64) != 10 || r2["turnsRemembered"].(float64) != 12 || r2["lang"] != "es" {
		t.Fatalf("receipts %v / %v", r1, r2)
	}
	if cits := r1["citations"].([]any); len(cits) == 0 || cits[0].(map[string]any)["lessonId"] != "vlan-basics" {
		t.Fatalf("citations %v", r1["citations"])
	}

	rated := apptest.APIJSON(t, s, tok, "POST", "/tutor/rate", map[string]any{"messageId": first["messageId"], "rating": "up"}, 200)
	if rated["rating"] != "up" {
		t.Fatalf("rate %v", rated)
	}
	conv = apptest.APIJSON(t, s, tok, "GET", "/conversations/"+cid, nil, 200)
	if conv["messages"].([]any)[1].(map[string]any)["rating"] != "up" {
		t.Fatal("rating not stored")
	}
	sugg := apptest.APIJSON(t, s, tok, "GET", "/tutor/suggestions?lessonId=vlan-basics", nil, 200)
	if len(sugg["suggestions"].([]any)) != 3 {
		t.Fatalf("suggestions %v", sugg)
	}
	usage := apptest.APIJSON(t, s, tok, "GET", "/tutor/monthly-usage", nil, 200)
	if usage["used"].(float64) != 2 || usage["limit"].(float64) != 0 {
		t.Fatalf("monthly usage %v", usage)
	}
	hist := apptest.APIJSON(t, s, tok, "GET", "/tutor/my-history", nil, 200)
	items := hist["items"].([]any)
	if hist["total"].(float64) != 1 || hist["limit"].(float64) != 20 || items[0].(map[string]any)["moduleName"] == nil {
		t.Fatalf("history %v", hist)
	}
	mine := apptest.APIJSON(t, s, tok, "GET", "/tutor/my-usage", nil, 200)
	if len(mine["weekly"].([]any)) != 8 || mine["totalQuestions"].(float64) != 2 || mine["topModule"] == nil {
		t.Fatalf("my usage %v", mine)
	}
	info := apptest.APIJSON(t, s, tok, "GET", "/tutor/session-info", nil, 200)
	if info["provider"] != "offline" {
		t.Fatalf("session info %v", info)
	}

	created := apptest.APIJSON(t, s, tok, "POST", "/conversations", map[string]any{"mode": "help", "style": "guide"}, 201)
	if created["mode"] != "help" || created["style"] != "guide" {
		t.Fatalf("created %v", created)
	}
	list := apptest.APIJSON(t, s, tok, "GET", "/conversations?limit=1", nil, 200)
	if len(list["items"].([]any)) != 1 || list["nextCursor"] != nil {
		t.Fatalf("list (an empty thread is not listed) %v", list)
	}
	apptest.APIJSON(t, s, tok, "DELETE", "/conversations/"+cid, nil, 204)
	apptest.APIJSON(t, s, tok, "GET", "/conversations/"+cid, nil, 404)
}

// A token stops working the moment it is revoked, and last use is recorded.
func TestAPITokenRevokedAtOnce(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "rev@example.com", "rev-pass-1", models.PlanPro)
	tok, raw, _ := s.App.Tokens.Create(context.Background(), u.ID, "cli")
	apptest.APIJSON(t, s, raw, "GET", "/tutor/session-info", nil, 200)
	list, _ := s.App.Tokens.List(context.Background(), u.ID)
	if list[0].LastUsedAt == nil || time.Since(*list[0].LastUsedAt) > time.Minute {
		t.Fatalf("last used %v", list[0].LastUsedAt)
	}
	if err := s.App.Tokens.Revoke(context.Background(), u.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	apptest.APIJSON(t, s, raw, "GET", "/tutor/session-info", nil, 401)
}
