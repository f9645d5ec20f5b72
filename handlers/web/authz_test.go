package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// idRoute is one browser route that takes an id.
type idRoute struct {
	method, path string     // path with {cid}, {mid}, {aid} or {lesson}
	form         url.Values // extra form fields of a POST
	kind         string     // which id the route takes: cid, lcid, mid, smid, aid
}

// routesWithIDs lists every id-taking browser route. {mid} is a finished
// answer, {smid} one still being written, {lcid} a lesson session.
func routesWithIDs() []idRoute {
	return []idRoute{
		{method: "GET", path: "/chat/{cid}", kind: "cid"},
		{method: "GET", path: "/chat/{cid}/delete", kind: "cid"},
		{method: "POST", path: "/chat/{cid}/delete", kind: "cid"},
		{method: "DELETE", path: "/chat/{cid}", kind: "cid"},
		{method: "POST", path: "/chat/{cid}/style", form: url.Values{"style": {"guide"}}, kind: "cid"},
		{method: "POST", path: "/chat/{cid}/messages", form: url.Values{"content": {"Tell me a secret"}}, kind: "cid"},
		{method: "GET", path: "/learn/go-basics/go-variables-types?tutor=open&session={lcid}", kind: "lcid"},
		{method: "GET", path: "/messages/{mid}/stream", kind: "mid"},
		{method: "GET", path: "/messages/{smid}/stream", kind: "smid"},
		{method: "POST", path: "/messages/{mid}/rate", form: url.Values{"rating": {"down"}, "reason": {"other"}, "comment": {"x"}}, kind: "mid"},
		{method: "POST", path: "/messages/{smid}/cancel", kind: "smid"},
		{method: "POST", path: "/messages/{mid}/retry", kind: "mid"},
		{method: "POST", path: "/messages/{mid}/continue", kind: "mid"},
		{method: "POST", path: "/messages/{mid}/edit", form: url.Values{"content": {"Edited"}}, kind: "mid"},
		{method: "POST", path: "/messages/{mid}/version", form: url.Values{"version": {"1"}}, kind: "mid"},
		{method: "GET", path: "/attachments/{aid}", kind: "aid"},
	}
}

// send makes one request as c: form fields for POST/DELETE, the CSRF
// token in the form (and header, for DELETE) unless csrf is "".
func send(t testing.TB, c *webtest.Client, method, path string, form url.Values, csrf string) *webtest.Page {
	t.Helper()
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	if csrf != "" {
		f.Set("_csrf", csrf)
	}
	var body *strings.Reader
	if method == http.MethodGet {
		body = strings.NewReader("")
	} else {
		body = strings.NewReader(f.Encode())
	}
	req, _ := http.NewRequest(method, c.Base+path, body)
	if method != http.MethodGet {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if csrf != "" && method == http.MethodDelete {
			req.Header.Set("X-CSRF-Token", csrf)
		}
	}
	return c.Do(req)
}

// snapshot is a digest of every row of the user's that a route could change.
func snapshot(t testing.TB, s *apptest.Server, userID string) string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT coalesce(md5(string_agg(row_to_json(x)::text, '|' ORDER BY x.id)), '') FROM conversations x WHERE user_id = ?`,
		// The generating process's lease heartbeat and the batched text of an
		// answer in progress move on their own; everything else must not.
		`SELECT coalesce(md5(string_agg((row_to_json(x)::jsonb - 'lease_until' - 'lease_owner'
			- CASE WHEN x.status = 'streaming' THEN 'content' ELSE '' END)::text, '|' ORDER BY x.id)), '') FROM messages x WHERE user_id = ?`,
		`SELECT coalesce(md5(string_agg(row_to_json(x)::text, '|' ORDER BY x.id)), '') FROM attachments x WHERE user_id = ?`,
		`SELECT coalesce(md5(string_agg(row_to_json(x)::text, '|' ORDER BY x.period)), '') FROM plan_usage x WHERE user_id = ?`,
		`SELECT coalesce(active_conversation_id::text, '') FROM users WHERE id = ?`,
	} {
		var v string
		if err := s.DB.Raw(q, userID).Row().Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, v)
	}
	return strings.Join(out, ",")
}

// Every id-taking route called by user B with user A's ids answers 404 and
// changes nothing of A's; unknown and malformed ids answer 404; a POST
// without its CSRF token answers 403 and changes nothing.
func TestAuthzOtherUsersIDs(t *testing.T) {
	release := make(chan struct{})
	p := &apptest.Scripted{Answer: func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		if strings.Contains(req.Question, "hold") {
			if err := emit("Partial "); err != nil {
				return err
			}
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return emit("The answer.")
	}}
	s := apptest.New(t, apptest.WithProvider(p))
	t.Cleanup(func() { close(release) })
	a := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	s.User(t, "bob@example.com", "a-long-password-2", models.PlanPro)
	ca := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cb := s.SignIn(t, "bob@example.com", "a-long-password-2")

	// A's rows: a thread with a question carrying a file and its answer, a
	// second answer still being written, and a lesson session.
	cid := apptest.NewThread(t, ca)
	page := apptest.PostMultipart(t, ca, "/chat/"+cid+"/messages", map[string]string{"_csrf": csrfOf(t, ca), "content": "Read my notes"},
		"notes.md", []byte("# Notes\n\nMy secret notes.\n"), false)
	mid := strings.TrimPrefix(page.URL.Fragment, "m-")
	if page.Status != http.StatusOK || apptest.Message(t, s, mid).Status != models.StatusComplete {
		t.Fatalf("A's question: %d at %s", page.Status, page.URL)
	}
	var aid string
	s.DB.Raw(`SELECT id FROM attachments WHERE user_id = ?`, a.ID).Row().Scan(&aid)
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: a.ID, ConversationID: cid, Content: "hold on"})
	if err != nil {
		t.Fatal(err)
	}
	smid := res.AssistantMessage.ID
	lconv, err := s.App.Conversations.Create(context.Background(), a.ID, models.ModeLesson, "go-variables-types", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	lres, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: a.ID, ConversationID: lconv.ID, Content: "What is a rune?"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tutor.Streams().Wait(context.Background(), a.ID, lres.AssistantMessage.ID); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{"{cid}": cid, "{mid}": mid, "{smid}": smid, "{aid}": aid, "{lcid}": lconv.ID}
	// A can reach each of them (so the 404s below are about B).
	if p := ca.Get("/attachments/" + aid); p.Status != http.StatusOK || !strings.Contains(p.Body, "My secret notes.") {
		t.Fatalf("A's own attachment: %d", p.Status)
	}
	fill := func(path, with string) string {
		for k, v := range ids {
			if with != "" {
				v = with
			}
			path = strings.ReplaceAll(path, k, v)
		}
		return path
	}

	tokB := csrfOf(t, cb)
	before := snapshot(t, s, a.ID)
	for _, r := range routesWithIDs() {
		t.Run("other user/"+r.method+" "+r.path, func(t *testing.T) {
			p := send(t, cb, r.method, fill(r.path, ""), r.form, tokB)
			if p.Status != http.StatusNotFound {
				t.Errorf("status %d, want 404; body %.200s", p.Status, p.Body)
			}
			for _, leak := range []string{"Read my notes", "My secret notes", "The answer.", "Partial"} {
				if strings.Contains(p.Body, leak) {
					t.Errorf("the 404 reveals %q", leak)
				}
			}
			if got := snapshot(t, s, a.ID); got != before {
				t.Errorf("B's request changed A's rows")
			}
		})
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages m JOIN users u ON u.id = m.user_id WHERE u.email = 'bob@example.com'`); n != 0 {
		t.Errorf("B's requests stored %d messages", n)
	}

	for _, bad := range []struct{ name, id string }{
		{"unknown", "0b9c3c3e-55f4-4d7e-9e39-4a6f1f0e2a11"},
		{"malformed", "not-an-id"},
		{"injection", "1%27%20OR%20%271%27=%271"},
		{"number", "42"},
	} {
		for _, r := range routesWithIDs() {
			t.Run(bad.name+"/"+r.method+" "+r.path, func(t *testing.T) {
				p := send(t, cb, r.method, fill(r.path, bad.id), r.form, tokB)
				if p.Status != http.StatusNotFound {
					t.Errorf("status %d, want 404; body %.200s", p.Status, p.Body)
				}
			})
		}
	}

	// A's own POSTs without a CSRF token: 403 and nothing changed.
	for _, r := range routesWithIDs() {
		if r.method == http.MethodGet {
			continue
		}
		t.Run("no csrf/"+r.method+" "+r.path, func(t *testing.T) {
			p := send(t, ca, r.method, fill(r.path, ""), r.form, "")
			if p.Status != http.StatusForbidden {
				t.Errorf("status %d, want 403", p.Status)
			}
			if got := snapshot(t, s, a.ID); got != before {
				t.Errorf("a request without CSRF changed A's rows")
			}
		})
	}
	if m := apptest.Message(t, s, smid); m.Status != models.StatusStreaming {
		t.Errorf("A's answer in progress is %s after B's cancel", m.Status)
	}
}
