package apptest

import (
	"context"
	"fmt"
	"sync"

	"aula/tutor"
)

// Scripted is a tutor.Provider whose answers the test writes. It records
// every Request it gets; Answer (nil: "Answer N.") writes answer n, counted
// from 0, through emit and may block, fail or hang on ctx.
type Scripted struct {
	mu     sync.Mutex
	reqs   []tutor.Request
	Answer func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error
}

// Name names the provider in the logs.
func (p *Scripted) Name() string { return "Scripted" }

// Stream records req and writes the scripted answer.
func (p *Scripted) Stream(ctx context.Context, req tutor.Request, onToken func(string) error) (tutor.Usage, error) {
	p.mu.Lock()
	n := len(p.reqs)
	p.reqs = append(p.reqs, req)
	f := p.Answer
	p.mu.Unlock()
	if f == nil {
		return tutor.Usage{}, onToken(fmt.Sprintf("Answer %d.", n+1))
	}
	return tutor.Usage{}, f(ctx, n, req, onToken)
}

// Requests is a copy of the requests the provider got, in order.
func (p *Scripted) Requests() []tutor.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]tutor.Request(nil), p.reqs...)
}

// SetAnswer replaces the script for the answers to come.
func (p *Scripted) SetAnswer(f func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error) {
	p.mu.Lock()
	p.Answer = f
	p.mu.Unlock()
}

// WithProvider makes every tutor_chat generation use p.
func WithProvider(p tutor.Provider) func(*tutor.Config) {
	return func(c *tutor.Config) {
		c.NewProvider = func(context.Context, string, string, tutor.Credentials) (tutor.Provider, error) { return p, nil }
	}
}

// EmitAll sends tokens one by one, stopping at the first refusal.
func EmitAll(emit func(string) error, tokens ...string) error {
	for _, tok := range tokens {
		if err := emit(tok); err != nil {
			return err
		}
	}
	return nil
}

// Numbered is a provider answering "Version N." to its Nth request, so a
// test can tell regenerated versions apart.
func Numbered() *Scripted {
	return &Scripted{Answer: func(_ context.Context, n int, _ tutor.Request, emit func(string) error) error {
		return emit(fmt.Sprintf("Version %d.", n+1))
	}}
}
