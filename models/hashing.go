package models

import (
	"context"
	"errors"
	"runtime"
	"time"
)

// ErrHashingBusy means too many password hashes are running or waiting:
// the request should be retried in a moment (HTTP 503 with Retry-After).
var ErrHashingBusy = errors.New("too many password checks at once")

// Hashing bounds the argon2id work of sign-in, sign-up and password
// changes: each hash holds 19 MiB, so 40 at once took the process from 377
// to 759 MiB. A few run at once, a bounded number of callers wait (each for
// a bounded time), and past that the caller gets ErrHashingBusy.
type Hashing struct {
	slots chan struct{}
	queue chan struct{}
	wait  time.Duration
	// Idle, when set, is called in a goroutine of its own whenever a hash
	// ends and none is left running or waiting: the hashes' memory is
	// garbage then, and the process can hand it back (cmd/aula does).
	Idle func()
}

// DefaultHashSlots is one hash per CPU, at least two.
func DefaultHashSlots() int { return max(2, runtime.NumCPU()) }

// NewHashing runs at most slots hashes at once, admits at most queue
// callers in all (running or waiting), and lets each wait up to wait.
func NewHashing(slots, queue int, wait time.Duration) *Hashing {
	return &Hashing{slots: make(chan struct{}, slots), queue: make(chan struct{}, queue), wait: wait}
}

// NewDefaultHashing is the bound aula serves with: DefaultHashSlots at once,
// 64 callers in all, waiting up to 3 s.
func NewDefaultHashing() *Hashing { return NewHashing(DefaultHashSlots(), 64, 3*time.Second) }

// RetryAfter is what to tell a caller refused with ErrHashingBusy.
func (h *Hashing) RetryAfter() time.Duration { return h.wait }

// Do runs fn when a slot is free. A nil Hashing runs fn at once (tools and
// tests that hash a few passwords).
func (h *Hashing) Do(ctx context.Context, fn func()) error {
	if h == nil {
		fn()
		return nil
	}
	select {
	case h.queue <- struct{}{}:
	default:
		return ErrHashingBusy
	}
	hashed := false
	defer func() {
		<-h.queue
		if hashed && h.Idle != nil && len(h.queue) == 0 {
			go h.Idle()
		}
	}()
	timer := time.NewTimer(h.wait)
	defer timer.Stop()
	select {
	case h.slots <- struct{}{}:
	case <-timer.C:
		return ErrHashingBusy
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-h.slots }()
	fn()
	hashed = true
	return nil
}

// hash is HashPassword within the bound.
func (h *Hashing) hash(ctx context.Context, password string) (string, error) {
	var out string
	err := h.Do(ctx, func() { out = HashPassword(password) })
	return out, err
}

// check is CheckPassword within the bound.
func (h *Hashing) check(ctx context.Context, hash, password string) (bool, error) {
	var ok bool
	err := h.Do(ctx, func() { ok = CheckPassword(hash, password) })
	return ok, err
}
