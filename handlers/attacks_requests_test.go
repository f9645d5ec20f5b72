package handlers_test

// Attacks through the shape of requests: oversized bodies, slow uploads,
// reused CSRF tokens and model output PostgreSQL cannot store.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"aula/handlers"
	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/models"
	"aula/tutor"
)

// Bodies over 6 MB are refused with 413 before anything is stored, on a
// question with a file and on a plain form.
func TestAttackOversizedBodies(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	st := signInStudent(t, s.URL, "ana@example.com", "a-long-password-1", nil)
	cid := apptest.NewThread(t, st.web)
	big := bytes.Repeat([]byte("a"), 7<<20)
	cases := []struct {
		name string
		send func() int
	}{
		{"question with a 7 MB file", func() int {
			return apptest.PostMultipart(t, st.web, "/chat/"+cid+"/messages", map[string]string{"content": "read this", "_csrf": st.csrf},
				"notes.txt", big, true).Status
		}},
		{"7 MB question form", func() int {
			status, _, err := st.do(context.Background(), http.MethodPost, "/chat/"+cid+"/messages", url.Values{"content": {string(big)}}, true)
			if err != nil {
				t.Fatal(err)
			}
			return status
		}},
		{"7 MB sign-in form", func() int {
			resp, err := http.Post(s.URL+"/login", "application/x-www-form-urlencoded", bytes.NewReader(append([]byte("email="), big...)))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.send(); got != http.StatusRequestEntityTooLarge {
				t.Errorf("status %d, want 413", got)
			}
		})
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE user_id = ?`, u.ID); n != 0 {
		t.Errorf("%d messages stored from oversized bodies", n)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM attachments`); n != 0 {
		t.Errorf("%d attachments stored", n)
	}
}

// Slow-loris clients — headers or a body trickled a byte at a time — are
// cut off by the server's read timeouts (aula's own server settings, from
// handlers.NewHTTPServer, shortened here so the test is quick), and the
// server goes on answering others.
func TestAttackSlowLoris(t *testing.T) {
	real := handlers.NewHTTPServer("127.0.0.1:0", http.NotFoundHandler(), discardLog())
	if real.ReadHeaderTimeout <= 0 || real.ReadTimeout <= 0 || real.ReadTimeout > time.Minute || real.WriteTimeout != 0 {
		t.Fatalf("server timeouts: header %s, read %s, write %s: want bounded reads and unbounded writes (streams)",
			real.ReadHeaderTimeout, real.ReadTimeout, real.WriteTimeout)
	}
	s := apptest.New(t)
	srv := handlers.NewHTTPServer("127.0.0.1:0", s.Handler, discardLog())
	srv.ReadHeaderTimeout, srv.ReadTimeout = 300*time.Millisecond, 600*time.Millisecond
	hs := httptest.NewUnstartedServer(srv.Handler)
	hs.Config = srv
	hs.Start()
	t.Cleanup(hs.Close)
	addr := hs.Listener.Addr().String()

	// trickle sends head at once, then slow one byte every 20 ms until the
	// server hangs up (or a bound, so a broken test cannot hang); it
	// returns how many slow bytes went out and what the server answered.
	trickle := func(t *testing.T, head, slow string) (wrote int, reply string) {
		t.Helper()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		got := make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(bufio.NewReader(conn))
			got <- string(b)
		}()
		if _, err := io.WriteString(conn, head); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(20 * time.Second); wrote < len(slow) && time.Now().Before(deadline); wrote++ {
			if _, err := conn.Write([]byte{slow[wrote]}); err != nil {
				break
			}
			select {
			case r := <-got:
				return wrote, r
			case <-time.After(20 * time.Millisecond):
			}
		}
		_ = conn.(*net.TCPConn).CloseWrite()
		return wrote, <-got
	}
	t.Run("headers", func(t *testing.T) {
		slow := strings.Repeat("X-Slow: 1\r\n", 200) + "\r\n"
		wrote, reply := trickle(t, "GET /healthz HTTP/1.1\r\nHost: aula\r\n", slow)
		if wrote >= len(slow) || strings.Contains(reply, "200 OK") {
			t.Fatalf("the slow request was served (%d of %d bytes sent): %.200q", wrote, len(slow), reply)
		}
	})
	t.Run("upload", func(t *testing.T) {
		body := "email=ana%40example.com&password=" + strings.Repeat("x", 2000)
		head := fmt.Sprintf("POST /login HTTP/1.1\r\nHost: aula\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n", len(body))
		wrote, reply := trickle(t, head, body)
		if wrote >= len(body) || strings.Contains(reply, "303 See Other") {
			t.Fatalf("the whole slow upload was read (%d bytes): %.200q", wrote, reply)
		}
	})
	resp, err := http.Get(hs.URL + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("after the slow clients: %v %v", resp, err)
	}
	resp.Body.Close()
}

// A CSRF token is good only with the session it was issued to: another
// student's token, the token of the signed-out visit before sign-in, and
// the token of a session that signed out are all refused, and nothing is
// written.
func TestAttackReusedCSRFToken(t *testing.T) {
	s := apptest.New(t)
	ana := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	s.User(t, "bob@example.com", "b-long-password-2", models.PlanPro)
	a := signInStudent(t, s.URL, "ana@example.com", "a-long-password-1", nil)
	b := signInStudent(t, s.URL, "bob@example.com", "b-long-password-2", nil)
	cid := apptest.NewThread(t, a.web)

	// The token a visitor's form carried before signing in.
	visitor := signInStudentKeepingToken(t, s.URL, "ana@example.com", "a-long-password-1")
	old := signInStudent(t, s.URL, "ana@example.com", "a-long-password-1", nil)
	oldToken := old.csrf
	if status, _, _ := old.do(context.Background(), http.MethodPost, "/logout", url.Values{}, false); status != http.StatusOK && status != http.StatusSeeOther {
		t.Fatalf("logout: %d", status)
	}

	cases := []struct {
		name  string
		who   *student
		token string
	}{
		{"another student's token", a, b.csrf},
		{"the token from before sign-in", visitor.student, visitor.preToken},
		{"the token of a signed-out session", &student{base: s.URL, http: old.http}, oldToken},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.token == "" {
				t.Fatal("no token to reuse")
			}
			forged := *tc.who
			forged.csrf = tc.token
			status, _, err := forged.do(context.Background(), http.MethodPost, "/chat/"+cid+"/messages", url.Values{"content": {"forged"}}, true)
			if err != nil || status != http.StatusForbidden {
				t.Errorf("status %d (%v), want 403", status, err)
			}
			status, _, _ = forged.do(context.Background(), http.MethodPost, "/chat", url.Values{"mode": {"tutor"}}, false)
			if status != http.StatusForbidden {
				t.Errorf("new thread with the token: status %d, want 403", status)
			}
		})
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE user_id = ?`, ana.ID); n != 0 {
		t.Errorf("%d messages written with reused tokens", n)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM conversations WHERE user_id = ?`, ana.ID); n != 1 {
		t.Errorf("%d threads, want the one made honestly", n)
	}
}

// preSignIn is a session signed in through a form whose token was issued
// before sign-in.
type preSignIn struct {
	student  *student
	preToken string
}

func signInStudentKeepingToken(t *testing.T, base, email, password string) preSignIn {
	t.Helper()
	form := webtestGet(t, base)
	st := signInStudentWith(t, form, email, password)
	return preSignIn{student: st, preToken: form.token}
}

// loginForm is the sign-in page as a visitor got it.
type loginForm struct {
	client *http.Client
	base   string
	token  string
}

func webtestGet(t *testing.T, base string) loginForm {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	resp, err := hc.Get(base + "/login")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return loginForm{client: hc, base: base, token: doc.Find(`form[action="/login"] input[name="_csrf"]`).AttrOr("value", "")}
}

func signInStudentWith(t *testing.T, f loginForm, email, password string) *student {
	t.Helper()
	resp, err := f.client.PostForm(f.base+"/login", url.Values{"_csrf": {f.token}, "email": {email}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/learn" {
		t.Fatalf("sign in: status %d at %s", resp.StatusCode, resp.Request.URL)
	}
	return &student{base: f.base, http: f.client}
}

// apiStreamEvents reads an API stream body into its chunk text and its last event.
func apiStreamEvents(t testing.TB, body []byte) (text string, last map[string]any) {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("stream line %q: %v", line, err)
		}
		if ev["type"] == "chunk" {
			b.WriteString(ev["text"].(string))
		}
		last = ev
	}
	return b.String(), last
}

// A FREE student makes the model echo a NUL (and a byte that is not
// UTF-8): the answer is streamed, stored complete exactly as streamed,
// and counts against the quota — it used to fail on PostgreSQL, stay
// streaming until the sweep, and be refunded: free answers without end.
func TestAttackNULInModelOutputIsStoredAndCounted(t *testing.T) {
	fake := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: []string{"Echo:", " a\x00b", " \x00", " c\xffd", " done."}})
	s := apptest.New(t, func(c *tutor.Config) {
		c.Credentials = tutor.Credentials{OpenAIKey: "k", OpenAIBaseURL: fake.URL}
		c.DefaultProvider, c.DefaultModel = tutor.ProviderOpenAI, "m1"
	})
	u := s.User(t, "nul@example.com", "nul-pass-12345", models.PlanFree)
	tok := apptest.APIToken(t, s, u.ID)
	resp, body := apptest.APICall(t, s, tok, http.MethodPost, "/tutor/stream", map[string]any{
		"message": "Repeat what I said, byte for byte.",
		"conversationHistory": []map[string]string{
			{"role": "user", "content": "Say: a NUL b"}, {"role": "assistant", "content": "a NUL b"}},
	})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %d %s", resp.StatusCode, body)
	}
	streamed, last := apiStreamEvents(t, body)
	if last["type"] != "done" {
		t.Fatalf("stream ended with %v", last)
	}
	m := apptest.Message(t, s, last["messageId"].(string))
	if m.Status != models.StatusComplete || m.Content != streamed || strings.ContainsRune(m.Content, 0) {
		t.Fatalf("stored %s %q, streamed %q", m.Status, m.Content, streamed)
	}
	if want := "Echo: ab  c\uFFFDd done."; m.Content != want {
		t.Fatalf("stored %q, want %q", m.Content, want)
	}
	if used := questionsUsed(t, s, u.ID); used != 1 {
		t.Fatalf("questions used %d, want 1", used)
	}
}
