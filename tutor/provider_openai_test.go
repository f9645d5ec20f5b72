package tutor_test

import (
	"encoding/json"
	"strings"
	"testing"

	"aula/internal/fakellm"
	"aula/tutor"
)

// The chat completions client sends what langchaingo's did for the
// models it treats apart: no temperature to the reasoning models, the
// system prompt inside the first user turn for the o1/o3 models that
// take no system message, and the temperature to every other model.
func TestChatCompletionsRequestPerModel(t *testing.T) {
	tests := []struct {
		model       string
		temperature bool
		system      bool // sent as a system message
	}{
		{"gpt-4o-mini", true, true},
		{"gpt-5-mini", false, true},
		{"o3-mini", false, false},
		{"o1", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{})
			p, err := tutor.NewProvider(t.Context(), fakellm.OpenAI, tc.model, credsFor(fakellm.OpenAI, srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			req := tutor.Request{System: "You are a tutor.", Question: "What is a map?", Temperature: 0.25}
			if _, err := p.Stream(t.Context(), req, func(string) error { return nil }); err != nil {
				t.Fatalf("Stream: %v", err)
			}
			got, _ := srv.LastRequest()
			var body map[string]any
			if err := json.Unmarshal(got.Body, &body); err != nil {
				t.Fatal(err)
			}
			if _, ok := body["temperature"]; ok != tc.temperature {
				t.Errorf("temperature sent %v, want %v: %s", ok, tc.temperature, got.Body)
			}
			if (got.System == req.System) != tc.system {
				t.Errorf("system = %q; sent as a system message: want %v", got.System, tc.system)
			}
			if first := got.Messages[0].Content; !tc.system && first != req.System+"\n\n"+req.Question {
				t.Errorf("first user turn = %q, want the system prompt before the question", first)
			}
			if body["stream"] != true || body["stream_options"] == nil {
				t.Errorf("not a streaming request with usage: %s", got.Body)
			}
		})
	}
}

// A chunk longer than the client's line buffer arrives whole; one over
// the line limit (64 KiB) is a malformed stream, as it was with
// langchaingo's scanner.
func TestChatCompletionsLongLines(t *testing.T) {
	long := strings.Repeat("é", 3000)
	tests := []struct {
		name     string
		tokens   []string
		wantCode string
	}{
		{"longer than the buffer", []string{"A ", long, " end"}, ""},
		{"over the line limit", []string{"A ", strings.Repeat("x", 70_000)}, tutor.CodeMalformedStream},
	}
	for _, kind := range []string{fakellm.OpenAI, fakellm.Gemini} {
		for _, tc := range tests {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				_, p := startFake(t, kind, fakellm.Options{Tokens: tc.tokens})
				var got strings.Builder
				_, err := p.Stream(t.Context(), simpleRequest(), func(tok string) error {
					got.WriteString(tok)
					return nil
				})
				if code := tutor.ErrorCode(err); code != tc.wantCode {
					t.Fatalf("Stream error %v (code %q), want code %q", err, code, tc.wantCode)
				}
				if want := strings.Join(tc.tokens, ""); tc.wantCode == "" && got.String() != want {
					t.Errorf("streamed %d bytes, want %d", got.Len(), len(want))
				}
			})
		}
	}
}
