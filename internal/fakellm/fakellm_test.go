package fakellm_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"aula/internal/fakellm"
)

func TestNewRejectsUnknownKind(t *testing.T) {
	if _, err := fakellm.New("cohere", fakellm.Options{}); err == nil {
		t.Fatal("New accepted an unknown kind")
	}
}

func TestUnknownPathIs404(t *testing.T) {
	for _, kind := range fakellm.Kinds {
		t.Run(kind, func(t *testing.T) {
			srv := fakellm.Start(t, kind, fakellm.Options{})
			resp, err := http.Post(srv.URL+"/nope", "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("status = %d, want 404", resp.StatusCode)
			}
		})
	}
}

// TestCloseReleasesHeldStream proves Close does not wait on a stream that
// is held forever, which would hang every test's cleanup.
func TestCloseReleasesHeldStream(t *testing.T) {
	srv, err := fakellm.New(fakellm.Ollama, fakellm.Options{Hold: make(chan struct{})})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`
	resp, err := http.Post(srv.URL+"/api/chat", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-srv.FirstToken()
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close blocked on a held stream")
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	if got, ok := srv.LastRequest(); !ok || got.Messages[0].Content != "hi" || got.Model != "m" {
		t.Errorf("recorded request = %+v", got)
	}
}

// With LimitTokens a stream ends after the request's max_tokens, as a
// real model's does; without it, or without max_tokens, it streams all.
func TestLimitTokensStopsAtMaxTokens(t *testing.T) {
	tokens := []string{"a ", "b ", "c ", "d "}
	cases := []struct {
		limit bool
		body  string
		want  int // "data:" chunks carrying a token
	}{
		{true, `{"model":"m","max_tokens":2,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, 2},
		{true, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, 4},
		{false, `{"model":"m","max_tokens":2,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, 4},
	}
	for _, c := range cases {
		srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: tokens, LimitTokens: c.limit})
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		// The first chunk carries the role and an empty content.
		if got := strings.Count(string(b), `"content":"`) - strings.Count(string(b), `"content":""`); got != c.want {
			t.Errorf("limit %v, %s: %d tokens streamed, want %d\n%s", c.limit, c.body, got, c.want, b)
		}
	}
}
