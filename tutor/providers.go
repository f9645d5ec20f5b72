package tutor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
)

// Default model of each provider, used when neither the route nor
// AULA_LLM_MODEL names one.
const (
	DefaultOpenAIModel    = "gpt-4o-mini"
	DefaultAnthropicModel = "claude-sonnet-4-5"
	DefaultGoogleAIModel  = "gemini-2.5-flash"
	DefaultOllamaModel    = "llama3.2"
	OfflineModel          = "offline-tutor"
)

// Upstream endpoints used when no base URL is configured. Gemini is reached
// through its OpenAI-compatible endpoint, with the OpenAI client.
const (
	defaultOpenAIBaseURL    = "https://api.openai.com/v1"
	defaultAnthropicBaseURL = "https://api.anthropic.com/v1"
	defaultGoogleAIBaseURL  = "https://generativelanguage.googleapis.com/v1beta/openai"
)

// DefaultModel returns the model a provider uses when none is given, or ""
// for an unknown provider.
func DefaultModel(provider string) string {
	switch provider {
	case ProviderOffline:
		return OfflineModel
	case ProviderOpenAI:
		return DefaultOpenAIModel
	case ProviderAnthropic:
		return DefaultAnthropicModel
	case ProviderGoogleAI:
		return DefaultGoogleAIModel
	case ProviderOllama:
		return DefaultOllamaModel
	}
	return ""
}

// ModelOf returns the model a provider answers with by default (every
// provider built by NewProvider reports one); "" if it does not say.
func ModelOf(p Provider) string {
	if m, ok := p.(interface{ Model() string }); ok {
		return m.Model()
	}
	return ""
}

// credentialsError names the missing variable in its message while still
// matching ErrNoCredentials.
type credentialsError struct{ msg string }

func (e *credentialsError) Error() string { return e.msg }
func (e *credentialsError) Unwrap() error { return ErrNoCredentials }

// CheckCredentials reports whether creds are enough to use provider name:
// nil, an error wrapping ErrNoCredentials that names the variable to set, or
// one wrapping ErrUnknownProvider.
//
// OpenAI is usable with OPENAI_API_KEY, or with only OPENAI_BASE_URL for a
// local OpenAI-compatible server that takes no key. Ollama needs OLLAMA_HOST
// even though it takes no key: routing to a local model nobody configured is
// refused rather than silently tried at 127.0.0.1:11434.
func CheckCredentials(name string, creds Credentials) error {
	switch name {
	case ProviderOffline:
		return nil
	case ProviderOpenAI:
		if creds.OpenAIKey == "" && creds.OpenAIBaseURL == "" {
			return &credentialsError{"openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server without a key)"}
		}
	case ProviderAnthropic:
		if creds.AnthropicKey == "" {
			return &credentialsError{"anthropic needs ANTHROPIC_API_KEY"}
		}
	case ProviderGoogleAI:
		if creds.GoogleKey == "" {
			return &credentialsError{"googleai needs GOOGLE_API_KEY"}
		}
	case ProviderOllama:
		if creds.OllamaHost == "" {
			return &credentialsError{"ollama needs OLLAMA_HOST (for example http://127.0.0.1:11434)"}
		}
	default:
		return fmt.Errorf("%w %q", ErrUnknownProvider, name)
	}
	return nil
}

// NewProvider builds the provider called name, answering with model (""
// for the provider's default). It checks credentials first, so a route to a
// provider without them fails here, not on the first question.
//
// Base URLs: OPENAI_BASE_URL and ANTHROPIC_BASE_URL may be given with or
// without the version path. A URL with no path at all (http://host:8000)
// gets /v1 appended (/v1beta/openai for Gemini's endpoint); one with a path
// is used as is, because compatible servers put the API under paths of
// their own (…/openai/v1, /v1beta/openai).
func NewProvider(ctx context.Context, name, model string, creds Credentials) (Provider, error) {
	if err := CheckCredentials(name, creds); err != nil {
		return nil, err
	}
	model = cmp.Or(model, DefaultModel(name))
	p := &llmProvider{name: name, model: model}
	var err error
	switch name {
	case ProviderOffline:
		return NewOffline(creds.OfflineTokenDelayMs), nil
	case ProviderOpenAI:
		// The client refuses an empty token; servers that need none ignore it.
		p.llm, err = openAICompatible(name, creds.OpenAIBaseURL, defaultOpenAIBaseURL, "/v1",
			cmp.Or(creds.OpenAIKey, "no-key"), openai.WithModel(model))
	case ProviderGoogleAI:
		p.llm, err = openAICompatible(name, creds.GoogleEndpoint, defaultGoogleAIBaseURL, "/v1beta/openai",
			creds.GoogleKey, openai.WithModel(model))
	case ProviderAnthropic:
		base, err := apiBaseURL(creds.AnthropicBaseURL, defaultAnthropicBaseURL, "/v1")
		if err != nil {
			return nil, fmt.Errorf("anthropic: ANTHROPIC_BASE_URL: %w", err)
		}
		p.llm, err = anthropic.New(anthropic.WithToken(creds.AnthropicKey), anthropic.WithBaseURL(base),
			anthropic.WithModel(model), anthropic.WithHTTPClient(upstreamClient))
		if err != nil {
			return nil, fmt.Errorf("anthropic: %w", err)
		}
	case ProviderOllama:
		p.llm, err = ollamaClient(creds.OllamaHost, model)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// ollamaClient builds langchaingo's Ollama client for OLLAMA_HOST.
func ollamaClient(host, model string) (*ollama.LLM, error) {
	if !strings.Contains(host, "://") {
		host = "http://" + host // OLLAMA_HOST is commonly host:port
	}
	if _, err := url.Parse(host); err != nil {
		return nil, fmt.Errorf("ollama: OLLAMA_HOST: %w", err)
	}
	llm, err := ollama.New(ollama.WithServerURL(host), ollama.WithModel(model), ollama.WithHTTPClient(upstreamClient))
	if err != nil {
		return nil, fmt.Errorf("ollama: %w", err)
	}
	return llm, nil
}

// openAICompatible builds langchaingo's OpenAI client for a server speaking
// OpenAI's API: OpenAI itself, or Gemini's compatible endpoint; opts name
// the model (chat) or the embedding model.
func openAICompatible(name, rawBase, defBase, versionPath, token string, opts ...openai.Option) (*openai.LLM, error) {
	base, err := apiBaseURL(rawBase, defBase, versionPath)
	if err != nil {
		return nil, fmt.Errorf("%s: base URL: %w", name, err)
	}
	llm, err := openai.New(append([]openai.Option{openai.WithToken(token), openai.WithBaseURL(base),
		openai.WithHTTPClient(upstreamClient)}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return llm, nil
}

// apiBaseURL applies the base URL rule documented on NewProvider:
// versionPath is appended to a URL without a path.
func apiBaseURL(raw, def, versionPath string) (string, error) {
	if raw == "" {
		return def, nil
	}
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil {
		return "", err
	}
	if u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute URL", raw)
	}
	if u.Path == "" {
		u.Path = versionPath
	}
	return u.String(), nil
}

// upstreamClient is shared by every provider so connections are reused. Its
// transport notes the HTTP status of each response in the call's state,
// because langchaingo's clients report statuses as text, if at all.
var upstreamClient = &http.Client{Transport: &statusTransport{next: upstreamTransport()}}

// upstreamTransport is http.DefaultTransport with 1 KiB connection
// buffers instead of 4 KiB each way: a provider connection carries one
// request body (a larger one is written in pieces) and then a stream of
// short lines, and over HTTP/1.1 every answer in flight holds a
// connection of its own, so the default cost 8 MiB per thousand answers.
func upstreamTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ReadBufferSize, t.WriteBufferSize = 1<<10, 1<<10
	return t
}

type callStateKey struct{}

// callState is what the transport learns about one Stream call.
type callState struct {
	mu     sync.Mutex
	status int
}

func (s *callState) get() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

type statusTransport struct{ next http.RoundTripper }

func (t *statusTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if st, ok := r.Context().Value(callStateKey{}).(*callState); ok && resp != nil {
		st.mu.Lock()
		st.status = resp.StatusCode
		st.mu.Unlock()
	}
	return resp, err
}

var errMalformed = errors.New("stream ended without the provider's end marker")

// llmProvider streams through a langchaingo model.
type llmProvider struct {
	name  string
	model string
	llm   llms.Model
}

func (p *llmProvider) Name() string  { return p.name }
func (p *llmProvider) Model() string { return p.model }

func (p *llmProvider) Stream(ctx context.Context, req Request, onToken func(string) error) (Usage, error) {
	// A call-scoped context ends the upstream request whenever we return,
	// even if a client stopped reading without closing the response.
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	state := &callState{}
	callCtx = context.WithValue(callCtx, callStateKey{}, state)

	s := &sink{onToken: onToken}
	opts := []llms.CallOption{
		llms.WithModel(cmp.Or(req.Model, p.model)),
		llms.WithTemperature(req.Temperature),
		llms.WithStreamingFunc(s.write),
	}
	if req.MaxTokens > 0 {
		opts = append(opts, llms.WithMaxTokens(req.MaxTokens))
	}
	resp, err := p.llm.GenerateContent(callCtx, buildMessages(req), opts...)
	streamed, tokenErr := s.close()
	usage := estimateUsage(req, streamed)

	// langchaingo may return nil with partial text after a cancel.
	if ctxErr := ctx.Err(); ctxErr != nil {
		code := CodeCancelled
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			code = CodeTimeout
		}
		return usage, p.fail(code, 0, ctxErr)
	}
	if tokenErr != nil {
		return usage, p.fail(CodeAborted, 0, tokenErr)
	}
	if err != nil {
		code, status := classify(err, state.get())
		return usage, p.fail(code, status, err)
	}
	var choice *llms.ContentChoice
	if resp != nil && len(resp.Choices) > 0 {
		choice = resp.Choices[0]
	}
	if p.truncated(choice, streamed) {
		return usage, p.fail(CodeMalformedStream, 0, errMalformed)
	}
	if choice != nil {
		in, out := reportedUsage(choice.GenerationInfo)
		usage = Usage{TokensIn: cmp.Or(in, usage.TokensIn), TokensOut: cmp.Or(out, usage.TokensOut)}
	}
	return usage, nil
}

// truncated spots streams that langchaingo accepts although they ended
// before the provider's end marker: the OpenAI client (OpenAI and Gemini)
// skips unparseable lines and stops at EOF without [DONE]; the Ollama
// client returns no message when the final done:true line never came. The
// Anthropic client already fails on such streams.
func (p *llmProvider) truncated(choice *llms.ContentChoice, streamed string) bool {
	switch p.name {
	case ProviderOpenAI, ProviderGoogleAI:
		return choice == nil || choice.StopReason == ""
	case ProviderOllama:
		return choice == nil || (streamed != "" && choice.Content == "")
	}
	return choice == nil
}

func (p *llmProvider) fail(code string, status int, err error) error {
	return &ProviderError{Provider: p.name, Code: code, Status: status, Err: err}
}

// sink forwards streamed chunks to onToken. It is locked and closed because
// some clients call the streaming func from a reader goroutine that can
// outlive GenerateContent; nothing reaches onToken after Stream returns.
type sink struct {
	onToken func(string) error
	mu      sync.Mutex
	text    strings.Builder
	err     error
	closed  bool
}

var errSinkClosed = errors.New("stream already returned")

func (s *sink) write(ctx context.Context, chunk []byte) error {
	if len(chunk) == 0 {
		return nil // role and finish chunks carry no text
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return errSinkClosed
	case s.err != nil:
		return s.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t := string(chunk)
	if err := s.onToken(t); err != nil {
		s.err = err
		return err
	}
	s.text.WriteString(t)
	return nil
}

func (s *sink) close() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return s.text.String(), s.err
}

// buildMessages turns a Request into langchaingo messages: the system
// prompt, the history as real alternating human/AI turns, then the
// question. Consecutive turns of one role are merged and a leading assistant
// turn is dropped, because Anthropic and Gemini reject conversations that do
// not alternate starting with the user.
func buildMessages(req Request) []llms.MessageContent {
	var msgs []llms.MessageContent
	if strings.TrimSpace(req.System) != "" {
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeSystem, req.System))
	}
	var turns []Turn
	for _, t := range req.History {
		if strings.TrimSpace(t.Content) == "" {
			continue
		}
		role := "user"
		if t.Role == "assistant" {
			role = "assistant"
		}
		if len(turns) == 0 && role == "assistant" {
			continue
		}
		if n := len(turns); n > 0 && turns[n-1].Role == role {
			turns[n-1].Content += "\n\n" + t.Content
			continue
		}
		turns = append(turns, Turn{Role: role, Content: t.Content})
	}
	question := req.Question
	if n := len(turns); n > 0 && turns[n-1].Role == "user" {
		question = turns[n-1].Content + "\n\n" + question
		turns = turns[:n-1]
	}
	for _, t := range turns {
		typ := llms.ChatMessageTypeHuman
		if t.Role == "assistant" {
			typ = llms.ChatMessageTypeAI
		}
		msgs = append(msgs, llms.TextParts(typ, t.Content))
	}
	msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, question))
	if strings.TrimSpace(req.Partial) != "" {
		// The stopped answer as the model's own turn, then the request to
		// go on: every provider accepts a conversation ending with the user.
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeAI, req.Partial),
			llms.TextParts(llms.ChatMessageTypeHuman, ContinueInstruction))
	}
	return msgs
}

// ContinueInstruction asks the model to go on with a stopped answer.
const ContinueInstruction = "Your answer above was stopped before it ended. Continue it exactly where it stops, " +
	"in the same language and format, without repeating anything already written and without any preamble."

// reportedUsage reads the token counts langchaingo's clients put in
// GenerationInfo: PromptTokens/CompletionTokens (OpenAI, Gemini, Ollama) or
// InputTokens/OutputTokens (Anthropic), as ints.
func reportedUsage(info map[string]any) (in, out int) {
	for _, k := range []string{"PromptTokens", "InputTokens"} {
		if v, _ := info[k].(int); v > 0 {
			in = v
			break
		}
	}
	for _, k := range []string{"CompletionTokens", "OutputTokens"} {
		if v, _ := info[k].(int); v > 0 {
			out = v
			break
		}
	}
	return in, out
}
