package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"

	"aula/models"
)

// Causes of a generation's end that the broker sets, told apart by the
// engine through context.Cause.
var (
	// ErrCancelled is the student pressing stop, here or on another process.
	ErrCancelled = errors.New("cancelled by the user")
	// ErrShutdown is the process closing while the answer was generated.
	ErrShutdown = errors.New("server shutting down")
	// ErrLeaseLost is another process having ended the answer's row.
	ErrLeaseLost = models.ErrLeaseLost
	// ErrDraining refuses a generation once Drain or Close has begun.
	ErrDraining = errors.New("the server is shutting down")
)

// Config tunes a Broker; zero values take the defaults.
type Config struct {
	// InstanceID names this process in answer leases and logs; default NewInstanceID().
	InstanceID string
	// DatabaseURL is for the LISTEN connection that follows answers other
	// processes generate; "" makes followers poll every PollInterval.
	DatabaseURL string
	// LeaseTTL bounds how long a dead process's answers stay streaming
	// (default models.DefaultLeaseTTL; renewed every LeaseTTL/3).
	LeaseTTL time.Duration
	// SweepInterval is how often expired leases are looked for (default LeaseTTL/3).
	SweepInterval time.Duration
	// FlushInterval is how often the answer text of every generation in
	// flight is written to the rows, in one statement (default DefaultFlushInterval).
	FlushInterval time.Duration
	// PollInterval is how often a follower re-reads the row without a
	// notification (default DefaultPollInterval).
	PollInterval time.Duration
	// Now is the clock of the timestamps the sweep writes; default time.Now.
	Now func() time.Time
	// StreamsPerUser caps the event streams one user may hold open on
	// this process at once (default DefaultStreamsPerUser; see Admit).
	StreamsPerUser int
	// Listen is more channels for the LISTEN connection to follow, each
	// with what to do with a notification's payload. Each is also called
	// with "" whenever the connection starts or comes back: what was sent
	// while it was down is lost.
	Listen map[string]func(payload string)
}

func (c Config) withDefaults() Config {
	if c.InstanceID == "" {
		c.InstanceID = NewInstanceID()
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = models.DefaultLeaseTTL
	}
	if c.SweepInterval <= 0 {
		c.SweepInterval = c.LeaseTTL / 3
	}
	if c.FlushInterval <= 0 {
		c.FlushInterval = DefaultFlushInterval
	}
	if c.PollInterval <= 0 {
		c.PollInterval = DefaultPollInterval
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.StreamsPerUser <= 0 {
		c.StreamsPerUser = DefaultStreamsPerUser
	}
	return c
}

// Broker is the answers in flight of one process and their readers
// anywhere: it opens generations, hands out subscriptions (local, from
// another process, or of a stored answer), cancels, persists the text
// in batches, keeps the leases and drains on shutdown.
type Broker struct {
	cfg      Config
	log      *slog.Logger
	hub      *Hub
	msgs     *models.Messages
	store    *models.Streams
	storeErr error
	listener *listener

	// Generations: they run under base, which Close cancels.
	base   context.Context
	stop   context.CancelCauseFunc
	mu     sync.Mutex // guards closed and gens.Add against Close
	closed bool
	gens   sync.WaitGroup

	// Background work (LISTEN, heartbeat, sweep, followers) outlives the generations.
	bgCtx     context.Context
	bgStop    context.CancelFunc
	bg        sync.WaitGroup
	startOnce sync.Once

	// The database as this process last saw it, for the sweep (lease.go).
	healthMu sync.Mutex
	away     bool      // the last statement could not reach it
	back     time.Time // when it was reached again after being away

	writer writer
	open   openStreams
	awaits awaits

	flushes atomic.Int64
	remotes atomic.Int64
}

// New builds a broker on db; call Start before serving and Close on shutdown.
func New(db *gorm.DB, cfg Config, log *slog.Logger) *Broker {
	cfg = cfg.withDefaults()
	if log == nil {
		log = slog.Default()
	}
	b := &Broker{cfg: cfg, log: log.With("instance", cfg.InstanceID), hub: NewHub(), msgs: models.NewMessages(db),
		writer: writer{streams: map[*Stream]*pending{}, followed: map[string]bool{}},
		open:   openStreams{max: cfg.StreamsPerUser, byUser: map[string]int{}}}
	b.base, b.stop = context.WithCancelCause(context.Background())
	b.bgCtx, b.bgStop = context.WithCancel(context.Background())
	b.store, b.storeErr = models.NewStreams(db)
	if cfg.DatabaseURL != "" {
		b.listener = newListener(cfg.DatabaseURL, b.log, b.cancelLocal, b.followed, cfg.Listen)
	}
	return b
}

// Start fails the answers left streaming by stopped processes (their
// lease ran out; answers live processes generate are left alone) and
// starts the work shared with the other processes: the LISTEN
// connection, the lease heartbeat and the sweep of expired leases.
func (b *Broker) Start(ctx context.Context) error {
	if b.storeErr != nil {
		return b.storeErr
	}
	ids, err := b.store.FailExpired(ctx, b.now(), b.cfg.InstanceID, nil)
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		b.log.Warn("stream: answers interrupted by a stopped process marked failed", "count", len(ids))
	}
	b.startOnce.Do(func() {
		if b.listener != nil {
			b.startListener(ctx)
		}
		b.bg.Add(3)
		go b.every(b.bgCtx, b.cfg.FlushInterval, b.flush)
		go b.every(b.bgCtx, b.cfg.LeaseTTL/3, b.renew)
		go b.every(b.bgCtx, b.cfg.SweepInterval, b.Sweep)
	})
	return nil
}

// Close refuses new generations, ends those in flight (their cause is
// ErrShutdown), waits until they are stored and stops the background work.
func (b *Broker) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.stop(ErrShutdown)
	b.gens.Wait()
	b.bgStop()
	b.bg.Wait()
}

// Drain is a graceful stop: it refuses new generations, lets those in
// flight finish until ctx ends, then Closes.
func (b *Broker) Drain(ctx context.Context) {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	done := make(chan struct{})
	go func() {
		b.gens.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
	b.Close()
}

// Open registers the generation of msgID for userID before its row is
// written, with the context it runs under; ok is false when one is
// already in flight for msgID.
func (b *Broker) Open(msgID, userID string) (st *Stream, ctx context.Context, ok bool) {
	ctx, cancel := context.WithCancelCause(b.base)
	st, ok = b.hub.Open(msgID, userID, cancel)
	if !ok {
		cancel(nil)
		return nil, nil, false
	}
	return st, ctx, true
}

// Abandon frees a stream whose row was never written.
func (b *Broker) Abandon(st *Stream) {
	b.hub.Remove(st)
	st.Cancel(nil)
}

// Launch runs a generation unless the broker is closing (ErrDraining);
// Close waits for it.
func (b *Broker) Launch(run func()) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrDraining
	}
	b.gens.Add(1)
	go func() {
		defer b.gens.Done()
		run()
	}()
	return nil
}

// End publishes a generation's stored final state to its readers here
// and, when this process stored it, to followers elsewhere, and frees it.
//
// Only an answer a process asked to follow is notified (a notification
// takes a cluster-wide lock at commit, and a class ends hundreds of
// answers at once). A follower whose request arrives after this still
// gets the final state: it re-reads the row every PollInterval.
func (b *Broker) End(ctx context.Context, st *Stream, m *models.Message, stored bool) {
	b.writer.mu.Lock()
	followed := b.writer.followed[st.id]
	delete(b.writer.followed, st.id)
	b.writer.mu.Unlock()
	// Without a LISTEN connection no follow request can reach this
	// process, so every follower is told.
	if stored && (followed || b.listener == nil) {
		if err := b.store.NotifyEnd(ctx, st.id); err != nil {
			b.log.Warn("stream: notify followers", "message", st.id, "err", err)
		}
	}
	st.Finish(FinalOf(m))
	b.hub.Remove(st)
}

// Subscribe reads the user's answer from a byte offset: the missed text,
// then live text, then the final state. A finished answer replays from
// the database; one another process generates is followed through the
// database (its row and notifications). Someone else's message is
// models.ErrNotFound.
func (b *Broker) Subscribe(ctx context.Context, userID, msgID string, offset int) (*Subscription, error) {
	if st := b.hub.Get(msgID); st != nil {
		if st.userID != userID {
			return nil, models.ErrNotFound
		}
		return st.Subscribe(offset), nil
	}
	m, err := b.msgs.Get(ctx, userID, msgID)
	if err != nil {
		return nil, err
	}
	if m.Role != models.RoleAssistant {
		return nil, models.ErrNotFound
	}
	if m.Status != models.StatusStreaming {
		return finished(m, offset), nil
	}
	// The generation was registered here before its row was committed and
	// is removed only after its final state is stored, so a streaming row
	// not in the hub is generated by another process (or by one that
	// died, whose lease the sweep will end).
	if st := b.hub.Get(msgID); st != nil {
		return st.Subscribe(offset), nil
	}
	return b.follow(userID, msgID, offset), nil
}

// Wait blocks until the user's answer is finished and returns it as
// stored: the no-JavaScript path, the JSON chat endpoint and MCP use it.
func (b *Broker) Wait(ctx context.Context, userID, msgID string) (*models.Message, error) {
	sub, err := b.Subscribe(ctx, userID, msgID, 0)
	if err != nil {
		return nil, err
	}
	defer sub.Close()
	final, err := sub.Wait(ctx)
	if err != nil {
		return nil, err
	}
	return final.Message, nil
}

// Cancel stops the user's answer in generation and waits until it is
// stored. Cancelling a finished answer does nothing. An answer another
// process generates is stopped there (through a notification) and
// waited for the same way.
func (b *Broker) Cancel(ctx context.Context, userID, msgID string) error {
	st := b.hub.Get(msgID)
	if st == nil || st.userID != userID {
		m, err := b.msgs.Get(ctx, userID, msgID)
		if err != nil {
			return err
		}
		if st != nil || m.Role != models.RoleAssistant || m.Status != models.StatusStreaming {
			return nil
		}
		if st = b.hub.Get(msgID); st == nil {
			return b.cancelRemote(ctx, userID, msgID)
		}
	}
	st.Cancel(ErrCancelled)
	sub := st.Subscribe(st.Len())
	defer sub.Close()
	_, err := sub.Wait(ctx)
	return err
}

// cancelLocal stops an answer this process generates, on another
// process's request (the student pressed stop there).
func (b *Broker) cancelLocal(msgID string) {
	if st := b.hub.Get(msgID); st != nil {
		st.Cancel(ErrCancelled)
	}
}

func (b *Broker) now() time.Time { return b.cfg.Now().UTC() }

// Stopping is closed once Close has begun: generations still running
// are being ended.
func (b *Broker) Stopping() <-chan struct{} { return b.base.Done() }

// InstanceID is the id this process writes into the leases it holds.
func (b *Broker) InstanceID() string { return b.cfg.InstanceID }

// Lease is the claim this process writes with an answer it generates.
func (b *Broker) Lease() models.Lease {
	return models.Lease{Owner: b.cfg.InstanceID, TTL: b.cfg.LeaseTTL}
}

// Active is the number of generations in flight here.
func (b *Broker) Active() int { return b.hub.Active() }

// Stats counts the cross-process work of a broker since it started.
type Stats struct {
	Flushes       int64 // batched writes of answer text (each one statement and one notification)
	Notifications int64 // notifications received on the LISTEN connection
	Remote        int64 // streams followed from the database
}

// Stats reports the cross-process counters.
func (b *Broker) Stats() Stats {
	s := Stats{Flushes: b.flushes.Load(), Remote: b.remotes.Load()}
	if b.listener != nil {
		s.Notifications = b.listener.received.Load()
	}
	return s
}

// StopConversation stops the user's answers still being written in a
// conversation and waits until they are stored, so none keeps generating
// for a thread about to be deleted. A conversation that is not the
// user's has nothing to stop.
func (b *Broker) StopConversation(ctx context.Context, userID, conversationID string) error {
	msgs, err := b.msgs.ListByConversation(ctx, userID, conversationID)
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stop conversation: %w", err)
	}
	for _, m := range msgs {
		if m.Status != models.StatusStreaming {
			continue
		}
		if err := b.Cancel(ctx, userID, m.ID); err != nil && !errors.Is(err, models.ErrNotFound) {
			return fmt.Errorf("stop conversation: %w", err)
		}
	}
	return nil
}
