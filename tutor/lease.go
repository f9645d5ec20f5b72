package tutor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"aula/models"
)

// Scale-out defaults (several processes on one database).
const (
	// DefaultLeaseTTL is how long an answer's lease outlives its owner's
	// last heartbeat: a dead process's answers fail within
	// LeaseTTL + SweepInterval.
	DefaultLeaseTTL = 15 * time.Second
	// DefaultFlushInterval and DefaultFlushBytes batch the answer text
	// written to the row (and the notifications that follow): a write at
	// most every interval, or sooner once that many bytes are waiting.
	DefaultFlushInterval = 100 * time.Millisecond
	DefaultFlushBytes    = 4096
	// DefaultPollInterval is how often a follower on another process
	// re-reads the row without a notification: the safety net while its
	// LISTEN connection is being re-established.
	DefaultPollInterval = time.Second
)

// errLeaseLost ends a generation whose row another process already ended.
var errLeaseLost = fmt.Errorf("tutor: %w", models.ErrLeaseLost)

// NewInstanceID names a process for leases and logs: host, pid and a
// random suffix, so a restarted process (same host, maybe the same pid
// in a container) never inherits the leases of its predecessor.
func NewInstanceID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "aula"
	}
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// InstanceID is the id this service writes into the leases it holds.
func (s *Service) InstanceID() string { return s.id }

func (s *Service) lease() models.Lease { return models.Lease{Owner: s.id, TTL: s.cfg.LeaseTTL} }

// heartbeat renews this process's leases every LeaseTTL/3, so two missed
// beats still leave the lease valid.
func (s *Service) heartbeat(ctx context.Context) {
	defer s.bg.Done()
	tick := time.NewTicker(s.cfg.LeaseTTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		ids := s.hub.ids()
		if len(ids) == 0 {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, s.cfg.LeaseTTL/3)
		if _, err := s.streams.Renew(rctx, s.id, ids, s.cfg.LeaseTTL); err != nil && ctx.Err() == nil {
			s.log.Warn("tutor: renew leases", "answers", len(ids), "err", err)
		}
		cancel()
	}
}

// sweep fails the answers of processes that stopped renewing their
// leases, every SweepInterval; every process sweeps, and the statement's
// row locks make concurrent sweeps harmless.
func (s *Service) sweep(ctx context.Context) {
	defer s.bg.Done()
	tick := time.NewTicker(s.cfg.SweepInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s.sweepOnce(ctx)
	}
}

func (s *Service) sweepOnce(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, persistTimeout)
	defer cancel()
	ids, err := s.streams.FailExpired(rctx, s.now())
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("tutor: sweep expired leases", "err", err)
		}
		return
	}
	if len(ids) > 0 {
		s.log.Warn("tutor: answers of a stopped process marked failed", "count", len(ids))
	}
}
