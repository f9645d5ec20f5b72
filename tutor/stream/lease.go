package stream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"aula/models"
)

// Batching and polling defaults (several processes on one database).
const (
	// DefaultFlushInterval is how often the text of the answers in
	// flight is written to their rows (and followers notified).
	DefaultFlushInterval = 100 * time.Millisecond
	// DefaultPollInterval is how often a follower on another process
	// re-reads the row without a notification: the safety net while its
	// LISTEN connection is being re-established.
	DefaultPollInterval = time.Second
	// sweepTimeout bounds one sweep statement.
	sweepTimeout = 10 * time.Second
)

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

// every runs fn every interval until ctx ends (the heartbeat renews
// this process's leases every LeaseTTL/3, so two missed beats still leave
// a lease valid; every process sweeps, and the sweep's row locks make
// concurrent sweeps harmless).
func (b *Broker) every(ctx context.Context, interval time.Duration, fn func(context.Context)) {
	defer b.bg.Done()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		fn(ctx)
	}
}

// renew pushes forward the leases of the answers generated here, and
// stops (ErrLeaseLost) a generation whose row another process ended: the
// batch writer no longer sees every answer's row, so the heartbeat does.
func (b *Broker) renew(ctx context.Context) {
	ids := b.hub.ids()
	if len(ids) == 0 {
		return
	}
	// Only a generation whose row was written before the statement began
	// can be judged by it (the hub holds answers before their row exists).
	written := b.writer.running()
	rctx, cancel := context.WithTimeout(ctx, b.cfg.LeaseTTL/3)
	defer cancel()
	renewed, err := b.store.Renew(rctx, b.cfg.InstanceID, ids, b.cfg.LeaseTTL)
	b.sawDatabase(err)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn("stream: renew leases", "answers", len(ids), "err", err)
		}
		return
	}
	for _, st := range written {
		if !renewed[st.id] && b.writer.isRunning(st) {
			b.log.Warn("stream: answer taken over by another process; stopping it", "message", st.id)
			st.Cancel(ErrLeaseLost)
		}
	}
}

// Sweep fails, now, the answers whose lease expired (and refunds them),
// unless this process itself could not reach the database lately: an
// owner alive through an outage renews its leases (and stores its
// finished answers) once the database is back, so until every owner has
// had LeaseTTL to do so an expired lease may mean an outage, not a death.
// A process never sweeps the answers it holds itself.
func (b *Broker) Sweep(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, sweepTimeout)
	defer cancel()
	if !b.mayJudge() {
		b.sawDatabase(b.store.Ping(rctx))
		return
	}
	ids, err := b.store.FailExpired(rctx, b.now(), b.cfg.InstanceID, b.hub.ids())
	b.sawDatabase(err)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn("stream: sweep expired leases", "err", err)
		}
		return
	}
	if len(ids) > 0 {
		b.log.Warn("stream: answers of a stopped process marked failed", "count", len(ids))
	}
}

// sawDatabase records whether a statement found the database reachable.
func (b *Broker) sawDatabase(err error) {
	b.healthMu.Lock()
	defer b.healthMu.Unlock()
	switch {
	case models.IsUnavailable(err):
		b.away = true
	case err == nil && b.away:
		b.away, b.back = false, time.Now()
	}
}

// mayJudge reports whether this process has reached the database for at
// least LeaseTTL since it last could not.
func (b *Broker) mayJudge() bool {
	b.healthMu.Lock()
	defer b.healthMu.Unlock()
	return !b.away && (b.back.IsZero() || time.Since(b.back) >= b.cfg.LeaseTTL)
}
