// Package fakellm runs httptest servers that speak the real streaming wire
// formats of the LLM providers aula supports (OpenAI chat completions SSE,
// Anthropic Messages SSE, Gemini's OpenAI-compatible chat completions, Ollama /api/chat
// NDJSON), so tests and benchmarks drive the real langchaingo clients.
//
// A fake streams a scripted answer and can be told to hold the stream after
// the first token, fail with a status, hang, send a malformed stream or pace
// its tokens. It records every request (model, system prompt, messages) and
// reports when a client went away before the stream ended.
package fakellm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Wire protocols a fake can speak; the values match aula's provider names.
const (
	OpenAI    = "openai"
	Anthropic = "anthropic"
	Gemini    = "googleai"
	Ollama    = "ollama"
)

// Kinds lists every protocol, for table-driven tests.
var Kinds = []string{OpenAI, Anthropic, Gemini, Ollama}

// DefaultTokens is the answer a fake streams when Options.Tokens is empty.
var DefaultTokens = []string{"Hello", " from", " the", " fake", " model", "."}

// Options script one fake server.
type Options struct {
	// Tokens are streamed one wire chunk each, in order.
	Tokens []string
	// Respond, when set, picks the tokens of each request from what it
	// asked (a test scripting a conversation of several calls); Tokens is
	// then unused.
	Respond func(Request) []string
	// Hold, when set, makes every stream wait after its first token until
	// Hold is closed (or the client goes away), so a test can prove that the
	// first token reached it before the rest of the answer existed.
	Hold <-chan struct{}
	// HoldOn, when set, picks for each request the channel its stream
	// waits on after the first token, as Hold does (nil: no wait), so a
	// test can hold one kind of call and not another; Hold is then unused.
	HoldOn func(Request) <-chan struct{}
	// Status, when non-zero, answers every request with this HTTP status and
	// the provider's JSON error body instead of a stream.
	Status int
	// HangBeforeFirst sends the response headers and then nothing, until the
	// client goes away.
	HangBeforeFirst bool
	// StallAfterTokens sends every token and then nothing, without the
	// provider's end marker, until the client goes away: a model that
	// stalls after writing its answer (a test stops it there).
	StallAfterTokens bool
	// Malformed sends the headers and a truncated, unparseable first frame,
	// then ends the response without the provider's end marker.
	Malformed bool
	// FirstTokenDelay holds every stream this long before its first token,
	// as a model thinks before answering (benchmarks of the felt wait).
	FirstTokenDelay time.Duration
	// TokensPerSecond paces the tokens (0: as fast as possible); benchmarks
	// use it to model a real model's output rate.
	TokensPerSecond float64
	// PromptTokens and CompletionTokens are the usage the fake reports at the
	// end of the stream; zero reports word counts of the prompt and answer.
	PromptTokens     int
	CompletionTokens int
	// Embed scripts the OpenAI embeddings endpoint (embeddings.go).
	Embed EmbedOptions
	// LimitTokens stops each stream after the request's max_tokens, as a
	// real model does: a benchmark's title calls (32 tokens) then end as
	// soon as a real title would, instead of streaming the whole answer
	// beside the next questions.
	LimitTokens bool
}

// Message is one chat message as the fake received it. Roles are normalised
// to "user" and "assistant" for every protocol.
type Message struct {
	Role    string
	Content string
}

// Request is what the fake understood of one request it received.
type Request struct {
	Path        string
	Header      http.Header
	Body        []byte
	Model       string
	System      string
	Messages    []Message
	Temperature float64
	MaxTokens   int
	// Inputs are the texts of an embeddings request.
	Inputs []string
	// At is when the request arrived.
	At time.Time
}

// Server is a running fake provider.
type Server struct {
	// Kind is the protocol the server speaks.
	Kind string
	// URL is the server's root URL, without any version path: aula's provider
	// layer appends /v1 for OpenAI and Anthropic and /v1beta/openai for
	// Gemini, and Ollama uses the root as is.
	URL string

	srv  *httptest.Server
	opts Options

	mu       sync.Mutex
	requests []Request

	firstOnce    sync.Once
	firstToken   chan struct{}
	discOnce     sync.Once
	disconnected chan struct{}
	closeOnce    sync.Once
	done         chan struct{}
}

// New starts a fake speaking kind. Call Close when done (Start does it for
// tests).
func New(kind string, opts Options) (*Server, error) {
	if !slices.Contains(Kinds, kind) {
		return nil, fmt.Errorf("fakellm: unknown kind %q", kind)
	}
	if len(opts.Tokens) == 0 {
		opts.Tokens = DefaultTokens
	}
	s := &Server{
		Kind:         kind,
		opts:         opts,
		firstToken:   make(chan struct{}),
		disconnected: make(chan struct{}),
		done:         make(chan struct{}),
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s, nil
}

// Start is New for tests and benchmarks: it fails tb on error and closes the
// server in tb.Cleanup.
func Start(tb testing.TB, kind string, opts Options) *Server {
	tb.Helper()
	s, err := New(kind, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Close stops the server. Streams still held or hanging are released first,
// because httptest.Server.Close waits for every handler to return.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// FirstToken is closed once the server has flushed the first token of any
// stream.
func (s *Server) FirstToken() <-chan struct{} { return s.firstToken }

// Disconnected is closed once a client went away (request context done or a
// failed write) before its stream was complete.
func (s *Server) Disconnected() <-chan struct{} { return s.disconnected }

// Requests returns a copy of every request received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// LastRequest returns the most recent request, and false if there was none.
func (s *Server) LastRequest() (Request, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return Request{}, false
	}
	return s.requests[len(s.requests)-1], true
}

// Answer is the full text the fake streams.
func (s *Server) Answer() string { return strings.Join(s.opts.Tokens, "") }

func (s *Server) markDisconnected() { s.discOnce.Do(func() { close(s.disconnected) }) }
func (s *Server) markFirstToken()   { s.firstOnce.Do(func() { close(s.firstToken) }) }

// encoder writes one protocol's frames.
type encoder interface {
	contentType() string
	start(w io.Writer, model string, promptTokens int) error
	token(w io.Writer, model, text string, i int, last bool, usage [2]int) error
	end(w io.Writer, model string, usage [2]int) error
	malformed(w io.Writer) error
	errorBody(status int) any
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	if s.Kind == OpenAI && strings.HasSuffix(r.URL.Path, "/embeddings") {
		s.serveEmbeddings(w, r, body)
		return
	}
	enc, req, ok := s.parse(w, r, body)
	if !ok {
		return
	}
	req.At = at
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if s.opts.Status != 0 {
		s.refuse(w, enc)
		return
	}
	st := &reply{s: s, w: w, ctx: r.Context(), enc: enc, req: req}
	st.flusher, _ = w.(http.Flusher)
	w.Header().Set("Content-Type", enc.contentType())
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	st.flush()
	switch {
	case s.opts.HangBeforeFirst:
		st.wait(nil)
	case s.opts.Malformed:
		_ = enc.malformed(w)
		st.flush()
	default:
		st.stream()
	}
}

// parse picks the wire format from the path and decodes the request; it
// answers 404 or 400 itself and reports false then.
func (s *Server) parse(w http.ResponseWriter, r *http.Request, body []byte) (encoder, Request, bool) {
	var enc encoder
	var req Request
	var err error
	switch {
	case s.Kind == OpenAI && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		enc, err = openaiEncoder{}, parseOpenAI(body, &req)
	case s.Kind == Anthropic && strings.HasSuffix(r.URL.Path, "/messages"):
		enc, err = anthropicEncoder{}, parseAnthropic(body, &req)
	case s.Kind == Gemini && r.URL.Path == "/v1beta/openai/chat/completions":
		enc, err = geminiEncoder{}, parseOpenAI(body, &req)
	case s.Kind == Ollama && r.URL.Path == "/api/chat":
		enc, err = ollamaEncoder{}, parseOllama(body, &req)
	default:
		http.NotFound(w, r)
		return nil, req, false
	}
	if err != nil {
		http.Error(w, "fakellm: cannot parse request: "+err.Error(), http.StatusBadRequest)
		return nil, req, false
	}
	req.Path, req.Header, req.Body = r.URL.Path, r.Header.Clone(), body
	return enc, req, true
}

// refuse answers with the configured error status in the provider's error shape.
func (s *Server) refuse(w http.ResponseWriter, enc encoder) {
	w.Header().Set("Content-Type", "application/json")
	if s.opts.Status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(s.opts.Status)
	_ = json.NewEncoder(w).Encode(enc.errorBody(s.opts.Status))
}

// reply is one streamed answer in progress.
type reply struct {
	s       *Server
	w       http.ResponseWriter
	flusher http.Flusher
	ctx     context.Context
	enc     encoder
	req     Request
}

func (st *reply) flush() {
	if st.flusher != nil {
		st.flusher.Flush()
	}
}

// wait blocks on ch (nil: never ready) and reports false when the client
// went away or the server is closing.
func (st *reply) wait(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-st.ctx.Done():
		st.s.markDisconnected()
		return false
	case <-st.s.done:
		return false
	}
}

// pace waits for the next tick and reports false when the client went away
// or the server is closing.
func (st *reply) pace(tick <-chan time.Time) bool {
	select {
	case <-tick:
		return true
	case <-st.ctx.Done():
		st.s.markDisconnected()
		return false
	case <-st.s.done:
		return false
	}
}

// write sends one frame and reports false when the client is gone.
func (st *reply) write(f func(io.Writer) error) bool {
	if err := f(st.w); err != nil {
		st.s.markDisconnected()
		return false
	}
	st.flush()
	return true
}

// usage is the prompt and completion token counts the reply reports.
func (st *reply) usage() [2]int {
	u := [2]int{st.s.opts.PromptTokens, st.s.opts.CompletionTokens}
	if u[0] == 0 {
		u[0] = wordCount(st.req.System) + wordCount(joinMessages(st.req.Messages))
	}
	if u[1] == 0 {
		u[1] = wordCount(strings.Join(st.tokens(), ""))
	}
	return u
}

// tokens are what this reply streams.
func (st *reply) tokens() []string {
	out := st.s.opts.Tokens
	if st.s.opts.Respond != nil {
		out = st.s.opts.Respond(st.req)
	}
	if st.s.opts.LimitTokens && st.req.MaxTokens > 0 && len(out) > st.req.MaxTokens {
		out = out[:st.req.MaxTokens]
	}
	return out
}

// hold is the channel this reply waits on after its first token, or nil.
func (st *reply) hold() <-chan struct{} {
	if st.s.opts.HoldOn != nil {
		return st.s.opts.HoldOn(st.req)
	}
	return st.s.opts.Hold
}

// stream writes the configured tokens at the configured pace.
func (st *reply) stream() {
	opts, model, usage := st.s.opts, st.req.Model, st.usage()
	if !st.write(func(w io.Writer) error { return st.enc.start(w, model, usage[0]) }) {
		return
	}
	if opts.FirstTokenDelay > 0 {
		select {
		case <-time.After(opts.FirstTokenDelay):
		case <-st.ctx.Done():
			return
		}
	}
	var tick <-chan time.Time
	if opts.TokensPerSecond > 0 {
		t := time.NewTicker(time.Duration(float64(time.Second) / opts.TokensPerSecond))
		defer t.Stop()
		tick = t.C
	}
	tokens := st.tokens()
	for i, tok := range tokens {
		if tick != nil && i > 0 && !st.pace(tick) {
			return
		}
		last := i == len(tokens)-1
		if !st.write(func(w io.Writer) error { return st.enc.token(w, model, tok, i, last, usage) }) {
			return
		}
		if i == 0 {
			st.s.markFirstToken()
			if hold := st.hold(); hold != nil && !st.wait(hold) {
				return
			}
		}
		if st.ctx.Err() != nil {
			st.s.markDisconnected()
			return
		}
	}
	if opts.StallAfterTokens {
		st.wait(nil)
		return
	}
	st.write(func(w io.Writer) error { return st.enc.end(w, model, usage) })
}

func wordCount(s string) int { return len(strings.Fields(s)) }

func joinMessages(ms []Message) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.Content)
		b.WriteByte(' ')
	}
	return b.String()
}

// textOf reads a message content that is either a string or an array of
// typed parts ({"type":"text","text":...}), as OpenAI and Anthropic allow.
func textOf(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("content is neither a string nor parts: %w", err)
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "" || p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

func normaliseRole(role string) string {
	if role == "assistant" || role == "ai" {
		return "assistant"
	}
	return role
}

var errNoMessages = errors.New("no messages")
