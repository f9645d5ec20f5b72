package handlers_test

import (
	"context"
	"io"
	"net/http"
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
		{"site", "respuestas abiertas", siteStreams},
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
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: apptest.NewThread(t, c), Content: "¿Qué es una VLAN?"})
	if err != nil {
		t.Fatal(err)
	}
	client.Jar = c.HTTP.Jar
	return func(ctx context.Context) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/messages/"+res.AssistantMessage.ID+"/stream", nil)
		req.Header.Set("Accept-Language", "es")
		return client.Do(req)
	}
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
