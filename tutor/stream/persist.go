package stream

import (
	"context"
	"errors"
	"strings"
	"time"

	"aula/models"
)

// Persist writes a generation's text to its row in batches while it
// runs, reading it through a Subscription like any other reader: the
// first text at once (a follower elsewhere sees the first token without
// waiting a batch), then at most every FlushInterval unless FlushBytes
// are waiting. The returned stop ends it and waits; the final text is
// written by the engine's Finish. A row that is no longer ours (another
// process ended it) cancels the generation with ErrLeaseLost.
func (b *Broker) Persist(st *Stream) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.persist(ctx, st)
	}()
	return func() {
		cancel()
		<-done
	}
}

func (b *Broker) persist(ctx context.Context, st *Stream) {
	sub := st.Subscribe(0)
	defer sub.Close()
	var pending strings.Builder
	persisted := 0
	var last time.Time
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sub.Ready():
		case <-timer.C:
		}
		for {
			text, _, final, ok, err := sub.Poll()
			if err != nil || final != nil {
				return // the final text is the engine's to store
			}
			if !ok {
				break
			}
			pending.WriteString(text)
		}
		wait := b.cfg.FlushInterval - time.Since(last)
		if pending.Len() == 0 || (pending.Len() < b.cfg.FlushBytes && wait > 0) {
			if pending.Len() > 0 {
				timer.Reset(wait)
			}
			continue
		}
		n, err := b.store.Append(ctx, st.id, b.cfg.InstanceID, persisted, pending.String())
		last = time.Now()
		switch {
		case errors.Is(err, models.ErrLeaseLost):
			b.log.Warn("stream: answer taken over by another process; stopping it", "message", st.id)
			st.Cancel(ErrLeaseLost)
			return
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			b.log.Warn("stream: store answer text", "message", st.id, "err", err)
			timer.Reset(b.cfg.FlushInterval)
			continue
		}
		persisted = n
		pending.Reset()
		b.flushes.Add(1)
		timer.Reset(0) // text that came during the write is looked at next
	}
}
