package handlers_test

// Faults of the process and its database: SIGTERM mid-answer, and
// PostgreSQL away for longer than the answers take.

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/internal/pgtest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
	"aula/tutor/stream"
)

// SIGTERM while answers stream, on aula's real binary: with time to drain
// the answer finishes (the student's stream gets done) and the process
// exits cleanly; when the drain timeout passes first the answer is stored
// failed as interrupted and refunded. Either way no message stays
// streaming. (A SIGKILL's answers are recovered by the next process:
// internal/multitest covers it.)
func TestFaultSIGTERMMidAnswer(t *testing.T) {
	cases := []struct {
		name   string
		drain  string
		tokens int
		hold   bool
		want   string // stored status
	}{
		{"drain lets the answer finish", "60s", 20, false, models.StatusComplete},
		{"drain timeout interrupts it", "200ms", 5, true, models.StatusFailed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := fakellm.Options{Tokens: benchTokens(tc.tokens), TokensPerSecond: 20}
			if tc.hold {
				hold := make(chan struct{}) // never released: the answer cannot finish in time
				opts.Hold = hold
			}
			fake := fakellm.Start(t, fakellm.OpenAI, opts)
			db := pgtest.New(t)
			ctx := context.Background()
			if _, err := models.NewUsers(db.DB).Create(ctx, models.NewUser{Email: "ana@example.com", Name: "Ana",
				Password: "a-long-password-1", Plan: models.PlanFree}); err != nil {
				t.Fatal(err)
			}
			p := startAula(t, db.URL, "AULA_LLM_PROVIDER=openai", "OPENAI_API_KEY=test", "OPENAI_BASE_URL="+fake.URL,
				"AULA_DRAIN_TIMEOUT="+tc.drain)
			st := signInStudent(t, p.URL, "ana@example.com", "a-long-password-1", nil)
			cid := apptest.NewThread(t, st.web)
			mid, status, err := st.ask(ctx, cid, "Explain VLAN tags")
			if err != nil || status != http.StatusOK {
				t.Fatalf("ask: %d %v", status, err)
			}
			type result struct {
				final webtest.SSEEvent
				text  string
				err   error
			}
			firstChunk := make(chan struct{})
			streamed := make(chan result, 1)
			go func() {
				var text strings.Builder
				once := sync.Once{}
				final, err := st.stream(ctx, mid, func(ev webtest.SSEEvent, _ time.Time) bool {
					if ev.Type == "chunk" {
						text.WriteString(html.UnescapeString(ev.Data))
						once.Do(func() { close(firstChunk) })
					}
					return true
				})
				streamed <- result{final, text.String(), err}
			}()
			select {
			case <-firstChunk:
			case r := <-streamed:
				t.Fatalf("stream ended before its first chunk: %+v", r)
			}
			p.signal(t, syscall.SIGTERM)
			if err := p.wait(t, 90*time.Second); err != nil {
				t.Errorf("aula exited with %v after SIGTERM:\n%s", err, p.log.String())
			}
			r := <-streamed

			var m models.Message
			if err := db.Raw(`SELECT * FROM messages WHERE id = ?`, mid).Scan(&m).Error; err != nil {
				t.Fatal(err)
			}
			var left, used int64
			db.Raw(`SELECT count(*) FROM messages WHERE status = 'streaming'`).Scan(&left)
			db.Raw(`SELECT coalesce(sum(questions), 0) FROM plan_usage`).Scan(&used)
			if left != 0 {
				t.Errorf("%d messages left streaming after the process stopped", left)
			}
			switch tc.want {
			case models.StatusComplete:
				if m.Status != models.StatusComplete || m.Content != fake.Answer() || used != 1 {
					t.Errorf("stored %s %q (%d used), want the whole answer", m.Status, m.Content, used)
				}
				if r.final.Type != "done" || r.text != fake.Answer() {
					t.Errorf("the student's stream got %q then %q (%v), want the whole answer then done", r.text, r.final.Type, r.err)
				}
			case models.StatusFailed:
				if m.Status != models.StatusFailed || m.ErrorCode != tutor.CodeInterrupted || m.Content != "" || used != 0 {
					t.Errorf("stored %s %q %q (%d used), want failed interrupted, refunded", m.Status, m.ErrorCode, m.Content, used)
				}
			}
			if !strings.Contains(p.log.String(), "shutting down") {
				t.Errorf("no drain in the log:\n%s", p.log.String())
			}
		})
	}
}

// bearerAuth sends a personal token with every request.
type bearerAuth string

func (b bearerAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// PostgreSQL stops while three answers stream through the API and one is
// asked through MCP, and starts again 9 s later, long after the answers
// finished and their leases (1 s) ran out, with another process sweeping
// leases all along: every client gets the whole answer and done, and all
// four rows are stored complete and counted. It stops the shared test
// cluster, so it never runs in parallel.
func TestFaultDatabaseDownLongerThanAnswers(t *testing.T) {
	p := newHeldAnswers(4, "Part one.", " Part two.")
	lease := func(c *tutor.Config) {
		c.Stream.LeaseTTL = time.Second
		c.FirstTokenTimeout, c.AnswerTimeout = time.Minute, time.Minute
	}
	s := apptest.New(t, apptest.WithProvider(p.Scripted), lease)
	peer := tutor.New(tutor.Config{DB: s.DB.DB, Logger: discardLog(), Stream: stream.Config{DatabaseURL: s.DB.URL, LeaseTTL: time.Second}})
	if err := peer.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(peer.Close)
	u := s.User(t, "outage@example.com", "outage-pass-1", models.PlanPro)
	tok := apptest.APIToken(t, s, u.ID)

	type result struct {
		text string
		last map[string]any
		err  error
	}
	results := make(chan result, 4)
	for i := range 3 {
		go func() {
			resp, body := apptest.APICall(t, s, tok, http.MethodPost, "/tutor/stream",
				map[string]any{"message": "Question " + string(rune('A'+i))})
			if resp.StatusCode != http.StatusOK {
				results <- result{last: map[string]any{"status": resp.StatusCode}}
				return
			}
			text, last := apiStreamEvents(t, body)
			results <- result{text: text, last: last}
		}()
	}
	go func() {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "outage-test", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: s.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerAuth(tok)},
				DisableStandaloneSSE: true, MaxRetries: -1}, nil)
		if err != nil {
			results <- result{err: err}
			return
		}
		defer cs.Close()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "Question D"}})
		if err != nil || res.IsError {
			text := ""
			if res != nil && len(res.Content) > 0 {
				text = res.Content[0].(*mcp.TextContent).Text
			}
			results <- result{err: err, last: map[string]any{"mcp error": text}}
			return
		}
		var out struct{ Answer string }
		_ = json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out)
		results <- result{text: out.Answer, last: map[string]any{"type": "done"}}
	}()
	allStarted := make(chan struct{})
	go func() { p.started.Wait(); close(allStarted) }()
	select {
	case <-allStarted:
	case r := <-results:
		t.Fatalf("a question ended before the outage: %q %v %v", r.text, r.last, r.err)
	case <-time.After(30 * time.Second):
		t.Fatal("the four answers did not start")
	}

	cluster := pgtest.Cluster()
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			_ = cluster.Resume(context.Background())
		}
	})
	time.Sleep(2 * time.Second)
	if err := cluster.Stop(); err != nil {
		t.Fatalf("stop the test cluster: %v", err)
	}
	close(p.release) // the answers finish while the database is away
	time.Sleep(9 * time.Second)
	if err := cluster.Resume(context.Background()); err != nil {
		t.Fatalf("start the test cluster again: %v", err)
	}
	resumed = true

	for range 4 {
		r := <-results
		if r.err != nil || r.last["type"] != "done" || r.text != "Part one. Part two." {
			t.Errorf("a client got %q then %v (%v)", r.text, r.last, r.err)
		}
	}
	var rows []models.Message
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		rows = nil
		if err := s.DB.Raw(`SELECT * FROM messages WHERE user_id = ? AND role = 'assistant'`, u.ID).Scan(&rows).Error; err == nil && len(rows) == 4 {
			break
		}
	}
	if len(rows) != 4 {
		t.Fatalf("%d answers stored, want 4", len(rows))
	}
	for _, m := range rows {
		if m.Status != models.StatusComplete || m.Content != "Part one. Part two." {
			t.Errorf("answer %s stored %s %q %q", m.ID, m.Status, m.ErrorCode, m.Content)
		}
	}
	if used := questionsUsed(t, s, u.ID); used != 4 {
		t.Errorf("questions used %d, want 4", used)
	}
}
