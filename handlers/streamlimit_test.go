package handlers_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
	"aula/tutor/stream"
)

// opener opens one event stream of the signed-in student under ctx.
type opener func(ctx context.Context) (*http.Response, error)

// TestStreamsPerUserCap: through each door that streams, one account
// opening more event streams at once than the cap gets exactly the cap
// (the rest 429, in Spanish on the site, TOO_MANY_STREAMS in the API,
// with no question counted); once one is closed (the client leaves), a
// new one is accepted.
func TestStreamsPerUserCap(t *testing.T) {
	const limit, extra = stream.DefaultStreamsPerUser, 4
	for _, door := range []struct {
		name, refusal string
		setup         func(t *testing.T, s *apptest.Server, client *http.Client) opener
	}{
		{"site", "respuestas o comprobaciones escribiéndose", siteStreams},
		{"API", `"code":"TOO_MANY_STREAMS"`, apiStreams},
	} {
		t.Run(door.name, func(t *testing.T) {
			// Every answer writes a word and waits, so its streams stay open.
			s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: func(ctx context.Context, _ int, _ tutor.Request, emit func(string) error) error {
				if err := emit("Hola "); err != nil {
					return err
				}
				<-ctx.Done()
				return ctx.Err()
			}}))
			tr := &http.Transport{}
			t.Cleanup(tr.CloseIdleConnections)
			open := door.setup(t, s, &http.Client{Transport: tr})
			questions := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE role = 'user'`)

			streams := openAtOnce(t, open, limit+extra)
			var admitted []*openStream
			refused := 0
			for _, st := range streams {
				switch st.status {
				case http.StatusOK:
					admitted = append(admitted, st)
				case http.StatusTooManyRequests:
					if !strings.Contains(st.body, door.refusal) {
						t.Errorf("a refused stream says: %s", st.body)
					}
					refused++
				default:
					t.Errorf("a stream answered %d: %s", st.status, st.body)
				}
			}
			if len(admitted) != limit || refused != extra {
				t.Fatalf("%d streams at once: %d admitted, %d refused; want %d and %d", limit+extra, len(admitted), refused, limit, extra)
			}
			if door.name == "API" {
				if got := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE role = 'user'`) - questions; got != limit {
					t.Fatalf("%d questions recorded for %d admitted streams", got, limit)
				}
			}
			admitted[0].close()
			if !reopens(t, open) {
				t.Fatal("no stream is accepted after one was closed")
			}
		})
	}
}

// siteStreams signs a Spanish-speaking student in and opens the stream of
// one answer that stays streaming.
func siteStreams(t *testing.T, s *apptest.Server, client *http.Client) opener {
	_, open := siteStudent(t, s, client)
	return open
}

// siteStudent signs a Spanish-speaking student in on client; open opens
// the stream of one answer of theirs that stays streaming.
func siteStudent(t *testing.T, s *apptest.Server, client *http.Client) (u *models.User, open opener) {
	u = s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: apptest.NewThread(t, c), Content: "¿Qué es una VLAN?"})
	if err != nil {
		t.Fatal(err)
	}
	client.Jar = c.HTTP.Jar
	return u, siteGet(s, client, "/messages/"+res.AssistantMessage.ID+"/stream")
}

// siteGet opens path on the site, in Spanish.
func siteGet(s *apptest.Server, client *http.Client, path string) opener {
	return func(ctx context.Context) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
		req.Header.Set("Accept-Language", "es")
		return client.Do(req)
	}
}

// A check's feedback stream is an event stream like an answer's: one
// account's check and answer streams share the cap and the open-streams
// metric. With the cap filled by answers, a check's stream is refused
// (429, in Spanish); once an answer is left, the check's stream is
// admitted, counted in aula_sse_streams, and fills the cap in turn: the
// next answer stream is refused.
func TestCheckStreamsShareTheCap(t *testing.T) {
	const limit = stream.DefaultStreamsPerUser
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: func(ctx context.Context, _ int, _ tutor.Request, emit func(string) error) error {
		<-ctx.Done() // every answer stays streaming
		return ctx.Err()
	}}))
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	u, answers := siteStudent(t, s, client)
	st, err := s.Tutor.StartCheck(context.Background(), u, tutor.CheckScope{LessonID: "go-variables-types"})
	if err != nil || st.Current() == nil {
		t.Fatalf("start check: %v", err)
	}
	// The stream of the first question's grading, which waits for an answer.
	checks := siteGet(s, client, "/checks/"+st.Check.ConversationID+"/stream?question=1&try=0")

	opened := openAtOnce(t, answers, limit)
	for _, o := range opened {
		if o.status != http.StatusOK {
			t.Fatalf("an answer stream within the cap answered %d: %s", o.status, o.body)
		}
	}
	if o := openAtOnce(t, checks, 1)[0]; o.status != http.StatusTooManyRequests || !strings.Contains(o.body, "respuestas o comprobaciones escribiéndose") {
		t.Fatalf("a check stream past the cap answered %d: %s", o.status, o.body)
	}
	opened[0].close()
	if !reopens(t, checks) {
		t.Fatal("no check stream is accepted after an answer stream was closed")
	}
	if got := openStreamsMetric(t, s); got != limit {
		t.Fatalf("aula_sse_streams = %d with %d answer streams and a check stream open", got, limit-1)
	}
	if o := openAtOnce(t, answers, 1)[0]; o.status != http.StatusTooManyRequests {
		t.Fatalf("an answer stream past the cap (a check's stream among them) answered %d: %s", o.status, o.body)
	}
}

// openStreamsMetric is aula_sse_streams as /metrics shows it.
func openStreamsMetric(t *testing.T, s *apptest.Server) int {
	t.Helper()
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "aula_sse_streams "); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("metric %q: %v", line, err)
			}
			return n
		}
	}
	t.Fatalf("no aula_sse_streams in /metrics:\n%s", b)
	return 0
}

// apiStreams asks through the API's stream with a student's token.
func apiStreams(t *testing.T, s *apptest.Server, client *http.Client) opener {
	tok := apptest.APIToken(t, s, s.User(t, "api@example.com", "a-long-password-1", models.PlanPro).ID)
	return func(ctx context.Context) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/v1/tutor/stream", strings.NewReader(`{"message":"What is a VLAN?"}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		return client.Do(req)
	}
}

// openStream is one stream opened: its status, a refusal's body, and how
// to leave it.
type openStream struct {
	status int
	body   string
	close  func()
}

// openAtOnce opens n streams in parallel; the admitted stay open until
// the test ends or close is called.
func openAtOnce(t *testing.T, open opener, n int) []*openStream {
	t.Helper()
	out := make([]*openStream, n)
	var wg sync.WaitGroup
	for i := range out {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		wg.Go(func() {
			resp, err := open(ctx)
			if err != nil {
				t.Errorf("open: %v", err)
				out[i] = &openStream{close: cancel}
				return
			}
			st := &openStream{status: resp.StatusCode, close: func() { cancel(); resp.Body.Close() }}
			if resp.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(resp.Body)
				st.body = string(b)
				st.close()
			}
			out[i] = st
		})
	}
	wg.Wait()
	return out
}

// reopens opens streams one after another until one is admitted (the
// server frees a closed stream's place once it notices the client left),
// reporting false if none is within a long while.
func reopens(t *testing.T, open opener) bool {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		st := openAtOnce(t, open, 1)[0]
		if st.status == http.StatusOK {
			return true
		}
		if st.status != http.StatusTooManyRequests {
			t.Fatalf("reopening answered %d: %s", st.status, st.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
