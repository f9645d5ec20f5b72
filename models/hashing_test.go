package models_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"aula/models"
)

func TestHashingBoundsConcurrentHashes(t *testing.T) {
	h := models.NewHashing(2, 64, time.Hour)
	var running, peak, done atomic.Int64
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			err := h.Do(context.Background(), func() {
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				models.HashPassword("a password to hash")
				running.Add(-1)
			})
			if err != nil {
				t.Error(err)
			}
			done.Add(1)
		})
	}
	wg.Wait()
	if peak.Load() > 2 || done.Load() != 40 {
		t.Errorf("peak %d hashes at once (bound 2), %d of 40 done", peak.Load(), done.Load())
	}
}

func TestHashingRefusesPastTheBound(t *testing.T) {
	tests := []struct {
		name  string
		queue int
		wait  time.Duration
	}{
		{"no room to wait", 1, time.Hour},
		{"waited too long", 2, time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := models.NewHashing(1, tt.queue, tt.wait)
			started, release := make(chan struct{}), make(chan struct{})
			go func() { _ = h.Do(context.Background(), func() { close(started); <-release }) }()
			<-started
			defer close(release)
			if err := h.Do(context.Background(), func() { t.Error("ran past the bound") }); !errors.Is(err, models.ErrHashingBusy) {
				t.Errorf("second caller: %v, want ErrHashingBusy", err)
			}
		})
	}
}

// Idle is called once the last of a burst of hashes has ended, and not
// while one is still running or waiting.
func TestHashingIdleAfterTheLastHash(t *testing.T) {
	h := models.NewHashing(1, 8, time.Hour)
	idle := make(chan struct{}, 8)
	h.Idle = func() { idle <- struct{}{} }
	first := make(chan struct{})
	release := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = h.Do(context.Background(), func() { close(first); <-release })
	})
	<-first
	wg.Go(func() { _ = h.Do(context.Background(), func() {}) }) // waits for the slot
	waitQueued(t, h, 2)
	close(release)
	wg.Wait()
	<-idle // the second hash, the last, ended
	select {
	case <-idle:
		t.Error("Idle was called while a hash was still waiting")
	default:
	}
}

// waitQueued waits until n callers are running or waiting in h.
func waitQueued(t *testing.T, h *models.Hashing, n int) {
	t.Helper()
	for h.Queued() < n {
		time.Sleep(time.Millisecond)
	}
}
