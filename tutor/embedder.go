package tutor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms/openai"

	"aula/models"
)

// Default embedding model of each provider that offers embeddings.
const (
	DefaultOpenAIEmbeddingModel   = "text-embedding-3-small"
	DefaultGoogleAIEmbeddingModel = "text-embedding-004"
	DefaultOllamaEmbeddingModel   = "nomic-embed-text"
)

// ErrNoEmbeddings means a provider offers no embeddings (Anthropic), or
// the embeddings route is off (offline).
var ErrNoEmbeddings = errors.New("this provider offers no embeddings (openai, googleai or ollama do; offline turns them off)")

// embedBatch is how many texts one provider call embeds.
const embedBatch = 64

// DefaultEmbeddingModel returns the embedding model a provider uses when
// the route names none, "" when it offers no embeddings.
func DefaultEmbeddingModel(provider string) string {
	switch provider {
	case ProviderOpenAI:
		return DefaultOpenAIEmbeddingModel
	case ProviderGoogleAI:
		return DefaultGoogleAIEmbeddingModel
	case ProviderOllama:
		return DefaultOllamaEmbeddingModel
	}
	return ""
}

// CheckEmbeddings says whether a provider can serve the embeddings route:
// nil for offline (the route off) and for a provider that offers
// embeddings and has credentials; ErrNoEmbeddings, ErrNoCredentials or
// ErrUnknownProvider otherwise.
func CheckEmbeddings(name string, creds Credentials) error {
	return checkEmbeddings(name, func(name string) error { return CheckCredentials(name, creds) })
}

// CheckEmbeddings is CheckEmbeddings with aula's credentials, for the
// admin saving the embeddings route.
func (s *Service) CheckEmbeddings(name string) error {
	return checkEmbeddings(name, s.CheckProvider)
}

func checkEmbeddings(name string, credentials func(string) error) error {
	if name == ProviderOffline {
		return nil
	}
	if err := credentials(name); err != nil {
		return err
	}
	if DefaultEmbeddingModel(name) == "" {
		return fmt.Errorf("%s: %w", name, ErrNoEmbeddings)
	}
	return nil
}

// VectorsReady reports whether the database stores section vectors
// (pgvector), which the embeddings route needs to do anything.
func (s *Service) VectorsReady() bool { return s.retr.vectors.ready.Load() }

// NewEmbedder builds langchaingo's embedder for provider name and model
// ("" for the provider's default): OpenAI's /embeddings (any
// OpenAI-compatible server, Gemini's included) or Ollama's /api/embed.
// ErrNoEmbeddings for offline and for a provider without embeddings.
func NewEmbedder(name, model string, creds Credentials) (embeddings.Embedder, error) {
	if name == ProviderOffline {
		return nil, ErrNoEmbeddings
	}
	if err := CheckEmbeddings(name, creds); err != nil {
		return nil, err
	}
	model = cmp.Or(model, DefaultEmbeddingModel(name))
	var client embeddings.EmbedderClient
	var err error
	switch name {
	case ProviderOpenAI:
		client, err = openAICompatible(name, creds.OpenAIBaseURL, defaultOpenAIBaseURL, "/v1", cmp.Or(creds.OpenAIKey, "no-key"),
			openai.WithEmbeddingModel(model))
	case ProviderGoogleAI:
		client, err = openAICompatible(name, creds.GoogleEndpoint, defaultGoogleAIBaseURL, "/v1beta/openai", creds.GoogleKey,
			openai.WithEmbeddingModel(model))
	case ProviderOllama:
		client, err = ollamaClient(creds.OllamaHost, model)
	}
	if err != nil {
		return nil, err
	}
	return embeddings.NewEmbedder(client, embeddings.WithBatchSize(embedBatch))
}

// embeddingModel names the vectors a route makes, as chunk_embeddings
// stores them: provider and model, so another model's are never compared.
func embeddingModel(r models.AIRoute) string {
	return r.Provider + ":" + cmp.Or(r.Model, DefaultEmbeddingModel(r.Provider))
}

// TestEmbeddings embeds a short text through the embeddings route r and
// returns what an admin's route test shows: the vector's length and how
// long the call took.
func (s *Service) TestEmbeddings(ctx context.Context, r models.AIRoute) (int, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, RouteTestTimeout)
	defer cancel()
	e, err := s.cfg.NewEmbedder(r.Provider, r.Model, s.cfg.Credentials)
	if err != nil {
		return 0, 0, fmt.Errorf("test route %s: %w", r.UseCase, err)
	}
	start := time.Now()
	v, err := e.EmbedQuery(ctx, routeTestPrompt)
	latency := time.Since(start)
	if err != nil {
		return 0, latency, fmt.Errorf("test route %s (%s): %w", r.UseCase, r.Provider, err)
	}
	return len(v), latency, nil
}
