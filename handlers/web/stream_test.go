package web_test

import (
	"context"
	"errors"
	"html"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

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
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "Say hello"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	full := strings.Join(tokens, "")

	live := apptest.OpenSSE(t, c, mid, "", "")
	if ct := live.Resp.Header.Get("Content-Type"); live.Resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("status %d, content type %q", live.Resp.StatusCode, ct)
	}
	offset := 0
	var ids []string
	for i := range 2 {
		st.step <- struct{}{}
		ev := live.Must(t, "chunk")
		if got := html.UnescapeString(ev.Data); got != tokens[i] {
			t.Fatalf("chunk %d is %q, want %q", i, got, tokens[i])
		}
		if ev.Data != html.EscapeString(tokens[i]) {
			t.Errorf("chunk %d data %q is not escaped", i, ev.Data)
		}
		offset += len(tokens[i])
		if ev.ID != strconv.Itoa(offset) {
			t.Fatalf("chunk %d id %q, want the byte offset %d", i, ev.ID, offset)
		}
		ids = append(ids, ev.ID)
	}

	// A second subscriber resumes from the last id it saw, the way EventSource reconnects.
	resumed := apptest.OpenSSE(t, c, mid, ids[0], "")
	ev := resumed.Must(t, "chunk")
	if got := html.UnescapeString(ev.Data); got != tokens[1] || ev.ID != ids[1] {
		t.Fatalf("resume from %s gave %q (id %s), want %q (id %s)", ids[0], got, ev.ID, tokens[1], ids[1])
	}
	// ?offset= (the page's initial text) works the same; Last-Event-ID wins over it.
	both := apptest.OpenSSE(t, c, mid, ids[1], "?offset=0")

	for i := 2; i < len(tokens); i++ {
		st.step <- struct{}{}
		ev := live.Must(t, "chunk")
		offset += len(tokens[i])
		if html.UnescapeString(ev.Data) != tokens[i] || ev.ID != strconv.Itoa(offset) {
			t.Fatalf("chunk %d: %q id %s, want %q id %d", i, ev.Data, ev.ID, tokens[i], offset)
		}
	}
	done := live.Must(t, "done")
	if !strings.Contains(done.Data, `id="m-`+mid+`"`) || !strings.Contains(done.Data, `data-status="complete"`) {
		t.Errorf("done does not carry the finished bubble: %.300s", done.Data)
	}
	if !strings.Contains(done.Data, `hx-swap-oob`) || !strings.Contains(done.Data, "aria-live") {
		t.Errorf("done does not announce the answer: %.300s", done.Data)
	}
	if _, err := live.Next(); err != io.EOF {
		t.Errorf("the stream goes on after done: %v", err)
	}
	stored := apptest.Message(t, s, mid)
	if stored.Content != full || stored.Status != models.StatusComplete {
		t.Fatalf("stored %q (%s), want %q", stored.Content, stored.Status, full)
	}
	if text, end := resumed.Rest(t); ids[1] != strconv.Itoa(len(tokens[0])+len(tokens[1])) || tokens[0]+tokens[1]+text != full || end.Name != "done" {
		t.Errorf("resumed subscriber got %q then %q, want the rest of %q", text, end.Name, full)
	}
	if text, _ := both.Rest(t); tokens[0]+tokens[1]+text != full {
		t.Errorf("Last-Event-ID %s with ?offset=0 gave %q, want exactly the rest", ids[1], text)
	}

	// A finished answer replays whole, then done; resumed, it gives exactly the rest.
	replay := apptest.OpenSSE(t, c, mid, "", "")
	text, end := replay.Rest(t)
	if text != full || end.Name != "done" {
		t.Errorf("replay gave %q then %q, want %q then done", text, end.Name, full)
	}
	tail := apptest.OpenSSE(t, c, mid, ids[1], "")
	text, end = tail.Rest(t)
	if tokens[0]+tokens[1]+text != full || end.Name != "done" {
		t.Errorf("replay from %s gave %q", ids[1], text)
	}
	past := apptest.OpenSSE(t, c, mid, "100000", "")
	if text, end := past.Rest(t); text != "" || end.Name != "done" {
		t.Errorf("replay past the end gave %q then %q", text, end.Name)
	}
}

// Someone else's message, a question's id and unknown ids are 404; an
// offset that is not a byte offset is 400.
func TestStreamRefusals(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	s.User(t, "bob@example.com", "a-long-password-2", models.PlanPro)
	ca := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cb := s.SignIn(t, "bob@example.com", "a-long-password-2")
	cid := apptest.NewThread(t, ca)
	_, mid := askPlain(t, ca, cid, "What is a goroutine?")
	qid := apptest.ThreadMessages(t, s, cid)[0].ID
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
			conn := apptest.OpenSSE(t, tc.c, tc.mid, tc.last, tc.query)
			if conn.Resp.StatusCode != tc.wantStatus {
				t.Errorf("status %d, want %d", conn.Resp.StatusCode, tc.wantStatus)
			}
			if tc.wantStatus != http.StatusOK {
				b, _ := io.ReadAll(conn.Resp.Body)
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
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "Count"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	conn := apptest.OpenSSE(t, c, mid, "", "")
	st.step <- struct{}{}
	conn.Must(t, "chunk")
	conn.Close()
	st.step <- struct{}{}
	st.step <- struct{}{}
	m, err := s.Tutor.Streams().Wait(context.Background(), u.ID, mid)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != models.StatusComplete || m.Content != strings.Join(tokens, "") {
		t.Fatalf("after the client left: %s %q", m.Status, m.Content)
	}
	if got := apptest.Message(t, s, mid).Content; got != strings.Join(tokens, "") {
		t.Fatalf("stored %q", got)
	}
}

// No token for SlowAfter: `slow` with the notice; the next token clears
// it. A provider failure ends with `error` carrying the Retry form.
func TestStreamSlowNoticeAndError(t *testing.T) {
	st := &stepper{tokens: []string{"Finally."}, step: make(chan struct{}), fail: errors.New("upstream broke")}
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
	s.App.SlowAfter = 20 * time.Millisecond
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "Slowly"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	conn := apptest.OpenSSE(t, c, mid, "", "")
	if ev := conn.Must(t, "slow"); ev.Data != "This is taking longer than usual…" {
		t.Errorf("slow notice %q", ev.Data)
	}
	st.step <- struct{}{}
	if ev := conn.Must(t, "chunk"); ev.Data != "Finally." {
		t.Errorf("chunk %q", ev.Data)
	}
	if ev := conn.Must(t, "slow"); ev.Data != "" {
		t.Errorf("the token does not clear the notice: %q", ev.Data)
	}
	_, end := conn.Rest(t)
	if end.Name != "error" || !strings.Contains(end.Data, `/messages/`+mid+`/retry`) || !strings.Contains(end.Data, `data-status="failed"`) {
		t.Fatalf("end %q: %.300s", end.Name, end.Data)
	}
	if m := apptest.Message(t, s, mid); m.Status != models.StatusFailed || m.Content != "" {
		t.Errorf("stored %s %q, want failed with nothing kept", m.Status, m.Content)
	}
	if n := apptest.Count(t, s, `SELECT coalesce(sum(questions), 0) FROM plan_usage WHERE user_id = ?`, u.ID); n != 0 {
		t.Errorf("the failed question still counts: %d", n)
	}
}
