package handlers_test

import (
	"bufio"
	"context"
	"errors"
	"html"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// sseEvent is one event of a text/event-stream.
type sseEvent struct{ name, id, data string }

// sseConn is an SSE response read event by event.
type sseConn struct {
	resp   *http.Response
	r      *bufio.Reader
	cancel context.CancelFunc
}

// openSSE opens GET /messages/{mid}/stream as c, with a Last-Event-ID when lastID is set.
func openSSE(t testing.TB, c *webtest.Client, mid, lastID, query string) *sseConn {
	t.Helper()
	// The bound only keeps a broken test from hanging; nothing is timed.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.Base+"/messages/"+mid+"/stream"+query, nil)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("open stream: %v", err)
	}
	conn := &sseConn{resp: resp, r: bufio.NewReader(resp.Body), cancel: cancel}
	t.Cleanup(conn.close)
	return conn
}

func (s *sseConn) close() {
	s.cancel()
	s.resp.Body.Close()
}

// next reads the next event (a `retry:`-only block is skipped); io.EOF at the end.
func (s *sseConn) next() (sseEvent, error) {
	var ev sseEvent
	var data []string
	seen := false
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			if err == io.EOF && seen {
				return ev, io.ErrUnexpectedEOF
			}
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			if !seen {
				continue
			}
			ev.data = strings.Join(data, "\n")
			return ev, nil
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.name, seen = value, true
		case "id":
			ev.id, seen = value, true
		case "data":
			data, seen = append(data, value), true
		}
	}
}

// must reads the next event and checks its name.
func (s *sseConn) must(t testing.TB, name string) sseEvent {
	t.Helper()
	ev, err := s.next()
	if err != nil {
		t.Fatalf("waiting for %q: %v", name, err)
	}
	if ev.name != name {
		t.Fatalf("event %q (id %q data %.200q), want %q", ev.name, ev.id, ev.data, name)
	}
	return ev
}

// rest reads chunks up to the end event and returns the text and that event.
func (s *sseConn) rest(t testing.TB) (string, sseEvent) {
	t.Helper()
	var b strings.Builder
	for {
		ev, err := s.next()
		if err != nil {
			t.Fatalf("stream ended without done: %v (text so far %q)", err, b.String())
		}
		switch ev.name {
		case "chunk":
			b.WriteString(html.UnescapeString(ev.data))
		case "slow":
		default:
			return b.String(), ev
		}
	}
}

// stepper is a provider that emits one token each time the test says so.
type stepper struct {
	tokens []string
	step   chan struct{}
	fail   error
}

func (p *stepper) answer(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
	for _, tok := range p.tokens {
		select {
		case <-p.step:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := emit(tok); err != nil {
			return err
		}
	}
	return p.fail
}

// The stream read raw: chunk events carry escaped text with the byte offset
// after it as id; Last-Event-ID resumes with exactly the rest; a finished
// answer replays whole, then done; the stream then closes.
func TestStreamEventsOffsetsAndResume(t *testing.T) {
	tokens := []string{"Hello", " wörld <b>&</b>", "\nsecond line", " 🚀 end."}
	st := &stepper{tokens: tokens, step: make(chan struct{})}
	s := newServer(t, withProvider(&scripted{answer: st.answer}))
	u := s.user(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.signIn(t, "ana@example.com", "a-long-password-1")
	cid := newThread(t, c)
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "Say hello"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	full := strings.Join(tokens, "")

	live := openSSE(t, c, mid, "", "")
	if ct := live.resp.Header.Get("Content-Type"); live.resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("status %d, content type %q", live.resp.StatusCode, ct)
	}
	offset := 0
	var ids []string
	for i := range 2 {
		st.step <- struct{}{}
		ev := live.must(t, "chunk")
		if got := html.UnescapeString(ev.data); got != tokens[i] {
			t.Fatalf("chunk %d is %q, want %q", i, got, tokens[i])
		}
		if ev.data != html.EscapeString(tokens[i]) {
			t.Errorf("chunk %d data %q is not escaped", i, ev.data)
		}
		offset += len(tokens[i])
		if ev.id != strconv.Itoa(offset) {
			t.Fatalf("chunk %d id %q, want the byte offset %d", i, ev.id, offset)
		}
		ids = append(ids, ev.id)
	}

	// A second subscriber resumes from the last id it saw, the way EventSource reconnects.
	resumed := openSSE(t, c, mid, ids[0], "")
	ev := resumed.must(t, "chunk")
	if got := html.UnescapeString(ev.data); got != tokens[1] || ev.id != ids[1] {
		t.Fatalf("resume from %s gave %q (id %s), want %q (id %s)", ids[0], got, ev.id, tokens[1], ids[1])
	}
	// ?offset= (the page's initial text) works the same; Last-Event-ID wins over it.
	both := openSSE(t, c, mid, ids[1], "?offset=0")

	for i := 2; i < len(tokens); i++ {
		st.step <- struct{}{}
		ev := live.must(t, "chunk")
		offset += len(tokens[i])
		if html.UnescapeString(ev.data) != tokens[i] || ev.id != strconv.Itoa(offset) {
			t.Fatalf("chunk %d: %q id %s, want %q id %d", i, ev.data, ev.id, tokens[i], offset)
		}
	}
	done := live.must(t, "done")
	if !strings.Contains(done.data, `id="m-`+mid+`"`) || !strings.Contains(done.data, `data-status="complete"`) {
		t.Errorf("done does not carry the finished bubble: %.300s", done.data)
	}
	if !strings.Contains(done.data, `hx-swap-oob`) || !strings.Contains(done.data, "aria-live") {
		t.Errorf("done does not announce the answer: %.300s", done.data)
	}
	if _, err := live.next(); err != io.EOF {
		t.Errorf("the stream goes on after done: %v", err)
	}
	stored := message(t, s, mid)
	if stored.Content != full || stored.Status != models.StatusComplete {
		t.Fatalf("stored %q (%s), want %q", stored.Content, stored.Status, full)
	}
	if text, end := resumed.rest(t); ids[1] != strconv.Itoa(len(tokens[0])+len(tokens[1])) || tokens[0]+tokens[1]+text != full || end.name != "done" {
		t.Errorf("resumed subscriber got %q then %q, want the rest of %q", text, end.name, full)
	}
	if text, _ := both.rest(t); tokens[0]+tokens[1]+text != full {
		t.Errorf("Last-Event-ID %s with ?offset=0 gave %q, want exactly the rest", ids[1], text)
	}

	// A finished answer replays whole, then done; resumed, it gives exactly the rest.
	replay := openSSE(t, c, mid, "", "")
	text, end := replay.rest(t)
	if text != full || end.name != "done" {
		t.Errorf("replay gave %q then %q, want %q then done", text, end.name, full)
	}
	tail := openSSE(t, c, mid, ids[1], "")
	text, end = tail.rest(t)
	if tokens[0]+tokens[1]+text != full || end.name != "done" {
		t.Errorf("replay from %s gave %q", ids[1], text)
	}
	past := openSSE(t, c, mid, "100000", "")
	if text, end := past.rest(t); text != "" || end.name != "done" {
		t.Errorf("replay past the end gave %q then %q", text, end.name)
	}
}

// Someone else's message, a question's id and unknown ids are 404; an
// offset that is not a byte offset is 400.
func TestStreamRefusals(t *testing.T) {
	s := newServer(t)
	s.user(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	s.user(t, "bob@example.com", "a-long-password-2", models.PlanPro)
	ca := s.signIn(t, "ana@example.com", "a-long-password-1")
	cb := s.signIn(t, "bob@example.com", "a-long-password-2")
	cid := newThread(t, ca)
	_, mid := askPlain(t, ca, cid, "What is a goroutine?")
	qid := threadMessages(t, s, cid)[0].ID
	for _, tc := range []struct {
		name       string
		c          *webtest.Client
		mid, last  string
		query      string
		wantStatus int
	}{
		{"someone else's", cb, mid, "", "", http.StatusNotFound},
		{"someone else's, resumed", cb, mid, "3", "", http.StatusNotFound},
		{"a question", ca, qid, "", "", http.StatusNotFound},
		{"unknown", ca, "6a0f3a52-1f7e-4a63-9d4d-7b1e44b1b7c1", "", "", http.StatusNotFound},
		{"malformed id", ca, "abc", "", "", http.StatusNotFound},
		{"garbage Last-Event-ID", ca, mid, "abc", "", http.StatusBadRequest},
		{"negative Last-Event-ID", ca, mid, "-5", "", http.StatusBadRequest},
		{"garbage offset", ca, mid, "", "?offset=x1", http.StatusBadRequest},
		{"negative offset", ca, mid, "", "?offset=-1", http.StatusBadRequest},
		{"own", ca, mid, "", "", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := openSSE(t, tc.c, tc.mid, tc.last, tc.query)
			if conn.resp.StatusCode != tc.wantStatus {
				t.Errorf("status %d, want %d", conn.resp.StatusCode, tc.wantStatus)
			}
			if tc.wantStatus != http.StatusOK {
				b, _ := io.ReadAll(conn.r)
				if strings.Contains(string(b), "event:") {
					t.Errorf("a refused stream sent events: %.200s", b)
				}
			}
		})
	}
}

// A client that goes away mid-answer does not stop the generation: the
// answer completes and is stored whole.
func TestStreamDisconnectDoesNotStopTheAnswer(t *testing.T) {
	tokens := []string{"One, ", "two, ", "three."}
	st := &stepper{tokens: tokens, step: make(chan struct{}, len(tokens))}
	s := newServer(t, withProvider(&scripted{answer: st.answer}))
	u := s.user(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.signIn(t, "ana@example.com", "a-long-password-1")
	cid := newThread(t, c)
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "Count"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	conn := openSSE(t, c, mid, "", "")
	st.step <- struct{}{}
	conn.must(t, "chunk")
	conn.close()
	st.step <- struct{}{}
	st.step <- struct{}{}
	m, err := s.Tutor.Wait(context.Background(), u.ID, mid)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != models.StatusComplete || m.Content != strings.Join(tokens, "") {
		t.Fatalf("after the client left: %s %q", m.Status, m.Content)
	}
	if got := message(t, s, mid).Content; got != strings.Join(tokens, "") {
		t.Fatalf("stored %q", got)
	}
}

// No token for SlowAfter: `slow` with the notice; the next token clears
// it. A provider failure ends with `error` carrying the Retry form.
func TestStreamSlowNoticeAndError(t *testing.T) {
	st := &stepper{tokens: []string{"Finally."}, step: make(chan struct{}), fail: errors.New("upstream broke")}
	s := newServer(t, withProvider(&scripted{answer: st.answer}))
	s.App.SlowAfter = 20 * time.Millisecond
	u := s.user(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.signIn(t, "ana@example.com", "a-long-password-1")
	cid := newThread(t, c)
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "Slowly"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	conn := openSSE(t, c, mid, "", "")
	if ev := conn.must(t, "slow"); ev.data != "⏳ This is taking longer than usual…" {
		t.Errorf("slow notice %q", ev.data)
	}
	st.step <- struct{}{}
	if ev := conn.must(t, "chunk"); ev.data != "Finally." {
		t.Errorf("chunk %q", ev.data)
	}
	if ev := conn.must(t, "slow"); ev.data != "" {
		t.Errorf("the token does not clear the notice: %q", ev.data)
	}
	_, end := conn.rest(t)
	if end.name != "error" || !strings.Contains(end.data, `/messages/`+mid+`/retry`) || !strings.Contains(end.data, `data-status="failed"`) {
		t.Fatalf("end %q: %.300s", end.name, end.data)
	}
	if m := message(t, s, mid); m.Status != models.StatusFailed || m.Content != "" {
		t.Errorf("stored %s %q, want failed with nothing kept", m.Status, m.Content)
	}
	if n := count(t, s, `SELECT coalesce(sum(questions), 0) FROM plan_usage WHERE user_id = ?`, u.ID); n != 0 {
		t.Errorf("the failed question still counts: %d", n)
	}
}
