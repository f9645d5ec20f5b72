package tutor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tmc/langchaingo/embeddings"
	"gorm.io/gorm"

	"aula/models"
	"aula/tutor/stream"
)

// Service defaults.
const (
	DefaultFirstTokenTimeout = 30 * time.Second
	DefaultAnswerTimeout     = 3 * time.Minute
	DefaultMaxAnswerBytes    = 64 << 10
	MaxQuestionChars         = 4000
	maxAttachmentChars       = 20000
	persistTimeout           = 10 * time.Second
)

// Error codes stored in messages.error_code and sent in `error` events.
const (
	CodeNoCredentials     = "no_credentials"
	CodeUnknownProvider   = "unknown_provider"
	CodeProviderError     = "provider_error" // a provider failure with no finer code (see ProviderError codes)
	CodeFirstTokenTimeout = "first_token_timeout"
	CodeAnswerTimeout     = "answer_timeout"
	CodeEmptyAnswer       = "empty_answer"
	CodeInterrupted       = "interrupted"
	CodeContextError      = "context_error"
)

// Errors the fronts render.
var (
	// ErrQuotaExceeded is the month's plan limit; the error is a
	// *models.QuotaError with the used count, the limit and the reset date.
	ErrQuotaExceeded = models.ErrQuotaExceeded
	// ErrEmptyQuestion is a question with no text and no attachment.
	ErrEmptyQuestion = errors.New("the question is empty")
	// ErrQuestionTooLong is a question over MaxQuestionChars characters.
	ErrQuestionTooLong = fmt.Errorf("the question is longer than %d characters", MaxQuestionChars)
	// ErrNotRetryable is a retry of an answer still being generated.
	ErrNotRetryable = models.ErrNotRetryable
	// ErrClosed is a question after Close.
	ErrClosed = errors.New("tutor service is shutting down")
)

// QuotaError is the detail of ErrQuotaExceeded.
type QuotaError = models.QuotaError

// Causes of a generation's end, told apart through context.Cause (the
// stream package sets the others: stop, shutdown, lease lost).
var (
	errFirstTokenTimeout = errors.New("no first token in time")
	errAnswerTimeout     = errors.New("answer took too long")
	errAnswerTooLong     = errors.New("answer reached the size cap")
)

// Config is what a Service is built from.
type Config struct {
	DB          *gorm.DB
	Credentials Credentials
	Logger      *slog.Logger
	// DefaultProvider and DefaultModel seed the ai_routes rows that are
	// missing at Start; "" means offline.
	DefaultProvider string
	DefaultModel    string

	FirstTokenTimeout time.Duration // default 30s
	AnswerTimeout     time.Duration // default 3m
	MaxAnswerBytes    int           // default 64 KiB; longer answers are cut and flagged
	HistoryMessages   int           // default 24
	HistoryTokens     int           // default 3000 (about 4 characters a token)
	LessonBudget      int           // default 8000 characters
	TopK              int           // retrieved chunks, default 5

	// Now is the clock (quota periods, timestamps); tests move it.
	Now func() time.Time
	// NewProvider builds a provider for a route; default NewProvider.
	NewProvider func(ctx context.Context, name, model string, creds Credentials) (Provider, error)
	// CheckCredentials says whether a provider can be used; default CheckCredentials.
	CheckCredentials func(name string, creds Credentials) error
	// NewEmbedder builds the embeddings route's embedder; default NewEmbedder.
	NewEmbedder func(name, model string, creds Credentials) (embeddings.Embedder, error)
	// QueryEmbedTimeout bounds the one embeddings call on a question's
	// path (default 300ms): past it the turn ranks by words alone.
	QueryEmbedTimeout time.Duration
	// EmbedInterval is how often Start's loop embeds changed sections
	// (default 1m); a negative interval runs no loop (tests embed by hand).
	EmbedInterval time.Duration

	// Stream tunes the answers in flight: leases, batching, the LISTEN
	// connection (its DatabaseURL) and polling; its clock defaults to Now.
	Stream stream.Config
}

// withDefaults fills in what the caller left unset.
func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.DefaultProvider == "" {
		c.DefaultProvider = ProviderOffline
	}
	positive(&c.FirstTokenTimeout, DefaultFirstTokenTimeout)
	positive(&c.AnswerTimeout, DefaultAnswerTimeout)
	positive(&c.MaxAnswerBytes, DefaultMaxAnswerBytes)
	positive(&c.HistoryMessages, DefaultHistoryMessages)
	positive(&c.HistoryTokens, DefaultHistoryTokens)
	positive(&c.LessonBudget, DefaultLessonBudget)
	positive(&c.TopK, DefaultTopK)
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.NewProvider == nil {
		c.NewProvider = NewProvider
	}
	if c.CheckCredentials == nil {
		c.CheckCredentials = CheckCredentials
	}
	if c.NewEmbedder == nil {
		c.NewEmbedder = NewEmbedder
	}
	positive(&c.QueryEmbedTimeout, DefaultQueryEmbedTimeout)
	if c.EmbedInterval == 0 {
		c.EmbedInterval = DefaultEmbedInterval
	}
	if c.Stream.Now == nil {
		c.Stream.Now = c.Now
	}
	return c
}

// positive sets *v to def unless it is above zero.
func positive[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}
