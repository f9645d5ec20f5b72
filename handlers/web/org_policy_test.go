package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// bearerTransport adds a personal token to every request of the MCP client.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpAsk calls the MCP tool ask with the SDK's own client over HTTP and
// returns the result's text and whether it is an answer (not an error).
func mcpAsk(t *testing.T, s *apptest.Server, token string, args map[string]any) (string, bool) {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "aula-test", Version: "1"}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{token}},
		DisableStandaloneSSE: true, MaxRetries: -1}
	cs, err := client.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Errorf("MCP connect: %v", err)
		return "", false
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask", Arguments: args})
	if err != nil || len(res.Content) == 0 {
		t.Errorf("MCP ask: %v", err)
		return "", false
	}
	return res.Content[0].(*sdk.TextContent).Text, !res.IsError
}

// styleOf is the teaching style thread cid is stored with.
func styleOf(t *testing.T, s *apptest.Server, cid string) string {
	t.Helper()
	var style string
	if err := s.DB.Raw(`SELECT style FROM conversations WHERE id = ?`, cid).Row().Scan(&style); err != nil {
		t.Fatalf("style of %s: %v", cid, err)
	}
	return style
}

// newestThread is the id of the user's most recently created thread.
func newestThread(t *testing.T, s *apptest.Server, userID string) string {
	t.Helper()
	var id string
	s.DB.Raw(`SELECT id FROM conversations WHERE user_id = ? ORDER BY created_at DESC, id LIMIT 1`, userID).Scan(&id)
	return id
}

// The default teaching style: a member's new thread starts in their
// organization's style on every door (site, API, MCP) and their own
// switch still changes it; a FREE student, the organization's admin and
// a member of another organization start in explain.
func TestOrgPolicyDefaultStyle(t *testing.T) {
	s := apptest.New(t, fastTutor)
	policyOrgs(t, s)
	setPolicy(t, s.SignIn(t, "a@example.com", orgPass), map[string]string{"teaching_style": "guide", "help_mode": "on"})
	for who, want := range map[string]string{"ma@example.com": "guide", "free@example.com": "explain",
		"a@example.com": "explain", "mb@example.com": "explain"} {
		cid := quotaThread(t, s.SignIn(t, who, orgPass))
		if got := styleOf(t, s, cid); got != want {
			t.Errorf("%s's new thread: %s, want %s", who, got, want)
		}
	}
	ma := s.SignIn(t, "ma@example.com", orgPass)
	maID := userID(t, s, "ma@example.com")
	cid := quotaThread(t, ma)
	p := ma.Submit(ma.Get("/chat/"+cid), `form[action="/chat/`+cid+`/style"]`, map[string]string{"style": "explain"})
	if p.Status != http.StatusOK || styleOf(t, s, cid) != "explain" {
		t.Fatalf("the member's switch: %d, style %s", p.Status, styleOf(t, s, cid))
	}
	lesson := ma.Post("/chat", url.Values{"_csrf": {p.CSRF()}, "mode": {"lesson"}, "lesson_id": {"vlan-basics"}})
	if lesson.Status != http.StatusOK || styleOf(t, s, newestThread(t, s, maID)) != "guide" {
		t.Fatalf("the member's lesson thread: %d, style %s", lesson.Status, styleOf(t, s, newestThread(t, s, maID)))
	}
	tok := apptest.APIToken(t, s, maID)
	r := apptest.APIJSON(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "What is a VLAN?"}, 200)
	if cid, _ := r["conversationId"].(string); cid == "" || styleOf(t, s, cid) != "guide" {
		t.Errorf("the member's thread opened through the API: %v", r)
	}
	r = apptest.APIJSON(t, s, tok, "POST", "/conversations", map[string]any{"mode": "tutor"}, 201)
	if got, _ := r["style"].(string); got != "guide" {
		t.Errorf("a conversation the member creates through the API: %v", r)
	}
	if _, ok := mcpAsk(t, s, tok, map[string]any{"question": "What is a VLAN?"}); !ok || styleOf(t, s, newestThread(t, s, maID)) != "guide" {
		t.Errorf("the member's thread opened through MCP: %s", styleOf(t, s, newestThread(t, s, maID)))
	}
}

// Help mode off: a member is offered no help thread, and every door
// refuses one with a clear 409 in their language, new or already open
// (asked in, regenerated or edited), even among questions arriving
// together; nothing is written. Another organization's member and the
// admin keep help mode.
func TestOrgPolicyHelpModeOff(t *testing.T) {
	s := apptest.New(t, fastTutor)
	policyOrgs(t, s)
	maID, mbID := userID(t, s, "ma@example.com"), userID(t, s, "mb@example.com")
	// A help thread opened before the organization turned help mode off.
	old, err := s.App.Conversations.Create(t.Context(), maID, models.ModeHelp, "", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	ma, mb := s.SignIn(t, "ma@example.com", orgPass), s.SignIn(t, "mb@example.com", orgPass)
	ma.Post("/chat/"+old.ID+"/messages", url.Values{"_csrf": {ma.Get("/learn").CSRF()}, "content": {"How do I change my password?"}})
	var answer, question string
	s.DB.Raw(`SELECT id FROM messages WHERE conversation_id = ? AND role = 'assistant' AND status = 'complete'`, old.ID).Scan(&answer)
	s.DB.Raw(`SELECT id FROM messages WHERE conversation_id = ? AND role = 'user'`, old.ID).Scan(&question)
	if answer == "" || question == "" {
		t.Fatal("the help thread was not answered before help mode went off")
	}
	counted := apptest.Count(t, s, `SELECT coalesce(sum(questions), 0) FROM plan_usage WHERE user_id = ?`, maID)
	setPolicy(t, s.SignIn(t, "a@example.com", orgPass), map[string]string{"teaching_style": "explain"})
	ma.Lang = "es"
	if p := ma.Get("/chat"); p.Doc.Find(`#new-mode option[value="help"]`).Length() != 0 || p.Doc.Find(`#new-mode option[value="tutor"]`).Length() != 1 {
		t.Errorf("the member is offered a help thread")
	}
	if p := mb.Get("/chat"); p.Doc.Find(`#new-mode option[value="help"]`).Length() != 1 {
		t.Errorf("another organization's member lost help mode")
	}
	const says = "Tu organización ha desactivado el modo ayuda"
	csrf := ma.Get("/chat").CSRF()
	for _, r := range []struct {
		what, path string
		form       url.Values
	}{
		{"a new help thread", "/chat", url.Values{"mode": {"help"}}},
		{"a question in the old help thread", "/chat/" + old.ID + "/messages", url.Values{"content": {"¿Cómo cambio mi contraseña?"}}},
		{"regenerating its answer", "/messages/" + answer + "/retry", nil},
		{"editing its question", "/messages/" + question + "/edit", url.Values{"content": {"¿Y mi correo?"}}},
	} {
		if p := send(t, ma, http.MethodPost, r.path, r.form, csrf); p.Status != http.StatusConflict || !strings.Contains(p.Text("main"), says) {
			t.Errorf("%s on the site: %d %q", r.what, p.Status, p.Text("main"))
		}
	}
	// An answer the member stopped before help mode went off is not continued either.
	s.DB.Exec(`UPDATE messages SET status = 'cancelled' WHERE id = ?`, answer)
	if p := send(t, ma, http.MethodPost, "/messages/"+answer+"/continue", nil, csrf); p.Status != http.StatusConflict || !strings.Contains(p.Text("main"), says) {
		t.Errorf("continuing its stopped answer on the site: %d %q", p.Status, p.Text("main"))
	}
	tok := apptest.APIToken(t, s, maID)
	for _, call := range []struct {
		path string
		body map[string]any
	}{
		{"/conversations", map[string]any{"mode": "help"}},
		{"/tutor/chat", map[string]any{"conversationId": old.ID, "message": "How do I change my password?"}},
	} {
		if resp, body := apptest.APICall(t, s, tok, "POST", call.path, call.body); resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), "HELP_MODE_OFF") {
			t.Errorf("API %s: %d %s", call.path, resp.StatusCode, body)
		}
	}
	if text, ok := mcpAsk(t, s, tok, map[string]any{"question": "How do I change my password?", "mode": "help"}); ok || !strings.Contains(text, "HELP_MODE_OFF") {
		t.Errorf("MCP help question: %q", text)
	}
	// Questions arriving together are recorded in one statement: the
	// member's help questions are refused there too, the other's taken.
	mbThread := quotaThread(t, mb)
	mbCSRF := mb.Get("/chat").CSRF()
	statuses := make([]int, 16)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Go(func() {
			if i%2 == 0 {
				statuses[i], _, _ = htmxAsk(ma, csrf, old.ID, "How do I change my password?")
			} else {
				statuses[i], _, _ = htmxAsk(mb, mbCSRF, mbThread, "How do I change my password?")
			}
		})
	}
	wg.Wait()
	for i, st := range statuses {
		if want := []int{http.StatusConflict, http.StatusOK}[i%2]; st != want {
			t.Errorf("question %d together: %d, want %d", i, st, want)
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE user_id = ?`, maID); n != 2 {
		t.Errorf("%d messages stored for the refused member, want the 2 from before", n)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM message_versions`); n != 0 {
		t.Errorf("%d versions kept by a refused regeneration", n)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM conversations WHERE user_id = ? AND mode = 'help'`, maID); n != 1 {
		t.Errorf("%d help threads of the member, want the old one only", n)
	}
	if n := apptest.Count(t, s, `SELECT coalesce(sum(questions), 0) FROM plan_usage WHERE user_id = ?`, maID); n != counted {
		t.Errorf("%d questions counted, want the %d from before", n, counted)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE user_id = ? AND role = 'user'`, mbID); n != 8 {
		t.Errorf("the other organization's member got %d of 8 questions in", n)
	}
	a := s.SignIn(t, "a@example.com", orgPass)
	if p := a.Post("/chat", url.Values{"_csrf": {a.Get("/chat").CSRF()}, "mode": {"help"}}); p.Status != http.StatusOK {
		t.Errorf("the admin's help thread: %d", p.Status)
	}
}

// The monthly question cap: a member with 2 questions left fires 20 at
// once through the site, the JSON API and MCP, and exactly 2 get
// through; the others are refused with the limit's message. The member
// then sees the bar at the cap and the limit's message naming the
// organization; another member, the admin and another organization's
// member are not held by it.
func TestOrgPolicyQuestionCapInParallel(t *testing.T) {
	s := apptest.New(t, fastTutor)
	policyOrgs(t, s)
	setPolicy(t, s.SignIn(t, "a@example.com", orgPass), map[string]string{"teaching_style": "explain", "help_mode": "on", "question_cap": "5"})
	maID := userID(t, s, "ma@example.com")
	if err := s.DB.Exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 3)`, maID, models.Period(s.Tutor.Now())).Error; err != nil {
		t.Fatal(err)
	}
	ma := s.SignIn(t, "ma@example.com", orgPass)
	threads := []string{quotaThread(t, ma), quotaThread(t, ma)}
	csrf := ma.Get("/chat").CSRF()
	tok := apptest.APIToken(t, s, maID)
	type result struct {
		ok      bool
		limited bool
		detail  string
	}
	results := make([]result, 20)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			<-start
			switch {
			case i < 10:
				st, body, _ := htmxAsk(ma, csrf, threads[i%2], "What is a VLAN?")
				results[i] = result{st == http.StatusOK, st == http.StatusTooManyRequests && strings.Contains(body, "org-cap-note"), body}
			case i < 16:
				resp, body := apptest.APICall(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "What is a VLAN?"})
				results[i] = result{resp.StatusCode == http.StatusOK,
					resp.StatusCode == http.StatusTooManyRequests && strings.Contains(string(body), "QUOTA_EXCEEDED"), string(body)}
			default:
				text, ok := mcpAsk(t, s, tok, map[string]any{"question": "What is a VLAN?"})
				results[i] = result{ok, !ok && strings.Contains(text, "QUOTA_EXCEEDED"), text}
			}
		})
	}
	close(start)
	wg.Wait()
	admitted := 0
	for i, r := range results {
		switch {
		case r.ok:
			admitted++
		case !r.limited:
			t.Errorf("question %d neither answered nor refused at the cap: %.300s", i, r.detail)
		}
	}
	if admitted != 2 {
		t.Errorf("%d of 20 questions got through, want 2", admitted)
	}
	if n := apptest.Count(t, s, `SELECT questions FROM plan_usage WHERE user_id = ?`, maID); n != 5 {
		t.Errorf("plan_usage %d, want 5", n)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE user_id = ? AND role = 'user'`, maID); n != 2 {
		t.Errorf("%d questions stored, want 2", n)
	}
	capScreens(t, s, ma, tok)
}

// capScreens checks what a member at the cap of 5 sees, and that the
// cap holds no one else.
func capScreens(t *testing.T, s *apptest.Server, ma *webtest.Client, tok string) {
	t.Helper()
	for _, path := range []string{"/chat", "/dashboard", "/learn/networking/vlan-basics"} {
		p := ma.Get(path)
		bar := p.Doc.Find("#usage")
		if bar.AttrOr("data-used", "") != "5" || bar.AttrOr("data-limit", "") != "5" || !strings.Contains(p.Text("#usage"), "5 of 5 questions this month") {
			t.Errorf("%s: the member's bar %q", path, p.Text("#usage"))
		}
	}
	p := ma.Get("/chat")
	if p.Doc.Find("#org-cap-note").Length() != 1 || p.Doc.Find("#see-plans").Length() != 0 || p.Doc.Find("textarea#q").Length() != 0 {
		t.Errorf("the member at the cap is not told the organization sets it: %q", p.Text(".limit-cta"))
	}
	if r := apptest.APIJSON(t, s, tok, "GET", "/tutor/monthly-usage", nil, 200); r["limit"] != float64(5) || r["remaining"] != float64(0) {
		t.Errorf("monthly usage through the API: %v", r)
	}
	for _, who := range []string{"ma2@example.com", "a@example.com", "mb@example.com"} {
		c := s.SignIn(t, who, orgPass)
		cid := quotaThread(t, c)
		if st, body, _ := htmxAsk(c, c.Get("/chat").CSRF(), cid, "What is a VLAN?"); st != http.StatusOK {
			t.Errorf("%s held by the cap: %d %.200s", who, st, body)
		}
		bar := c.Get("/chat").Doc.Find("#usage")
		switch want := map[string]string{"ma2@example.com": "5"}[who]; {
		case want != "" && bar.AttrOr("data-limit", "") != want:
			t.Errorf("%s (a member of the capped organization): bar limit %q", who, bar.AttrOr("data-limit", ""))
		case want == "" && bar.Length() != 0:
			t.Errorf("%s sees a usage bar without a cap", who)
		}
	}
}
