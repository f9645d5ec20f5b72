package stream

import (
	"context"
	"strings"
	"sync"

	"aula/models"
)

// The answer text of the generations in flight here that a process
// follows elsewhere is written to their rows by one writer per process:
// every FlushInterval it reads each such stream through its Subscription
// and appends what is new to all the rows in one statement and one
// commit, with one notification for the followers. The rows mid-stream
// serve only those followers (crash recovery clears a dead process's
// text), and local readers read the hub, so an answer nobody follows
// elsewhere costs no write until the engine's Finish stores it whole,
// after Persist's stop. Without a LISTEN connection (no way to hear a
// follower ask) every answer in flight is written.

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
	// followed names the answers generated here that a process follows
	// (models.FollowChannel); an id leaves it when its answer ends (End).
	followed map[string]bool
	// writing is held while a batch is written, so a generation's stop
	// can wait for a batch that holds its text.
	writing sync.Mutex
}

// Persist writes a generation's text to its row while it runs, from
// byte stored on: the row already holds the stream's first stored bytes
// (a continuation's kept text). The returned stop ends that and waits
// until no write of its text is in flight, so a late batch cannot race
// the final text. A row that is no longer ours (another process ended
// it) cancels the generation with ErrLeaseLost.
func (b *Broker) Persist(st *Stream, stored int) (stop func()) {
	w := &b.writer
	p := &pending{st: st, sub: st.Subscribe(stored), persisted: stored}
	w.mu.Lock()
	w.streams[st] = p
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		// followed stays until End: it says whether to notify the end.
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
		if b.listener != nil && !w.followed[p.st.id] {
			continue // its text stays in the hub until Finish
		}
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

// running lists the generations whose text the writer holds (their rows
// are written).
func (w *writer) running() []*Stream {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]*Stream, 0, len(w.streams))
	for st := range w.streams {
		out = append(out, st)
	}
	return out
}

// isRunning reports whether st's generation has not stopped persisting
// (its final text is not being stored yet).
func (w *writer) isRunning(st *Stream) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.streams[st]
	return ok
}

// followed marks an answer generated here as followed by another process
// (its notification on models.FollowChannel): from the next batch on its
// text is written as it grows. Ids of answers not generated here are
// another process's business.
func (b *Broker) followed(msgID string) {
	if b.hub.Get(msgID) == nil {
		return
	}
	w := &b.writer
	w.mu.Lock()
	w.followed[msgID] = true
	w.mu.Unlock()
}
