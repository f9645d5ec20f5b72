// Package tutor is the AI engine every front calls: providers, prompts,
// history window, retrieval, language detection and Service.Ask, whose
// answers stream through the stream package.
package tutor

import (
	"context"
	"errors"

	"aula/models"
)

// Provider names, as stored in ai_routes.provider.
const (
	ProviderOffline   = "offline"
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderGoogleAI  = "googleai"
	ProviderOllama    = "ollama"
)

// Providers lists every provider aula knows, in the order admins see them.
var Providers = []string{ProviderOffline, ProviderOpenAI, ProviderAnthropic, ProviderGoogleAI, ProviderOllama}

// ErrNoCredentials means a route names a provider aula has no credentials for.
var ErrNoCredentials = errors.New("provider has no credentials configured")

// ErrUnknownProvider means a provider name aula does not know.
var ErrUnknownProvider = errors.New("unknown provider")

// Turn is one earlier message of the conversation as the model sees it.
type Turn struct {
	Role    string // "user" or "assistant"
	Content string
}

// Source is a retrieved lesson or help chunk the answer may draw on.
type Source models.Chunk

// Request is everything a provider needs to answer one question.
type Request struct {
	System      string   // system prompt
	History     []Turn   // earlier turns, oldest first, already windowed
	Question    string   // the current user turn (attachment text included)
	Model       string   // model name; empty means the provider's default
	Temperature float64  // sampling temperature, passed as is (0 is deterministic)
	MaxTokens   int      // 0 means the provider's default
	Lang        string   // "en" or "es": the language to answer in
	Mode        string   // "lesson", "tutor" or "help"
	Sources     []Source // retrieved chunks; the offline provider answers from these
	// Style is the conversation's answer style ("explain" or "guide"). Model
	// providers get it through System; the offline provider honours "guide"
	// by offering a hint and a question back instead of the whole answer.
	Style string
	// Partial is the end of the answer written so far (its last
	// ContinueTailBytes at most), when a stopped answer is continued: the
	// model is shown it and asked to go on without repeating it (see
	// buildMessages).
	Partial string
}

// Usage is what the provider reports (or aula estimates) about token counts.
type Usage struct {
	TokensIn  int
	TokensOut int
	// Uncounted marks an answer that does not count against the student's
	// quota: the offline tutor saying the material does not cover the
	// question, or introducing itself.
	Uncounted bool
}

// Provider streams an answer. It calls onToken with each piece of text the
// moment the upstream emits it; an error from onToken aborts the upstream
// request. Cancelling ctx stops the request at once.
type Provider interface {
	Name() string
	Stream(ctx context.Context, req Request, onToken func(string) error) (Usage, error)
}

// Credentials hold what each provider needs, from the environment.
type Credentials struct {
	OpenAIKey        string
	OpenAIBaseURL    string
	AnthropicKey     string
	AnthropicBaseURL string
	GoogleKey        string
	GoogleEndpoint   string // tests point Gemini at a fake server
	OllamaHost       string
	// OfflineTokenDelay paces the offline provider's tokens (0: as fast as possible).
	OfflineTokenDelayMs int
}
