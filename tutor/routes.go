package tutor

import (
	"context"
	"errors"
	"fmt"

	"aula/models"
)

// ErrInvalidRoute is a route with a temperature or token limit out of range.
var ErrInvalidRoute = errors.New("temperature must be between 0 and 2 and max tokens between 1 and 32768")

// SessionInfo is which provider and model answer questions now.
type SessionInfo struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Offline  bool   `json:"offline"`
}

// SeedRoutes creates the missing routes (tutor_chat, title, condense) with
// provider and model; routes already chosen are kept.
func (s *Service) SeedRoutes(ctx context.Context, provider, model string) error {
	if provider == "" {
		provider = ProviderOffline
	}
	if err := s.routes.SeedMissing(ctx, provider, model); err != nil {
		return fmt.Errorf("seed routes: %w", err)
	}
	return nil
}

// Routes lists the provider route of every use case.
func (s *Service) Routes(ctx context.Context) ([]models.AIRoute, error) { return s.routes.List(ctx) }

// SaveRoute changes which provider and model serve a use case; the next
// question uses it. A provider aula has no credentials for is refused
// (errors.Is(err, ErrNoCredentials)), as is an unknown one.
func (s *Service) SaveRoute(ctx context.Context, r models.AIRoute) error {
	if err := s.cfg.CheckCredentials(r.Provider, s.cfg.Credentials); err != nil {
		return fmt.Errorf("route %s to %s: %w", r.UseCase, r.Provider, err)
	}
	if r.MaxTokens == 0 {
		r.MaxTokens = 1024
	}
	if r.Temperature < 0 || r.Temperature > 2 || r.MaxTokens < 1 || r.MaxTokens > 32768 {
		return ErrInvalidRoute
	}
	return s.routes.Save(ctx, r)
}

// SessionInfo reports the tutor_chat route.
func (s *Service) SessionInfo(ctx context.Context) (SessionInfo, error) {
	r, err := s.route(ctx, models.UseTutorChat)
	if err != nil {
		return SessionInfo{}, err
	}
	return SessionInfo{Provider: r.Provider, Model: r.Model, Offline: r.Provider == ProviderOffline}, nil
}

// route reads a use case's route on every call, so an admin's change
// applies to the next question; a missing row falls back to the default.
func (s *Service) route(ctx context.Context, useCase string) (*models.AIRoute, error) {
	r, err := s.routes.Get(ctx, useCase)
	if errors.Is(err, models.ErrNotFound) {
		return &models.AIRoute{UseCase: useCase, Provider: s.cfg.DefaultProvider, Model: s.cfg.DefaultModel,
			Temperature: 0.3, MaxTokens: 1024}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read route %s: %w", useCase, err)
	}
	return r, nil
}
