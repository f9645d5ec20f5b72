package handlers_test

// Faults: the provider hangs or drops, the browser goes away, PostgreSQL
// restarts or stays away longer than the answers, the process gets
// SIGTERM — all mid-answer. Each test checks
// what the student sees and what the database holds afterwards.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/internal/pgtest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// upstream is a provider endpoint whose behaviour the test switches
// between questions (aula's credentials point at it for the whole test).
type upstream struct {
	URL string
	mu  sync.Mutex
	h   http.Handler
}

func newUpstream(t testing.TB) *upstream {
	t.Helper()
	u := &upstream{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		h := u.h
		u.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	u.URL = srv.URL
	return u
}

func (u *upstream) use(h http.Handler) { u.mu.Lock(); u.h = h; u.mu.Unlock() }

// proxyTo forwards to a fake provider, flushing every frame at once.
// The request is read whole first: forwarding it as it comes, the proxy
// reads aula's request body once more after its last byte (to see its
// end) and may do so after the fake, which had every byte, has answered
// and the proxy has written the answer's headers; Go's HTTP/1 server
// then refuses the read, the proxy drops the connection, and aula saw a
// broken stream the fake never sent (1 run in about 60 on a loaded
// machine).
func proxyTo(fake *fakellm.Server) http.Handler {
	target, _ := url.Parse(fake.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "proxy: read the request", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(w, r)
	})
}

// dropMidAnswer speaks OpenAI's stream for tokens, then, once seen is
// closed (the student has the text), closes the TCP connection without
// the end of the stream: a provider that dies mid-answer. Waiting keeps
// the drop from racing the student's stream: an answer that fails before
// its reader arrives shows only the error.
func dropMidAnswer(seen <-chan struct{}, tokens ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, tok := range tokens {
			frame, _ := json.Marshal(map[string]any{"id": "chatcmpl-drop", "object": "chat.completion.chunk", "created": 1700000000,
				"model": "gpt-4o-mini", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": tok}, "finish_reason": nil}}})
			fmt.Fprintf(w, "data: %s\n\n", frame)
		}
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		select {
		case <-seen:
		case <-r.Context().Done():
		}
		if conn, _, err := rc.Hijack(); err == nil {
			conn.Close()
		}
	})
}

// questionsUsed is the user's stored question count this month.
func questionsUsed(t testing.TB, s *apptest.Server, userID string) int64 {
	t.Helper()
	return apptest.Count(t, s, `SELECT coalesce(sum(questions), 0) FROM plan_usage WHERE user_id = ?`, userID)
}

// The provider fails mid-question — it hangs before its first token or
// drops the connection after a few — and the student sees the error with
// Retry, the answer is stored failed with nothing half-written, the
// question is refunded; Retry against a provider that works answers in place.
func TestFaultProviderFailsThenRetryWorks(t *testing.T) {
	cases := []struct {
		name     string
		failing  func(t *testing.T, seen <-chan struct{}) http.Handler
		code     string // the stored error code, "" for any
		chunksUp bool   // the student saw text before the failure
	}{
		{"hangs before the first token", func(t *testing.T, _ <-chan struct{}) http.Handler {
			return proxyTo(fakellm.Start(t, fakellm.OpenAI, fakellm.Options{HangBeforeFirst: true}))
		}, tutor.CodeFirstTokenTimeout, false},
		{"drops the connection mid-answer", func(t *testing.T, seen <-chan struct{}) http.Handler {
			return dropMidAnswer(seen, "A VLAN", " is a", " virtual")
		}, "", true},
		{"sends a broken stream", func(t *testing.T, _ <-chan struct{}) http.Handler {
			return proxyTo(fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Malformed: true}))
		}, tutor.CodeMalformedStream, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			good := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: []string{"A VLAN", " splits", " one switch."}})
			up := newUpstream(t)
			seen := make(chan struct{})
			var seenOnce sync.Once
			up.use(tc.failing(t, seen))
			// A short first-token limit ends the hanging provider quickly;
			// the others keep a long one, so a loaded machine's slow first
			// token is not mistaken for the failure the case is about.
			firstToken := 10 * time.Second
			if tc.code == tutor.CodeFirstTokenTimeout {
				firstToken = 300 * time.Millisecond
			}
			s := apptest.New(t, viaOpenAI(up.URL), func(c *tutor.Config) { c.FirstTokenTimeout = firstToken })
			u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
			st := signInStudent(t, s.URL, "ana@example.com", "a-long-password-1", nil)
			cid := apptest.NewThread(t, st.web)
			ctx := context.Background()

			mid, status, err := st.ask(ctx, cid, "What is a VLAN?")
			if err != nil || status != http.StatusOK {
				t.Fatalf("ask: %d %v", status, err)
			}
			var text strings.Builder
			final, err := st.stream(ctx, mid, func(ev webtest.SSEEvent, _ time.Time) bool {
				if ev.Type == "chunk" {
					text.WriteString(html.UnescapeString(ev.Data))
					seenOnce.Do(func() { close(seen) })
				}
				return true
			})
			if err != nil || final.Type != "error" {
				t.Fatalf("stream ended with %q (%v), want error", final.Type, err)
			}
			if !strings.Contains(final.Data, `data-status="failed"`) || !strings.Contains(final.Data, "/messages/"+mid+"/retry") {
				t.Errorf("error event lacks the failed bubble with Retry: %.400s", final.Data)
			}
			if tc.chunksUp != (text.Len() > 0) {
				t.Errorf("text seen before the failure: %q", text.String())
			}
			failedAndRefunded(t, s, st, cid, mid, u.ID, tc.code)

			up.use(proxyTo(good))
			retryAnswersInPlace(t, s, st, good, mid, u.ID)
		})
	}
}

// failedAndRefunded checks that the answer mid in the thread cid is
// stored failed with code ("" for any) and no text, that its question
// was refunded, and that the thread shows both.
func failedAndRefunded(t *testing.T, s *apptest.Server, st *student, cid, mid, userID, code string) {
	t.Helper()
	m := apptest.Message(t, s, mid)
	if m.Status != models.StatusFailed || m.Content != "" || (code != "" && m.ErrorCode != code) {
		t.Fatalf("stored %s %q content %q, want failed %q with no text", m.Status, m.ErrorCode, m.Content, code)
	}
	if n := questionsUsed(t, s, userID); n != 0 {
		t.Errorf("%d questions counted after a failed answer, want 0 (refunded)", n)
	}
	page := st.web.Get("/chat/" + cid)
	if got := page.Doc.Find("#usage").AttrOr("data-used", ""); got != "0" {
		t.Errorf("usage bar shows %q used, want 0", got)
	}
	if got := page.Doc.Find("#m-"+mid).AttrOr("data-status", ""); got != models.StatusFailed {
		t.Errorf("the thread shows the answer as %q", got)
	}
}

// retryAnswersInPlace retries the failed answer mid against the provider
// good, which now serves: it answers in place and counts the question again.
func retryAnswersInPlace(t *testing.T, s *apptest.Server, st *student, good *fakellm.Server, mid, userID string) {
	t.Helper()
	ctx := context.Background()
	status, body, err := st.do(ctx, http.MethodPost, "/messages/"+mid+"/retry", url.Values{}, true)
	if err != nil || status != http.StatusOK || !strings.Contains(body, `id="m-`+mid+`"`) {
		t.Fatalf("retry: %d %v %.300s", status, err, body)
	}
	final, err := st.stream(ctx, mid, nil)
	if err != nil || final.Type != "done" || !strings.Contains(final.Data, "A VLAN splits one switch.") {
		t.Fatalf("retried stream ended %q %v: %.300s", final.Type, err, final.Data)
	}
	if m := apptest.Message(t, s, mid); m.Status != models.StatusComplete || m.Content != good.Answer() {
		t.Fatalf("after retry stored %s %q", m.Status, m.Content)
	}
	if n := questionsUsed(t, s, userID); n != 1 {
		t.Errorf("%d questions counted after the retry answered, want 1", n)
	}
}

// The browser goes away mid-answer (the real OpenAI wire, held after its
// first token): the answer still completes and is stored; reconnecting
// with the last event id gives exactly the rest, and a later visit replays
// it whole. (handlers/stream_test.go covers offsets and resume in depth.)
func TestFaultBrowserDisconnectsMidAnswer(t *testing.T) {
	hold := make(chan struct{})
	fake := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: []string{"Frames", " carry", " a VLAN", " tag."}, Hold: hold})
	s := apptest.New(t, viaOpenAI(fake.URL))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	st := signInStudent(t, s.URL, "ana@example.com", "a-long-password-1", nil)
	cid := apptest.NewThread(t, st.web)
	mid, status, err := st.ask(context.Background(), cid, "How are VLANs kept apart?")
	if err != nil || status != http.StatusOK {
		t.Fatalf("ask: %d %v", status, err)
	}
	ctx, leave := context.WithCancel(context.Background())
	var first webtest.SSEEvent
	_, _ = st.stream(ctx, mid, func(ev webtest.SSEEvent, _ time.Time) bool {
		if ev.Type == "chunk" {
			first = ev
			return false // the tab closes
		}
		return true
	})
	leave()
	if html.UnescapeString(first.Data) != "Frames" || first.ID != "6" {
		t.Fatalf("first chunk %+v", first)
	}
	close(hold)

	rest := apptest.OpenSSE(t, st.web, mid, first.ID, "")
	text, end := rest.Rest(t)
	if "Frames"+text != fake.Answer() || end.Name != "done" {
		t.Fatalf("reconnected after %q: got %q then %q, want the rest of %q", first.Data, text, end.Name, fake.Answer())
	}
	if m := apptest.Message(t, s, mid); m.Status != models.StatusComplete || m.Content != fake.Answer() {
		t.Fatalf("stored %s %q", m.Status, m.Content)
	}
	replay := apptest.OpenSSE(t, st.web, mid, "", "")
	if text, end := replay.Rest(t); text != fake.Answer() || end.Name != "done" {
		t.Fatalf("a later visit replays %q then %q", text, end.Name)
	}
}

// waitSettled polls (bounded) until the message has left `streaming`.
func waitSettled(t testing.TB, s *apptest.Server, mid string, bound time.Duration) models.Message {
	t.Helper()
	for deadline := time.Now().Add(bound); ; time.Sleep(50 * time.Millisecond) {
		var m models.Message
		err := s.DB.Raw(`SELECT * FROM messages WHERE id = ?`, mid).Scan(&m).Error
		if err == nil && m.ID != "" && m.Status != models.StatusStreaming {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("message %s still %q after %s (err %v)", mid, m.Status, bound, err)
		}
	}
}

// PostgreSQL restarts while an answer streams: aula does not crash, the
// answer is stored complete once the database is back (or ends failed and
// refunded, never stays streaming), and aula serves the next question
// without being restarted. It restarts the shared test cluster, so it
// never runs in parallel.
func TestFaultDatabaseRestartsMidAnswer(t *testing.T) {
	release := make(chan struct{})
	tokens := []string{"Before", " the", " restart,", " and after."}
	p := &apptest.Scripted{Answer: func(ctx context.Context, n int, _ tutor.Request, emit func(string) error) error {
		if n > 0 {
			return apptest.EmitAll(emit, "Still", " here.")
		}
		if err := emit(tokens[0]); err != nil {
			return err
		}
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		return apptest.EmitAll(emit, tokens[1:]...)
	}}
	s := apptest.New(t, apptest.WithProvider(p), func(c *tutor.Config) { c.Stream.LeaseTTL = time.Second })
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	st := signInStudent(t, s.URL, "ana@example.com", "a-long-password-1", nil)
	cid := apptest.NewThread(t, st.web)
	ctx := context.Background()
	mid, status, err := st.ask(ctx, cid, "Explain the restart")
	if err != nil || status != http.StatusOK {
		t.Fatalf("ask: %d %v", status, err)
	}
	conn := apptest.OpenSSE(t, st.web, mid, "", "")
	if ev := conn.Must(t, "chunk"); html.UnescapeString(ev.Data) != "Before" {
		t.Fatalf("first chunk %q", ev.Data)
	}

	restartDatabase(t)
	close(release)

	text, end := conn.Rest(t)
	m := waitSettled(t, s, mid, 30*time.Second)
	switch m.Status {
	case models.StatusComplete:
		if m.Content != strings.Join(tokens, "") || end.Name != "done" || "Before"+text != m.Content {
			t.Errorf("stored %q, streamed %q then %q", m.Content, "Before"+text, end.Name)
		}
	case models.StatusFailed:
		if m.Content != "" || questionsUsed(t, s, u.ID) != 0 {
			t.Errorf("failed answer kept %q or was not refunded (%d used)", m.Content, questionsUsed(t, s, u.ID))
		}
	default:
		t.Errorf("answer ended %s", m.Status)
	}
	t.Logf("after the restart the answer ended %s %q", m.Status, m.ErrorCode)
	servesAgain(t, s, st, cid, mid, m.Status)
}

// restartDatabase restarts the test's PostgreSQL cluster; should the
// restart fail, the cluster is resumed at cleanup.
func restartDatabase(t *testing.T) {
	t.Helper()
	cluster := pgtest.Cluster()
	restarted := false
	t.Cleanup(func() {
		if !restarted { // a failed restart may leave it stopped
			_ = cluster.Resume(context.Background())
		}
	})
	if err := cluster.Restart(context.Background()); err != nil {
		t.Fatalf("restart the test cluster: %v", err)
	}
	restarted = true
}

// servesAgain checks that the process serves again after the database
// came back: the thread shows the answer mid as status, and a new
// question is answered end to end with nothing left streaming.
func servesAgain(t *testing.T, s *apptest.Server, st *student, cid, mid, status string) {
	t.Helper()
	ctx := context.Background()
	page := st.web.Get("/chat/" + cid)
	if page.Status != http.StatusOK || page.Doc.Find("#m-"+mid).AttrOr("data-status", "") != status {
		t.Fatalf("thread after the restart: %d, bubble %q", page.Status, page.Doc.Find("#m-"+mid).AttrOr("data-status", ""))
	}
	mid2, code, err := st.ask(ctx, cid, "And now?")
	if err != nil || code != http.StatusOK {
		t.Fatalf("ask after the restart: %d %v", code, err)
	}
	if final, err := st.stream(ctx, mid2, nil); err != nil || final.Type != "done" {
		t.Fatalf("answer after the restart: %q %v", final.Type, err)
	}
	if m2 := apptest.Message(t, s, mid2); m2.Status != models.StatusComplete || m2.Content != "Still here." {
		t.Fatalf("answer after the restart stored %s %q", m2.Status, m2.Content)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE status = 'streaming'`); n != 0 {
		t.Errorf("%d messages left streaming", n)
	}
}
