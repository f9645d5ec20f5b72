package stream

import (
	"context"
	"strings"
	"sync"

	"aula/models"
)

// The answer text of every generation in flight here is written to its
// row by one writer per process: every FlushInterval it reads each
// stream through its Subscription and appends what is new to all the rows
// in one statement and one commit, with one notification for followers
// on other processes. The rows serve those followers and crash recovery;
// local readers read the hub. A generation's final text is written by
// the engine's Finish after Persist's stop.

// pending is one generation the writer persists.
type pending struct {
	st        *Stream
	sub       *Subscription
	persisted int             // bytes of the row's content
	text      strings.Builder // read from the stream, not yet written
}

// writer holds the generations to persist.
type writer struct {
	mu      sync.Mutex
	streams map[*Stream]*pending
	// writing is held while a batch is written, so a generation's stop
	// can wait for a batch that holds its text.
	writing sync.Mutex
}

// Persist writes a generation's text to its row while it runs; the
// returned stop ends that and waits until no write of its text is in
// flight, so a late batch cannot race the final text. A row that is no
// longer ours (another process ended it) cancels the generation with
// ErrLeaseLost.
func (b *Broker) Persist(st *Stream) (stop func()) {
	w := &b.writer
	p := &pending{st: st, sub: st.Subscribe(0)}
	w.mu.Lock()
	w.streams[st] = p
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.streams, st)
		w.mu.Unlock()
		w.writing.Lock() // a batch in flight may hold its text
		p.sub.Close()
		w.writing.Unlock()
	}
}

// flush writes one batch: the new text of every generation in flight.
func (b *Broker) flush(ctx context.Context) {
	w := &b.writer
	w.writing.Lock()
	defer w.writing.Unlock()
	w.mu.Lock()
	var batch []*pending
	var pieces []models.Piece
	for _, p := range w.streams {
		for {
			text, _, final, ok, err := p.sub.Poll()
			if !ok || err != nil || final != nil {
				break
			}
			p.text.WriteString(text)
		}
		if p.text.Len() > 0 {
			batch = append(batch, p)
			pieces = append(pieces, models.Piece{ID: p.st.id, At: p.persisted, Text: p.text.String()})
		}
	}
	w.mu.Unlock()
	if len(pieces) == 0 {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, sweepTimeout)
	defer cancel()
	grown, err := b.store.AppendBatch(rctx, b.cfg.InstanceID, pieces)
	b.sawDatabase(err)
	if err != nil {
		// Kept for the next tick; the final text is stored by Finish anyway.
		if ctx.Err() == nil {
			b.log.Warn("stream: store answer text", "answers", len(pieces), "err", err)
		}
		return
	}
	b.flushes.Add(1)
	for _, p := range batch {
		n, ok := grown[p.st.id]
		if !ok {
			b.log.Warn("stream: answer taken over by another process; stopping it", "message", p.st.id)
			p.st.Cancel(ErrLeaseLost)
			continue
		}
		p.persisted = n
		p.text.Reset()
	}
}
