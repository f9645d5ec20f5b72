package tutor

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// RouteTestTimeout bounds an admin's route test.
const RouteTestTimeout = 30 * time.Second

// routeTestPrompt is the short question a route test sends.
const routeTestPrompt = "Reply with one short sentence: are you there?"

// TestRoute sends a short prompt through the saved route of useCase and
// returns the answer and how long the whole answer took, so an admin can
// see a provider work before students depend on it.
func (s *Service) TestRoute(ctx context.Context, useCase string) (answer string, latency time.Duration, err error) {
	r, err := s.route(ctx, useCase)
	if err != nil {
		return "", 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, RouteTestTimeout)
	defer cancel()
	p, err := s.cfg.NewProvider(ctx, r.Provider, r.Model, s.cfg.Credentials)
	if err != nil {
		return "", 0, fmt.Errorf("test route %s: %w", useCase, err)
	}
	var b strings.Builder
	start := time.Now()
	_, err = p.Stream(ctx, Request{System: "You are a connectivity check. Answer briefly.", Question: routeTestPrompt,
		Model: r.Model, Temperature: r.Temperature, MaxTokens: min(r.MaxTokens, 64), Lang: "en", Mode: "tutor"},
		func(tok string) error { b.WriteString(tok); return nil })
	latency = time.Since(start)
	if err != nil {
		return b.String(), latency, fmt.Errorf("test route %s (%s): %w", useCase, r.Provider, err)
	}
	return strings.TrimSpace(b.String()), latency, nil
}

// Now is the service's clock in UTC, the one quota periods follow; the
// fronts use it for the usage bar so both agree at a month's edge.
func (s *Service) Now() time.Time { return s.now() }
