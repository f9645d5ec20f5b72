package models

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// gatedBatcher's first batch waits for release, so the calls made
// meanwhile queue up; it records every batch it ran.
type gatedBatcher struct {
	*batcher[int, int]
	release chan struct{}
	mu      sync.Mutex
	batches [][]int
}

func newGated(workers, max int) *gatedBatcher {
	g := &gatedBatcher{release: make(chan struct{})}
	g.batcher = newBatcher(workers, max, func(_ context.Context, ins []int) ([]int, []error) {
		g.mu.Lock()
		first := len(g.batches) == 0
		g.batches = append(g.batches, slices.Clone(ins))
		g.mu.Unlock()
		if first {
			<-g.release
		}
		outs, errs := make([]int, len(ins)), make([]error, len(ins))
		for i, in := range ins {
			if in < 0 {
				errs[i] = errors.New("negative")
				continue
			}
			outs[i] = in * 10
		}
		return outs, errs
	})
	return g
}

// waitQueued waits until n calls wait in the queue.
func (g *gatedBatcher) waitQueued(t *testing.T, n int) {
	t.Helper()
	for {
		g.mu.Lock()
		g.batcher.mu.Lock()
		q := len(g.queue)
		g.batcher.mu.Unlock()
		g.mu.Unlock()
		if q >= n {
			return
		}
		runtime.Gosched()
	}
}

// waitBatches waits until n batches have started.
func (g *gatedBatcher) waitBatches(n int) {
	for {
		g.mu.Lock()
		started := len(g.batches)
		g.mu.Unlock()
		if started >= n {
			return
		}
		runtime.Gosched()
	}
}

func TestBatcherRunsTheCallsThatWaitTogether(t *testing.T) {
	g := newGated(1, 3)
	ctx := context.Background()
	var wg sync.WaitGroup
	got := make([]int, 8)
	errs := make([]error, 8)
	wg.Go(func() { got[0], errs[0] = g.do(ctx, 0) })
	// The first call runs alone at once: nothing waits for company.
	g.waitBatches(1)
	for i := 1; i < 8; i++ {
		in := i
		if i == 5 {
			in = -5
		}
		wg.Go(func() { got[i], errs[i] = g.do(ctx, in) })
	}
	g.waitQueued(t, 7)
	close(g.release)
	wg.Wait()

	if len(g.batches[0]) != 1 {
		t.Errorf("first batch %v, want the first call alone", g.batches[0])
	}
	sizes := []int{}
	for _, b := range g.batches[1:] {
		sizes = append(sizes, len(b))
	}
	if !slices.Equal(sizes, []int{3, 3, 1}) {
		t.Errorf("batches after the first hold %v calls, want [3 3 1] (max 3)", sizes)
	}
	for i := range 8 {
		want := i * 10
		if i == 5 {
			if errs[i] == nil {
				t.Errorf("call 5 got %d, want its own error", got[i])
			}
			continue
		}
		if errs[i] != nil || got[i] != want {
			t.Errorf("call %d = %d, %v; want %d", i, got[i], errs[i], want)
		}
	}
}

func TestBatcherCallerLeavesAndTheOthersStillGetTheirAnswer(t *testing.T) {
	g := newGated(1, 10)
	var wg sync.WaitGroup
	var first, third int
	wg.Go(func() { first, _ = g.do(context.Background(), 1) })
	g.waitBatches(1)
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() {
		_, err := g.do(ctx, 2)
		left <- err
	}()
	wg.Go(func() { third, _ = g.do(context.Background(), 3) })
	g.waitQueued(t, 2)
	cancel()
	// The caller that left returns while its batch has not even started.
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Errorf("the caller that left got %v, want context.Canceled", err)
	}
	close(g.release)
	wg.Wait()
	if first != 10 || third != 30 {
		t.Errorf("answers %d and %d, want 10 and 30", first, third)
	}
}

func TestBatcherPanicIsEveryCallersError(t *testing.T) {
	b := newBatcher(2, 10, func(context.Context, []int) ([]int, []error) { panic("boom") })
	if _, err := b.do(context.Background(), 1); err == nil {
		t.Fatal("a batch that panicked answered without an error")
	}
	short := newBatcher(2, 10, func(context.Context, []int) ([]int, []error) { return nil, nil })
	if _, err := short.do(context.Background(), 1); err == nil {
		t.Fatal("a batch that answered no call answered without an error")
	}
}
