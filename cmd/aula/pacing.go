package main

import (
	"context"
	"os"
	"runtime/debug"
	"time"
)

// While many answers stream at once, the collector runs at a lower GOGC:
// each answer in flight holds memory of its own (its connections'
// buffers, the provider client's decoder, its goroutines' stacks), and
// at GOGC's default the heap grows to about twice what is live plus the
// stacks before a collection. A class of a thousand has about 55 MiB
// live and 50 MiB of stacks; the default let the heap reach 130 MiB
// between collections. At busyGCPercent the collections come twice as
// often, each marking the same live heap, so the CPU they cost stays
// small (README, "A class at once: memory"), and below the threshold the
// process is back to the runtime's default.
const (
	// busyStreams is how many answers in flight make the process busy; it
	// is no longer busy below half as many (so a class ending does not
	// switch the collector back and forth).
	busyStreams = 100
	// busyGCPercent is GOGC while busy.
	busyGCPercent = 50
	// paceEvery is how often the answers in flight are counted.
	paceEvery = 100 * time.Millisecond
)

// gcPacer switches the collector's GOGC with the answers in flight.
type gcPacer struct {
	set  func(percent int) int // debug.SetGCPercent in the process
	idle int                   // GOGC when not busy: what was set before
	busy bool
}

// observe takes the number of answers in flight now.
func (p *gcPacer) observe(n int) {
	switch {
	case !p.busy && n >= busyStreams:
		p.busy = true
		p.idle = p.set(busyGCPercent)
	case p.busy && n < busyStreams/2:
		p.busy = false
		p.set(p.idle)
	}
}

// paceCollector counts the answers in flight every paceEvery until ctx
// ends and paces the collector by them. GOGC, when set, is the operator's
// choice and is left alone.
func paceCollector(ctx context.Context, inFlight func() int) {
	if os.Getenv("GOGC") != "" {
		return
	}
	p := &gcPacer{set: debug.SetGCPercent}
	tick := time.NewTicker(paceEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			if p.busy {
				p.set(p.idle)
			}
			return
		case <-tick.C:
			p.observe(inFlight())
		}
	}
}
