package tutor

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"aula/models"
)

// Streams across processes. The process generating an answer keeps the
// in-memory hub (local subscribers read it directly) and also appends the
// text to the row in batches, each write notifying models.StreamChannel.
// A process asked for a stream it does not generate follows the row: it
// reads the text from the subscriber's offset, then re-reads on each
// notification (or every PollInterval), until the row is final.

// dsnOf is the URL db was opened with, for the LISTEN connection.
func dsnOf(db *gorm.DB) string {
	if db == nil {
		return ""
	}
	if d, ok := db.Dialector.(*postgres.Dialector); ok && d.Config != nil {
		return d.Config.DSN
	}
	return ""
}

// listener holds the process's one LISTEN connection and fans its
// notifications out to the followers in this process.
type listener struct {
	dsn      string
	log      *slog.Logger
	onCancel func(msgID string)

	mu       sync.Mutex
	watchers map[string]map[chan struct{}]struct{}

	received atomic.Int64
}

func newListener(dsn string, log *slog.Logger, onCancel func(string)) *listener {
	return &listener{dsn: dsn, log: log, onCancel: onCancel, watchers: map[string]map[chan struct{}]struct{}{}}
}

// watch returns a one-slot channel woken by every notification about msgID.
func (l *listener) watch(msgID string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	l.mu.Lock()
	set := l.watchers[msgID]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		l.watchers[msgID] = set
	}
	set[ch] = struct{}{}
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		delete(set, ch)
		if len(set) == 0 && l.watchers[msgID] != nil && len(l.watchers[msgID]) == 0 {
			delete(l.watchers, msgID)
		}
		l.mu.Unlock()
	}
}

func (l *listener) wake(msgID string) {
	l.mu.Lock()
	for ch := range l.watchers[msgID] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	l.mu.Unlock()
}

// wakeAll makes every follower re-read: notifications sent while the
// connection was down are lost, the rows are not.
func (l *listener) wakeAll() {
	l.mu.Lock()
	for _, set := range l.watchers {
		for ch := range set {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	l.mu.Unlock()
}

// run keeps the LISTEN connection up until ctx ends, reconnecting with a
// growing pause when the database goes away.
func (l *listener) run(ctx context.Context, ready chan<- struct{}) {
	pause := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := l.listen(ctx, ready)
		ready = nil
		if ctx.Err() != nil {
			return
		}
		l.log.Warn("tutor: LISTEN connection lost; followers poll until it is back", "err", err, "retry", pause)
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(pause*2, 5*time.Second)
	}
}

func (l *listener) listen(ctx context.Context, ready chan<- struct{}) error {
	conn, err := pgx.Connect(ctx, l.dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, ch := range []string{models.StreamChannel, models.CancelChannel} {
		if _, err := conn.Exec(ctx, "LISTEN "+ch); err != nil {
			return err
		}
	}
	if ready != nil {
		close(ready)
	}
	l.wakeAll()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		l.received.Add(1)
		switch n.Channel {
		case models.StreamChannel:
			id, _, _ := strings.Cut(n.Payload, " ")
			l.wake(id)
		case models.CancelChannel:
			l.onCancel(n.Payload)
		}
	}
}

// remoteSubscribe follows an answer another process generates, with the
// same Subscription semantics as the hub: its private stream holds the
// text from byte 0 (an answer is at most MaxAnswerBytes), filled from the
// row, and ends with the stored final state.
func (s *Service) remoteSubscribe(userID, msgID string, offset int) *Subscription {
	st := &stream{userID: userID, waiters: map[chan struct{}]struct{}{}}
	ctx, cancel := context.WithCancel(s.bgCtx)
	var wake <-chan struct{}
	unwatch := func() {}
	if s.listener != nil {
		// Watch before the first read, so no notification falls between.
		wake, unwatch = s.listener.watch(msgID)
	}
	s.remotes.Add(1)
	go func() {
		defer unwatch()
		s.follow(ctx, st, userID, msgID, wake)
	}()
	sub := st.subscribe(offset)
	sub.onClose = cancel
	return sub
}

// follow copies the row's text into st as it grows, until it is final.
func (s *Service) follow(ctx context.Context, st *stream, userID, msgID string, wake <-chan struct{}) {
	have := 0
	poll := time.NewTimer(s.cfg.PollInterval)
	defer poll.Stop()
	for {
		state, err := s.streams.ReadFrom(ctx, userID, msgID, have)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			s.log.Warn("tutor: follow answer", "message", msgID, "err", err)
		default:
			if len(state.Tail) > 0 {
				st.append(string(state.Tail))
				have += len(state.Tail)
			}
			if state.Status != models.StatusStreaming {
				m, err := s.msgs.Get(ctx, userID, msgID)
				if err == nil {
					st.finish(finalOf(m))
					return
				}
				if ctx.Err() != nil {
					return
				}
				s.log.Warn("tutor: read finished answer", "message", msgID, "err", err)
			}
		}
		if !poll.Stop() {
			select {
			case <-poll.C:
			default:
			}
		}
		poll.Reset(s.cfg.PollInterval)
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-poll.C:
		}
	}
}

// cancelRemote asks the owner of a streaming answer to stop it and waits
// for the stored result; the request is repeated every PollInterval in
// case the owner's LISTEN connection missed it. An owner that died is
// ended by the sweep, which ends the wait too.
func (s *Service) cancelRemote(ctx context.Context, userID, msgID string) error {
	sub := s.remoteSubscribe(userID, msgID, 0)
	defer sub.Close()
	done := make(chan struct{})
	defer close(done)
	if err := s.streams.NotifyCancel(ctx, msgID); err != nil {
		return err
	}
	go func() {
		tick := time.NewTicker(s.cfg.PollInterval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				_ = s.streams.NotifyCancel(ctx, msgID)
			}
		}
	}()
	for {
		_, _, final, err := sub.Next(ctx)
		if err != nil {
			return err
		}
		if final != nil {
			return nil
		}
	}
}

// persist writes a generation's text to its row in batches while it
// runs: the first text at once (a follower elsewhere sees the first token
// without waiting a batch), then at most every FlushInterval unless
// FlushBytes are waiting. It returns when stop closes; the final text is
// written by Finish. A row that is no longer ours ends the generation.
func (s *Service) persist(j *job, stop <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(s.base))
	defer cancel()
	go func() {
		<-stop
		cancel()
	}()
	st := j.st
	notify := make(chan struct{}, 1)
	st.mu.Lock()
	if st.waiters == nil {
		st.mu.Unlock()
		return
	}
	st.waiters[notify] = struct{}{}
	st.mu.Unlock()
	defer func() {
		st.mu.Lock()
		if st.waiters != nil {
			delete(st.waiters, notify)
		}
		st.mu.Unlock()
	}()
	persisted := 0
	var last time.Time
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-notify:
		case <-timer.C:
		}
		st.mu.Lock()
		pending := st.pub - persisted
		var text string
		if wait := s.cfg.FlushInterval - time.Since(last); pending > 0 && (pending >= s.cfg.FlushBytes || wait <= 0) {
			text = string(st.buf[persisted:st.pub])
		} else if pending > 0 {
			timer.Reset(wait)
		}
		st.mu.Unlock()
		if text == "" {
			continue
		}
		n, err := s.streams.Append(ctx, j.answer.ID, s.id, persisted, text)
		last = time.Now()
		switch {
		case errors.Is(err, models.ErrLeaseLost):
			s.log.Warn("tutor: answer taken over by another process; stopping it", "message", j.answer.ID)
			st.cancel(errLeaseLost)
			return
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			s.log.Warn("tutor: store answer text", "message", j.answer.ID, "err", err)
			timer.Reset(s.cfg.FlushInterval)
			continue
		}
		persisted = n
		s.flushes.Add(1)
		select {
		case notify <- struct{}{}: // text that came during the write is looked at next
		default:
		}
	}
}

// ScaleStats counts the cross-process work of this service since it started.
type ScaleStats struct {
	Flushes       int64 // batched writes of answer text (each one notification)
	Notifications int64 // notifications received on the LISTEN connection
	Remote        int64 // streams followed from the database
}

// ScaleStats reports the cross-process counters.
func (s *Service) ScaleStats() ScaleStats {
	st := ScaleStats{Flushes: s.flushes.Load(), Remote: s.remotes.Load()}
	if s.listener != nil {
		st.Notifications = s.listener.received.Load()
	}
	return st
}
