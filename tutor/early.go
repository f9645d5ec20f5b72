package tutor

import (
	"context"
	"sync"
	"time"

	"aula/models"
)

// A prepared request is ready while the question is still being recorded
// (the recording writes, under a class's burst, for longer than the reads
// take). Its provider call starts then, not after: the first tokens wait
// in memory for the generation, which the recorded turn launches, and a
// refused question (or a turn that proves the preparation wrong) ends the
// call at once. Nothing reaches the student before the question is
// recorded and counted: the answer's readers only subscribe once Ask has
// returned.
//
// A refused question may thus have started a provider call. A student
// this process has refused for the month's quota gets no early call for
// the rest of the month, so an account at its limit cannot make the
// school pay for calls by asking again and again.

// earlyCall is a provider call started before its generation: the
// tokens it streamed and, once it ended, its usage and error.
type earlyCall struct {
	end context.CancelFunc // ends the call (its context)

	mu    sync.Mutex
	toks  []string // streamed, not yet handed to the generation
	over  bool
	usage Usage
	err   error
	wake  chan struct{} // a token came or the call ended (capacity 1)
	ended chan struct{} // closed when the call returned
}

// startEarly starts req on prov under ctx (ended by end) and returns the
// provider the generation streams it through.
func startEarly(ctx context.Context, end context.CancelFunc, prov Provider, req Request) Provider {
	c := &earlyCall{end: end, wake: make(chan struct{}, 1), ended: make(chan struct{})}
	go func() {
		usage, err := prov.Stream(ctx, req, c.push)
		c.mu.Lock()
		c.over, c.usage, c.err = true, usage, err
		c.mu.Unlock()
		c.signal()
		close(c.ended)
	}()
	return &earlyProvider{inner: prov, call: c}
}

// push keeps a token for the generation.
func (c *earlyCall) push(tok string) error {
	c.mu.Lock()
	c.toks = append(c.toks, tok)
	c.mu.Unlock()
	c.signal()
	return nil
}

// signal wakes the generation without ever blocking the call.
func (c *earlyCall) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// take hands over the tokens streamed so far, and whether the call ended.
func (c *earlyCall) take() (toks []string, over bool, usage Usage, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	toks, c.toks = c.toks, nil
	return toks, c.over, c.usage, c.err
}

// earlyProvider is the provider of a prepared request whose call already
// started: Stream replays what the call streamed, then follows it. req
// is the request the call was started with (the prepared one).
type earlyProvider struct {
	inner Provider
	call  *earlyCall
}

// Name is the real provider's.
func (p *earlyProvider) Name() string { return p.inner.Name() }

// Model is the real provider's default model.
func (p *earlyProvider) Model() string { return ModelOf(p.inner) }

// Stream hands the call's tokens to onToken as they come. ctx ending, or
// onToken refusing a token, ends the call, as it would end a call made
// here; Stream returns once the call has.
func (p *earlyProvider) Stream(ctx context.Context, _ Request, onToken func(string) error) (Usage, error) {
	return p.follow(ctx, onToken)
}

// follow is Stream without the request, which the call already sent: the
// generation follows the call through it (see ready.sender).
func (p *earlyProvider) follow(ctx context.Context, onToken func(string) error) (Usage, error) {
	c := p.call
	stop := context.AfterFunc(ctx, c.end)
	defer stop()
	defer c.end()
	for {
		toks, over, usage, err := c.take()
		for _, tok := range toks {
			if onErr := onToken(tok); onErr != nil {
				c.end()
				<-c.ended
				return Usage{}, onErr
			}
		}
		if over {
			return usage, err
		}
		<-c.wake
	}
}

// mayStartEarly says whether userID's prepared request may call the
// provider before the question is recorded: not once this process has
// refused them for this month's quota.
func (s *Service) mayStartEarly(userID string) bool {
	period, ok := s.overQuota.Load(userID)
	if !ok {
		return true
	}
	if period != models.Period(s.now()).Format(time.DateOnly) {
		s.overQuota.Delete(userID) // a new month, new questions
		return true
	}
	return false
}

// noteOverQuota remembers that userID was refused for this month's quota.
func (s *Service) noteOverQuota(userID string) {
	s.overQuota.Store(userID, models.Period(s.now()).Format(time.DateOnly))
}
