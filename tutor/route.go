package tutor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"aula/models"
)

// SessionInfo is which provider and model answer questions now.
type SessionInfo struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Offline  bool   `json:"offline"`
	// DisplayName is the name an admin gave the route, "" when none.
	DisplayName string `json:"display_name"`
}

// Wrote reports whether the route answering now is the one that wrote an
// answer stored with provider and model (its display name is then that answer's).
func (i SessionInfo) Wrote(provider, model string) bool {
	return provider == i.Provider && model == cmp.Or(i.Model, DefaultModel(i.Provider))
}

// SessionInfo reports the tutor_chat route.
func (s *Service) SessionInfo(ctx context.Context) (SessionInfo, error) {
	r, err := s.route(ctx, models.UseTutorChat)
	if err != nil {
		return SessionInfo{}, err
	}
	return SessionInfo{Provider: r.Provider, Model: r.Model, Offline: r.Provider == ProviderOffline, DisplayName: r.DisplayName}, nil
}

// CheckProvider says whether aula can use a provider: a known one it has
// credentials for (errors.Is ErrNoCredentials or ErrUnknownProvider).
func (s *Service) CheckProvider(name string) error {
	return s.cfg.CheckCredentials(name, s.cfg.Credentials)
}

// OpenProvider builds the provider a route names, with aula's credentials.
func (s *Service) OpenProvider(ctx context.Context, r models.AIRoute) (Provider, error) {
	if err := s.CheckProvider(r.Provider); err != nil {
		return nil, err
	}
	return s.cfg.NewProvider(ctx, r.Provider, r.Model, s.cfg.Credentials)
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

// RouteTestTimeout bounds an admin's route test.
const RouteTestTimeout = 30 * time.Second

// routeTestPrompt is the short question a route test sends.
const routeTestPrompt = "Reply with one short sentence: are you there?"

// TestRoute sends a short prompt through p, the provider of route r, and
// returns the answer and how long the whole answer took, so an admin can
// see a provider work before students depend on it.
func TestRoute(ctx context.Context, p Provider, r models.AIRoute) (answer string, latency time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, RouteTestTimeout)
	defer cancel()
	var b strings.Builder
	start := time.Now()
	_, err = p.Stream(ctx, Request{System: "You are a connectivity check. Answer briefly.", Question: routeTestPrompt,
		Model: r.Model, Temperature: r.Temperature, MaxTokens: min(r.MaxTokens, 64), Lang: "en", Mode: "tutor"},
		func(tok string) error { b.WriteString(tok); return nil })
	latency = time.Since(start)
	if err != nil {
		return b.String(), latency, fmt.Errorf("test route %s (%s): %w", r.UseCase, r.Provider, err)
	}
	return strings.TrimSpace(b.String()), latency, nil
}

// Now is the service's clock in UTC, the one quota periods follow; the
// fronts use it for the usage bar so both agree at a month's edge.
func (s *Service) Now() time.Time { return s.now() }

// AnswersOffline reports whether students' questions go to the built-in
// offline tutor, which admins are told (students never are) so they can
// connect a language model.
func (s *Service) AnswersOffline(ctx context.Context) (bool, error) {
	r, err := s.route(ctx, models.UseTutorChat)
	if err != nil {
		return false, err
	}
	return r.Provider == ProviderOffline, nil
}
