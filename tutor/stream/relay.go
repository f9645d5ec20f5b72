package stream

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"aula/models"
)

// Streams across processes. The process generating an answer keeps the
// in-memory hub (local subscribers read it directly). A process asked for
// a stream it does not generate follows the row: it asks the owner for
// the text (models.FollowChannel), and from then on the owner appends it
// to the row in batches, each write notifying models.StreamChannel; the
// follower reads the text from the subscriber's offset, then re-reads on
// each notification (or every PollInterval, asking again), until the row
// is final. An answer nobody follows elsewhere is written once, at its end.

// listener holds the process's one LISTEN connection and fans its
// notifications out to the followers in this process.
type listener struct {
	dsn      string
	log      *slog.Logger
	onCancel func(msgID string)
	onFollow func(msgID string)
	others   map[string]func(payload string) // Config.Listen

	mu       sync.Mutex
	watchers map[string]map[chan struct{}]struct{}

	received atomic.Int64
}

func newListener(dsn string, log *slog.Logger, onCancel, onFollow func(string), others map[string]func(string)) *listener {
	return &listener{dsn: dsn, log: log, onCancel: onCancel, onFollow: onFollow, others: others,
		watchers: map[string]map[chan struct{}]struct{}{}}
}

// startListener runs the LISTEN connection in the background. Followers
// and remote cancels work from the first request when the connection
// comes up quickly; if not, they poll.
func (b *Broker) startListener(ctx context.Context) {
	ready := make(chan struct{})
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		b.listener.run(b.bgCtx, ready)
	}()
	select {
	case <-ready:
	case <-time.After(2 * time.Second):
	case <-ctx.Done():
	}
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

// wake signals the followers of msgID, or every follower when msgID is
// "" (notifications sent while the connection was down are lost, the
// rows are not).
func (l *listener) wake(msgID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, set := range l.watchers {
		if msgID != "" && id != msgID {
			continue
		}
		for ch := range set {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// wakeNamed wakes the followers of the answers a StreamChannel payload
// names ("<id> <length>" pairs, "<id> end"), or all of them for "*".
func (l *listener) wakeNamed(payload string) {
	if payload == "*" {
		l.wake("")
		return
	}
	for _, f := range strings.Fields(payload) {
		if len(f) == 36 { // an id; lengths and "end" are shorter
			l.wake(f)
		}
	}
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
		l.log.Warn("stream: LISTEN connection lost; followers poll until it is back", "err", err, "retry", pause)
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
	channels := []string{models.StreamChannel, models.CancelChannel, models.FollowChannel}
	for ch := range l.others {
		channels = append(channels, ch)
	}
	for _, ch := range channels {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return err
		}
	}
	if ready != nil {
		close(ready)
	}
	l.wake("")
	for _, on := range l.others {
		on("")
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		l.received.Add(1)
		switch n.Channel {
		case models.StreamChannel:
			l.wakeNamed(n.Payload)
		case models.CancelChannel:
			l.onCancel(n.Payload)
		case models.FollowChannel:
			l.onFollow(n.Payload)
		default:
			if on := l.others[n.Channel]; on != nil {
				on(n.Payload)
			}
		}
	}
}

// follow subscribes to an answer another process generates, with the
// same Subscription semantics as the hub: its private stream holds the
// text from byte 0 (an answer is at most a few dozen KiB), filled from
// the row, and ends with the stored final state.
func (b *Broker) follow(userID, msgID string, offset int) *Subscription {
	st := newStream(msgID, userID, nil)
	ctx, cancel := context.WithCancel(b.bgCtx)
	var wake <-chan struct{}
	unwatch := func() {}
	if b.listener != nil {
		// Watch before the first read, so no notification falls between.
		wake, unwatch = b.listener.watch(msgID)
	}
	b.remotes.Add(1)
	go func() {
		defer unwatch()
		b.copyRow(ctx, st, wake)
	}()
	sub := st.Subscribe(offset)
	sub.onClose = cancel
	return sub
}

// copyRow copies the row's text into st as it grows, until it is final.
// It asks the owner for the text first, and again at every poll that
// found the row still streaming (the owner's LISTEN connection may have
// missed the request).
func (b *Broker) copyRow(ctx context.Context, st *Stream, wake <-chan struct{}) {
	have := 0
	poll := time.NewTimer(b.cfg.PollInterval)
	defer poll.Stop()
	ask := true
	for {
		if ask {
			if err := b.store.NotifyFollow(ctx, st.id); err != nil && ctx.Err() == nil {
				b.log.Warn("stream: ask for the answer's text", "message", st.id, "err", err)
			}
		}
		state, err := b.store.ReadFrom(ctx, st.userID, st.id, have)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			b.log.Warn("stream: follow answer", "message", st.id, "err", err)
		default:
			if len(state.Tail) > 0 {
				st.Append(string(state.Tail))
				have += len(state.Tail)
			}
			if state.Status != models.StatusStreaming {
				m, err := b.msgs.Get(ctx, st.userID, st.id)
				if err == nil {
					st.Finish(FinalOf(m))
					return
				}
				if ctx.Err() != nil {
					return
				}
				b.log.Warn("stream: read finished answer", "message", st.id, "err", err)
			}
		}
		poll.Reset(b.cfg.PollInterval)
		select {
		case <-ctx.Done():
			return
		case <-wake:
			ask = false
		case <-poll.C:
			ask = true
		}
	}
}

// cancelRemote asks the owner of a streaming answer to stop it and waits
// for the stored result; the request is repeated every PollInterval in
// case the owner's LISTEN connection missed it. An owner that died is
// ended by the sweep, which ends the wait too.
func (b *Broker) cancelRemote(ctx context.Context, userID, msgID string) error {
	sub := b.follow(userID, msgID, 0)
	defer sub.Close()
	if err := b.store.NotifyCancel(ctx, msgID); err != nil {
		return err
	}
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		tick := time.NewTicker(b.cfg.PollInterval)
		defer tick.Stop()
		for {
			select {
			case <-rctx.Done():
				return
			case <-tick.C:
				_ = b.store.NotifyCancel(rctx, msgID)
			}
		}
	}()
	_, err := sub.Wait(ctx)
	return err
}
