package web_test

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// nextTicket is the ticket of the thread page's next answer.
var nextTicket = regexp.MustCompile(`data-ticket="([0-9a-f]{32})" data-stream="(/answers/next/[0-9a-f]{32}/stream[^"]*)"`)

// nextAnswer reads the ticket and the stream of a page's next answer.
func nextAnswer(t *testing.T, body string) (ticket, path string) {
	t.Helper()
	m := nextTicket.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no next answer on the page:\n%s", body)
	}
	return m[1], strings.ReplaceAll(m[2], "&amp;", "&")
}

// askNext posts the HTMX ask with a next-answer ticket and returns its
// status, headers and body.
func askNext(t *testing.T, c *webtest.Client, csrf, cid, question, ticket string) (int, http.Header, string) {
	t.Helper()
	form := url.Values{"content": {question}, "next": {ticket}}
	req, _ := http.NewRequest(http.MethodPost, c.Base+"/chat/"+cid+"/messages", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", csrf)
	res, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// awaiting waits until n readers wait for a next answer in s's process.
func awaiting(t *testing.T, s *apptest.Server, n int) {
	t.Helper()
	for i := 0; s.App.Streams.Awaiting() != n; i++ {
		if i > 1000 {
			t.Fatalf("%d readers await a next answer, want %d", s.App.Streams.Awaiting(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A page's next-answer stream, opened before the question, carries the
// answer: the ask returns only the question's bubble and a new ticket,
// the open stream names the answer, then streams it to the end, and the
// ask and the stream run no more statements than the two requests did.
func TestNextAnswerStreamCarriesTheAnswer(t *testing.T) {
	st := &stepper{tokens: []string{"Hello", " there."}, step: make(chan struct{})}
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	page := c.Get("/chat/" + cid)
	ticket, path := nextAnswer(t, page.Body)
	base, n := countedDoor(t, s)
	c.Base = base

	live := apptest.OpenSSEAt(t, c, path, "")
	awaiting(t, s, 1)
	n.Store(0)
	status, h, body := askNext(t, c, page.CSRF(), cid, "How do trunk ports work?", ticket)
	if status != http.StatusOK || h.Get("Aula-Next-Answer") != ticket {
		t.Fatalf("ask: %d, handed %q, want 200 handed %q", status, h.Get("Aula-Next-Answer"), ticket)
	}
	if ask := n.Load(); ask != 2 {
		t.Errorf("the ask ran %d statements, want 2 (as without a next-answer stream)", ask)
	}
	mid := h.Get("Aula-Next-Id")
	if strings.Contains(body, "/messages/"+mid+"/stream") || strings.Contains(body, `id="m-`+mid+`"`) {
		t.Errorf("the ask's answer draws the answer's bubble too:\n%s", body)
	}
	if t2, _ := nextAnswer(t, body); t2 == ticket || !strings.Contains(body, `id="next-answer" hx-swap-oob="true"`) {
		t.Errorf("the ask's answer brings no new next answer (ticket %s, was %s)", t2, ticket)
	}
	if want := "/messages/" + mid + "/cancel"; h.Get("Aula-Next-Stop") != want {
		t.Errorf("Stop posts to %q, want %q", h.Get("Aula-Next-Stop"), want)
	}
	n.Store(0)
	if ev := live.Must(t, "answer"); ev.Data != mid || ev.ID != mid+".0" {
		t.Fatalf("the stream names answer %q (id %q), want %q", ev.Data, ev.ID, mid)
	}
	st.step <- struct{}{}
	if ev := live.Must(t, "chunk"); ev.Data != "Hello" || ev.ID != mid+".5" {
		t.Errorf("first chunk %q id %q, want Hello id %s.5", ev.Data, ev.ID, mid)
	}
	if got := n.Load(); got != 0 {
		t.Errorf("the stream ran %d statements before its first chunk, want 0 (the session was read when it opened)", got)
	}
	st.step <- struct{}{}
	if text, end := restOf(t, live); text != " there." || end.Name != "done" || !strings.Contains(end.Data, `id="m-`+mid+`"`) {
		t.Errorf("the stream went on with %q and ended with %q: %.300s", text, end.Name, end.Data)
	}
	if m := apptest.Message(t, s, mid); m.Status != models.StatusComplete || m.Content != "Hello there." {
		t.Errorf("stored %s %q", m.Status, m.Content)
	}
	// A reconnect names the answer: it resumes it, not another wait.
	again := apptest.OpenSSEAt(t, c, path, mid+".5")
	if text, end := restOf(t, again); text != " there." || end.Name != "done" {
		t.Errorf("resumed from byte 5: %q then %q, want \" there.\" then done", text, end.Name)
	}
}

// A ticket reaches only its own user's stream: another's ask naming it
// draws its own bubble, the stream waits on, and a reconnect naming
// someone else's answer gets nothing of it.
func TestNextAnswerTicketIsTheUsersOwn(t *testing.T) {
	s := apptest.New(t, fastTutor)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	s.User(t, "eve@example.com", "a-long-password-1", models.PlanPro)
	ana := s.SignIn(t, "ana@example.com", "a-long-password-1")
	eve := s.SignIn(t, "eve@example.com", "a-long-password-1")
	anaThread, eveThread := apptest.NewThread(t, ana), apptest.NewThread(t, eve)
	page := ana.Get("/chat/" + anaThread)
	ticket, path := nextAnswer(t, page.Body)
	apptest.OpenSSEAt(t, ana, path, "")
	awaiting(t, s, 1)

	status, h, body := askNext(t, eve, eve.Get("/chat/"+eveThread).CSRF(), eveThread, "What is a VLAN?", ticket)
	if status != http.StatusOK || h.Get("Aula-Next-Answer") != "" || !strings.Contains(body, "/stream?offset=0") {
		t.Fatalf("eve's ask with ana's ticket: %d, handed %q; want her own bubble:\n%s", status, h.Get("Aula-Next-Answer"), body)
	}
	if got := s.App.Streams.Awaiting(); got != 1 {
		t.Errorf("%d readers await after eve's ask, want ana's 1", got)
	}
	eveAnswer := streamURL.FindStringSubmatch(body)[1]
	// Ana's page reconnecting with eve's answer as its last event.
	theft := apptest.OpenSSEAt(t, ana, path, eveAnswer+".0")
	if ev := theft.Must(t, "done"); ev.Data != "" {
		t.Errorf("a reconnect naming eve's answer got %q", ev.Data)
	}
}

// Tickets that are not ours are refused; an ask whose ticket is junk
// (NUL, invalid UTF-8, too long) is asked as without one.
func TestNextAnswerBadTickets(t *testing.T) {
	s := apptest.New(t, fastTutor)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	for _, bad := range []string{"nope", strings.Repeat("a", 33), "ABCDEF0123456789ABCDEF0123456789", "%00", "%ff"} {
		if res := c.Get("/answers/next/" + bad + "/stream"); res.Status != http.StatusNotFound && res.Status != http.StatusBadRequest {
			t.Errorf("stream of ticket %q: %d, want 404 (or 400 for bytes refused at the door)", bad, res.Status)
		}
	}
	csrf := c.Get("/chat/" + cid).CSRF()
	for _, bad := range []string{"\x00", "\xff\xfe", strings.Repeat("f", 40)} {
		status, h, body := askNext(t, c, csrf, cid, "What is a VLAN?", bad)
		if status != http.StatusOK && status != http.StatusBadRequest {
			t.Errorf("ask with ticket %q: %d, want 200 (asked without it) or 400 (refused at the door)", bad, status)
		}
		if status == http.StatusOK && (h.Get("Aula-Next-Answer") != "" || !strings.Contains(body, "/stream?offset=0")) {
			t.Errorf("ask with ticket %q was handed or drew no bubble", bad)
		}
	}
}

// restOf reads a stream to its end, as Rest does, past the drafts (md).
func restOf(t *testing.T, sse *apptest.SSEConn) (string, apptest.SSEEvent) {
	t.Helper()
	var b strings.Builder
	for {
		text, ev := sse.Rest(t)
		b.WriteString(text)
		if ev.Name != "md" {
			return b.String(), ev
		}
	}
}

// In a crowd of open streams the tokens after the first share writes
// (coalesce): the text, its byte offsets and the end arrive all the same.
func TestStreamInACrowdLosesNothing(t *testing.T) {
	st := &stepper{tokens: []string{"One", " two", " three", " four", " five."}, step: make(chan struct{}, 5)}
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
	for range 150 { // as many streams open as a class holds
		s.App.Metrics.StreamOpened()
	}
	t.Cleanup(func() {
		for range 150 {
			s.App.Metrics.StreamClosed()
		}
	})
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	status, body, err := htmxAsk(c, c.Get("/chat/"+cid).CSRF(), cid, "Count to five")
	if err != nil || status != http.StatusOK {
		t.Fatalf("ask: %d %v", status, err)
	}
	mid := streamURL.FindStringSubmatch(body)[1]
	live := apptest.OpenSSE(t, c, mid, "", "")
	for range 5 {
		st.step <- struct{}{}
	}
	var text strings.Builder
	last := ""
	for {
		ev, err := live.Next()
		if err != nil {
			t.Fatalf("stream: %v after %q", err, text.String())
		}
		if ev.Name == "chunk" {
			text.WriteString(ev.Data)
			last = ev.ID
			continue
		}
		if ev.Name != "done" {
			continue
		}
		break
	}
	if text.String() != "One two three four five." || last != "24" {
		t.Errorf("the crowd's stream carried %q ending at byte %s, want the whole answer ending at 24", text.String(), last)
	}
}
