package tutor_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"aula/internal/fakellm"
	"aula/tutor"
)

// guard bounds waits that only end if the code under test works; it is a
// hang detector, not a timing assertion.
const guard = 30 * time.Second

// credsFor points provider kind at the fake server.
func credsFor(kind, url string) tutor.Credentials {
	switch kind {
	case fakellm.OpenAI:
		return tutor.Credentials{OpenAIKey: "test-key", OpenAIBaseURL: url}
	case fakellm.Anthropic:
		return tutor.Credentials{AnthropicKey: "test-key", AnthropicBaseURL: url}
	case fakellm.Gemini:
		return tutor.Credentials{GoogleKey: "test-key", GoogleEndpoint: url}
	case fakellm.Ollama:
		return tutor.Credentials{OllamaHost: url}
	}
	return tutor.Credentials{}
}

// startFake starts a fake for kind and a provider talking to it.
func startFake(t *testing.T, kind string, opts fakellm.Options) (*fakellm.Server, tutor.Provider) {
	t.Helper()
	srv := fakellm.Start(t, kind, opts)
	p, err := tutor.NewProvider(t.Context(), kind, "", credsFor(kind, srv.URL))
	if err != nil {
		t.Fatalf("NewProvider(%s): %v", kind, err)
	}
	return srv, p
}

func simpleRequest() tutor.Request {
	return tutor.Request{System: "You are a tutor.", Question: "What is a goroutine?", Lang: "en", Mode: "tutor"}
}

func TestProviderStreamsTokenByToken(t *testing.T) {
	tokens := []string{"Go", "routines", " are", " cheap", " threads", "."}
	for _, kind := range fakellm.Kinds {
		t.Run(kind, func(t *testing.T) {
			hold := make(chan struct{})
			srv, p := startFake(t, kind, fakellm.Options{
				Tokens: tokens, Hold: hold, PromptTokens: 11, CompletionTokens: 7,
			})
			var got []string
			usage, err := p.Stream(t.Context(), simpleRequest(), func(tok string) error {
				got = append(got, tok)
				if len(got) == 1 {
					// The fake sends nothing more until this point, so the
					// first token reached us before the rest existed.
					close(hold)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if !slices.Equal(got, tokens) {
				t.Errorf("tokens = %q, want %q", got, tokens)
			}
			if usage.TokensIn != 11 || usage.TokensOut != 7 {
				t.Errorf("usage = %+v, want {11 7}", usage)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("fake saw %d requests, want 1", n)
			}
		})
	}
}

func TestProviderSendsHistoryAsMessages(t *testing.T) {
	cases := []struct {
		name    string
		history []tutor.Turn
		want    []fakellm.Message
	}{
		{
			name: "alternating",
			history: []tutor.Turn{
				{Role: "user", Content: "What is a slice?"},
				{Role: "assistant", Content: "A view of an array."},
				{Role: "user", Content: "And its capacity?"},
				{Role: "assistant", Content: "Room before reallocating."},
			},
			want: []fakellm.Message{
				{Role: "user", Content: "What is a slice?"},
				{Role: "assistant", Content: "A view of an array."},
				{Role: "user", Content: "And its capacity?"},
				{Role: "assistant", Content: "Room before reallocating."},
				{Role: "user", Content: "How does append grow it?"},
			},
		},
		{
			name: "leading assistant dropped, repeated user merged",
			history: []tutor.Turn{
				{Role: "assistant", Content: "Welcome!"},
				{Role: "user", Content: "First."},
				{Role: "user", Content: "Second."},
				{Role: "assistant", Content: "Answer."},
				{Role: "user", Content: "Unanswered."},
			},
			want: []fakellm.Message{
				{Role: "user", Content: "First.\n\nSecond."},
				{Role: "assistant", Content: "Answer."},
				{Role: "user", Content: "Unanswered.\n\nHow does append grow it?"},
			},
		},
	}
	for _, kind := range fakellm.Kinds {
		for _, tc := range cases {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				srv, p := startFake(t, kind, fakellm.Options{})
				req := tutor.Request{
					System: "You are aula's tutor.", History: tc.history, Question: "How does append grow it?",
					Model: "custom-model", Temperature: 0.25, MaxTokens: 321,
				}
				if _, err := p.Stream(t.Context(), req, func(string) error { return nil }); err != nil {
					t.Fatalf("Stream: %v", err)
				}
				got, ok := srv.LastRequest()
				if !ok {
					t.Fatal("fake saw no request")
				}
				if got.System != req.System {
					t.Errorf("system = %q, want %q", got.System, req.System)
				}
				if !slices.Equal(got.Messages, tc.want) {
					t.Errorf("messages =\n%q\nwant\n%q", got.Messages, tc.want)
				}
				if got.Model != "custom-model" {
					t.Errorf("model = %q, want custom-model", got.Model)
				}
				if got.MaxTokens != 321 {
					t.Errorf("max tokens = %d, want 321", got.MaxTokens)
				}
				if math.Abs(got.Temperature-0.25) > 1e-6 {
					t.Errorf("temperature = %v, want 0.25", got.Temperature)
				}
			})
		}
	}
}

func TestProviderCancelClosesUpstream(t *testing.T) {
	for _, kind := range fakellm.Kinds {
		t.Run(kind, func(t *testing.T) {
			hold := make(chan struct{}) // never released: only a cancel ends the stream
			srv, p := startFake(t, kind, fakellm.Options{Hold: hold})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var got []string
			_, err := p.Stream(ctx, simpleRequest(), func(tok string) error {
				got = append(got, tok)
				cancel()
				return nil
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Stream error = %v, want context.Canceled", err)
			}
			if code := tutor.ErrorCode(err); code != tutor.CodeCancelled {
				t.Errorf("code = %q, want %q", code, tutor.CodeCancelled)
			}
			if len(got) != 1 {
				t.Errorf("tokens before cancel = %q, want exactly the first", got)
			}
			waitDisconnected(t, srv)
		})
	}
}

func TestProviderOnTokenErrorAbortsUpstream(t *testing.T) {
	errStop := errors.New("subscriber gone")
	for _, kind := range fakellm.Kinds {
		t.Run(kind, func(t *testing.T) {
			srv, p := startFake(t, kind, fakellm.Options{Hold: make(chan struct{})})
			_, err := p.Stream(t.Context(), simpleRequest(), func(string) error { return errStop })
			if !errors.Is(err, errStop) {
				t.Fatalf("Stream error = %v, want errStop", err)
			}
			if code := tutor.ErrorCode(err); code != tutor.CodeAborted {
				t.Errorf("code = %q, want %q", code, tutor.CodeAborted)
			}
			waitDisconnected(t, srv)
		})
	}
}

func waitDisconnected(t *testing.T, srv *fakellm.Server) {
	t.Helper()
	select {
	case <-srv.Disconnected():
	case <-time.After(guard):
		t.Fatal("the fake never saw the client close the connection")
	}
}

func TestProviderErrors(t *testing.T) {
	cases := []struct {
		name       string
		opts       fakellm.Options
		deadline   bool
		wantCode   string
		wantStatus int
		wantIs     error
	}{
		{name: "429", opts: fakellm.Options{Status: http.StatusTooManyRequests},
			wantCode: tutor.CodeRateLimited, wantStatus: 429},
		{name: "500", opts: fakellm.Options{Status: http.StatusInternalServerError},
			wantCode: tutor.CodeUpstreamError, wantStatus: 500},
		{name: "401", opts: fakellm.Options{Status: http.StatusUnauthorized},
			wantCode: tutor.CodeAuthFailed, wantStatus: 401},
		{name: "hang", opts: fakellm.Options{HangBeforeFirst: true}, deadline: true,
			wantCode: tutor.CodeTimeout, wantIs: context.DeadlineExceeded},
		{name: "malformed", opts: fakellm.Options{Malformed: true},
			wantCode: tutor.CodeMalformedStream},
	}
	for _, kind := range fakellm.Kinds {
		for _, tc := range cases {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				srv, p := startFake(t, kind, tc.opts)
				ctx := t.Context()
				if tc.deadline {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, 200*time.Millisecond)
					defer cancel()
				}
				var got []string
				_, err := p.Stream(ctx, simpleRequest(), func(tok string) error {
					got = append(got, tok)
					return nil
				})
				pe, ok := errors.AsType[*tutor.ProviderError](err)
				if !ok {
					t.Fatalf("Stream error = %v (%T), want a *tutor.ProviderError", err, err)
				}
				if pe.Code != tc.wantCode || pe.Status != tc.wantStatus || pe.Provider != kind {
					t.Errorf("error = {%s %s %d}, want {%s %s %d}: %v",
						pe.Provider, pe.Code, pe.Status, kind, tc.wantCode, tc.wantStatus, err)
				}
				if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
					t.Errorf("errors.Is(%v, %v) = false", err, tc.wantIs)
				}
				if strings.Join(got, "") != "" && tc.name != "malformed" {
					t.Errorf("tokens %q streamed from a failing upstream", got)
				}
				if tc.deadline {
					waitDisconnected(t, srv)
				}
				t.Logf("%v", err)
			})
		}
	}
}

func TestProviderBaseURLWithVersion(t *testing.T) {
	for _, kind := range []string{fakellm.OpenAI, fakellm.Anthropic} {
		for _, suffix := range []string{"", "/", "/v1", "/v1/"} {
			t.Run(kind+"/"+suffix, func(t *testing.T) {
				srv := fakellm.Start(t, kind, fakellm.Options{})
				p, err := tutor.NewProvider(t.Context(), kind, "", credsFor(kind, srv.URL+suffix))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Stream(t.Context(), simpleRequest(), func(string) error { return nil }); err != nil {
					t.Fatalf("Stream: %v", err)
				}
				got, _ := srv.LastRequest()
				if !strings.HasPrefix(got.Path, "/v1/") {
					t.Errorf("path = %q, want /v1/...", got.Path)
				}
			})
		}
	}
}

func TestProviderDefaultModels(t *testing.T) {
	for _, kind := range fakellm.Kinds {
		t.Run(kind, func(t *testing.T) {
			srv, p := startFake(t, kind, fakellm.Options{})
			if p.Name() != kind {
				t.Errorf("Name() = %q, want %q", p.Name(), kind)
			}
			want := tutor.DefaultModel(kind)
			if got := tutor.ModelOf(p); got != want || want == "" {
				t.Errorf("ModelOf = %q, want %q", got, want)
			}
			if _, err := p.Stream(t.Context(), simpleRequest(), func(string) error { return nil }); err != nil {
				t.Fatalf("Stream: %v", err)
			}
			got, _ := srv.LastRequest()
			if got.Model != want {
				t.Errorf("fake saw model %q, want %q", got.Model, want)
			}
			auth := map[string][2]string{
				fakellm.OpenAI:    {"Authorization", "Bearer test-key"},
				fakellm.Anthropic: {"X-Api-Key", "test-key"},
				fakellm.Gemini:    {"Authorization", "Bearer test-key"},
			}[kind]
			header, value := auth[0], auth[1]
			if header != "" && got.Header.Get(header) != value {
				t.Errorf("header %s = %q, want %q", header, got.Header.Get(header), value)
			}
		})
	}
}

func TestCheckCredentials(t *testing.T) {
	full := tutor.Credentials{
		OpenAIKey: "k", AnthropicKey: "k", GoogleKey: "k", OllamaHost: "http://127.0.0.1:11434",
	}
	cases := []struct {
		name     string
		provider string
		creds    tutor.Credentials
		wantErr  error
		wantText string
	}{
		{"offline needs nothing", tutor.ProviderOffline, tutor.Credentials{}, nil, ""},
		{"openai with key", tutor.ProviderOpenAI, full, nil, ""},
		{"openai compatible without key", tutor.ProviderOpenAI, tutor.Credentials{OpenAIBaseURL: "http://localhost:8000"}, nil, ""},
		{"openai missing", tutor.ProviderOpenAI, tutor.Credentials{}, tutor.ErrNoCredentials, "OPENAI_API_KEY"},
		{"anthropic with key", tutor.ProviderAnthropic, full, nil, ""},
		{"anthropic missing", tutor.ProviderAnthropic, tutor.Credentials{AnthropicBaseURL: "http://x"}, tutor.ErrNoCredentials, "ANTHROPIC_API_KEY"},
		{"googleai with key", tutor.ProviderGoogleAI, full, nil, ""},
		{"googleai missing", tutor.ProviderGoogleAI, tutor.Credentials{GoogleEndpoint: "http://x"}, tutor.ErrNoCredentials, "GOOGLE_API_KEY"},
		{"ollama with host", tutor.ProviderOllama, full, nil, ""},
		{"ollama missing host", tutor.ProviderOllama, tutor.Credentials{}, tutor.ErrNoCredentials, "OLLAMA_HOST"},
		{"unknown", "cohere", full, tutor.ErrUnknownProvider, "cohere"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tutor.CheckCredentials(tc.provider, tc.creds)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("CheckCredentials = %v, want %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("message %q does not name %q", err, tc.wantText)
			}
			// NewProvider refuses exactly what CheckCredentials refuses.
			_, nerr := tutor.NewProvider(t.Context(), tc.provider, "", tc.creds)
			if !errors.Is(nerr, tc.wantErr) || (tc.wantErr == nil) != (nerr == nil) {
				t.Errorf("NewProvider = %v, want %v", nerr, tc.wantErr)
			}
		})
	}
}
