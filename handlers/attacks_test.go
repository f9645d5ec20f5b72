package handlers_test

// Attacks. Covered elsewhere and not repeated here: another user's ids on
// every route (authz_test.go), missing and wrong CSRF tokens, session
// fixation, a stolen cookie after logout, open redirects through next and
// brute-force sign-in (auth_test.go), path traversal in static files
// (errors_test.go). This file adds XSS everywhere a student or a provider
// writes text, oversized bodies, slow uploads, reused CSRF tokens and
// model output PostgreSQL cannot store.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"aula/handlers"
	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// xss is one payload with every trick at once; "XSS" marks it.
const xss = `<script>alert("XSS")</script><img src=x onerror=alert("XSS")> "><svg/onload=alert("XSS")> ` +
	`[click](javascript:alert("XSS")) <a href="javascript:alert('XSS')">x</a> ` +
	`<div hx-get="/xss-hx-probe" hx-trigger="load">XSS</div><iframe src="javascript:alert('XSS')"></iframe>`

// xssAnswer is a provider's answer in Markdown with raw HTML and hostile links.
const xssAnswer = "Here is **bold** and `code`.\n\n" +
	"<script>alert(\"XSS\")</script>\n\n<img src=x onerror=alert(\"XSS\")>\n\n" +
	"[click me](javascript:alert(\"XSS\")) and ![pic](javascript:alert(\"XSS\"))\n\n" +
	"<a href=\"javascript:alert('XSS')\">raw link</a>\n\n<div hx-get=\"/xss-hx-probe\" hx-trigger=\"load\">XSS div</div>\n\n" +
	"<iframe src=\"javascript:alert('XSS')\"></iframe><svg onload=alert(\"XSS\")></svg>\n\n" +
	"<p style=\"background:url(javascript:alert('XSS'))\" onclick=\"alert('XSS')\">styled</p>\n"

// assertInert fails when the HTML, parsed the way a browser parses it,
// holds anything that runs script: a script that is not aula's own, an
// event handler, a javascript: URL, an embedded frame, or an HTMX or SSE
// attribute the payload brought in.
func assertInert(t *testing.T, where, doc string, fragment bool) {
	t.Helper()
	for _, p := range activeContent(doc, fragment) {
		t.Errorf("%s: %s", where, p)
	}
}

// activeContent lists what in doc would run script.
func activeContent(doc string, fragment bool) []string {
	var problems []string
	var nodes []*html.Node
	var err error
	if fragment {
		nodes, err = html.ParseFragment(strings.NewReader(doc), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	} else {
		var n *html.Node
		n, err = html.Parse(strings.NewReader(doc))
		nodes = []*html.Node{n}
	}
	if err != nil {
		return []string{"parse: " + err.Error()}
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script":
				src := ""
				for _, a := range n.Attr {
					if a.Key == "src" {
						src = a.Val
					}
				}
				if !strings.HasPrefix(src, "/static/") {
					problems = append(problems, "a script that is not aula's: "+render(n))
				}
			case "iframe", "object", "embed", "base", "frame":
				problems = append(problems, fmt.Sprintf("<%s> came through: %s", n.Data, render(n)))
			}
			for _, a := range n.Attr {
				key, val := strings.ToLower(a.Key), strings.ToLower(strings.TrimSpace(a.Val))
				switch {
				case strings.HasPrefix(key, "on") || strings.HasPrefix(key, "hx-on"):
					problems = append(problems, fmt.Sprintf("event handler %s=%q on <%s>", a.Key, a.Val, n.Data))
				case (strings.HasPrefix(key, "hx-") || strings.HasPrefix(key, "sse-")) && strings.Contains(val, "xss"):
					problems = append(problems, fmt.Sprintf("injected HTMX attribute %s=%q", a.Key, a.Val))
				case strings.Contains(val, "javascript:") && (key == "href" || key == "src" || key == "action" ||
					key == "formaction" || key == "style" || key == "srcdoc" || strings.HasSuffix(key, "href")):
					problems = append(problems, fmt.Sprintf("javascript: URL in %s=%q", a.Key, a.Val))
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return problems
}

// The inertness check itself catches each trick the payloads use.
func TestActiveContentCatchesEachTrick(t *testing.T) {
	for _, bad := range []string{`<script>alert(1)</script>`, `<img src=x onerror=alert(1)>`, `<svg/onload=alert(1)>`,
		`<a href=" JavaScript:alert(1)">x</a>`, `<div hx-get="/xss-hx-probe" hx-trigger="load">x</div>`,
		`<div hx-on:click="alert(1)">x</div>`, `<iframe src="/x"></iframe>`, `<p style="background:url(javascript:x)">x</p>`} {
		if len(activeContent(bad, true)) == 0 {
			t.Errorf("%s passes as inert", bad)
		}
	}
	if p := activeContent(`<p>&lt;script&gt; <a href="/learn">ok</a> <script src="/static/vendor/htmx.min.js"></script></p>`, true); len(p) != 0 {
		t.Errorf("harmless HTML flagged: %v", p)
	}
}

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func render(n *html.Node) string {
	var b bytes.Buffer
	_ = html.Render(&b, n)
	return b.String()
}

// assertPlainText fails when a chunk event's data would become an element
// once htmx swaps it in.
func assertPlainText(t *testing.T, where, data string) {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(data), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Type != html.TextNode {
			t.Fatalf("%s: chunk %q makes a <%s> element", where, data, n.Data)
		}
	}
}

// XSS payloads in a question, a thread title, an attachment's name, a
// rating comment and the provider's own answer render inert on the chat
// screen, in the lesson panel and in the SSE events, while the student
// still sees what was typed.
func TestAttackXSSRendersInert(t *testing.T) {
	p := &apptest.Scripted{Answer: func(_ context.Context, _ int, _ tutor.Request, emit func(string) error) error {
		for rest := xssAnswer; rest != ""; {
			n := min(7, len(rest)) // small tokens: tags split across chunks
			if err := emit(rest[:n]); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	}}
	s := apptest.New(t, apptest.WithProvider(p))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	st := signInStudent(t, s.URL, "ana@example.com", "a-long-password-1", nil)
	c := st.web
	ctx := context.Background()

	// A question (which also becomes the thread's title), streamed.
	cid := apptest.NewThread(t, c)
	mid, status, err := st.ask(ctx, cid, xss)
	if err != nil || status != http.StatusOK {
		t.Fatalf("ask: %d %v", status, err)
	}
	var text strings.Builder
	final, err := st.stream(ctx, mid, func(ev webtest.SSEEvent, _ time.Time) bool {
		if ev.Type == "chunk" {
			assertPlainText(t, "chunk event", ev.Data)
			text.WriteString(html.UnescapeString(ev.Data))
		}
		return true
	})
	if err != nil || final.Type != "done" || text.String() != xssAnswer {
		t.Fatalf("stream: %q %v; text %q", final.Type, err, text.String())
	}
	assertInert(t, "done event", final.Data, true)
	if !strings.Contains(final.Data, "<strong>bold</strong>") {
		t.Errorf("the answer's harmless Markdown is lost: %.300s", final.Data)
	}

	// An attachment whose name is the payload.
	name := `"><img src=x onerror=alert("XSS")>.txt`
	up := apptest.PostMultipart(t, c, "/chat/"+cid+"/messages", map[string]string{"content": "See my notes", "_csrf": st.csrf},
		name, []byte("notes about VLANs"), true)
	if up.Status != http.StatusOK {
		t.Fatalf("ask with a file: %d %.300s", up.Status, up.Body)
	}
	assertInert(t, "ask fragment with a file", up.Body, true)

	// A rating comment.
	if status, body, err := st.do(ctx, http.MethodPost, "/messages/"+mid+"/rate",
		url.Values{"rating": {"down"}, "reason": {"other"}, "comment": {xss}}, true); err != nil || status != http.StatusOK {
		t.Fatalf("rate: %d %v %.300s", status, err, body)
	}
	// Let the second answer finish before looking at the page.
	for _, m := range apptest.ThreadMessages(t, s, cid) {
		if m.Role == models.RoleAssistant {
			if _, err := s.Tutor.Streams().Wait(ctx, m.UserID, m.ID); err != nil {
				t.Fatal(err)
			}
		}
	}

	page := c.Get("/chat/" + cid)
	assertInert(t, "chat screen", page.Body, false)
	if got := page.Doc.Find("#m-" + apptest.ThreadMessages(t, s, cid)[0].ID + " .msg-body").Text(); strings.TrimSpace(got) != strings.TrimSpace(xss) {
		t.Errorf("the question shows as %q, want the text typed", got)
	}
	if got := page.Doc.Find("#c-" + cid).Text(); !strings.Contains(got, `<script>alert("XSS")`) {
		t.Errorf("the thread title shows as %q, want the typed text as text", strings.TrimSpace(got))
	}
	if got := page.Doc.Find("#comment-" + mid).Text(); got != xss {
		t.Errorf("the rating comment shows as %q", got)
	}
	if got := page.Doc.Find(".attachment a").Text(); !strings.Contains(got, "onerror") {
		t.Errorf("the attachment's name shows as %q", got)
	}
	// The replayed stream of a finished answer.
	replay := apptest.OpenSSE(t, c, mid, "", "")
	if _, end := replay.Rest(t); end.Name == "done" {
		assertInert(t, "replayed done event", end.Data, true)
	}

	// The lesson panel: a question asked from the lesson page, without JavaScript.
	const lesson = "/learn/networking/vlan-basics"
	panel := c.Submit(c.Get(lesson+"?tutor=open"), `#tutor form[action="/chat"]`, map[string]string{"content": xss})
	if panel.Status != http.StatusOK || panel.URL.Path != lesson {
		t.Fatalf("ask in the panel: %d at %s", panel.Status, panel.URL)
	}
	assertInert(t, "lesson panel", panel.Body, false)
	pmid := strings.TrimPrefix(panel.URL.Fragment, "m-")
	if panel.Doc.Find("#m-"+pmid).AttrOr("data-status", "") != models.StatusComplete {
		t.Fatalf("panel answer %q not shown complete:\n%.500s", pmid, panel.Doc.Find("#tutor").Text())
	}
	pr := apptest.OpenSSE(t, c, pmid, "", "?panel=1")
	if _, end := pr.Rest(t); end.Name != "done" {
		t.Fatalf("panel replay ended %q", end.Name)
	} else {
		assertInert(t, "panel done event", end.Data, true)
	}
}

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
