package models

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"time"

	"gorm.io/gorm"
)

// A class asking at once sends hundreds of the same small statements in
// the same few milliseconds: each waits for one of the pool's connections
// and PostgreSQL pays parse, plan and executor start-up for each. A
// batcher runs them together instead, the way PostgreSQL's group commit
// does: a call that finds a worker free runs at once (one caller alone
// never waits), and the calls that arrive while every worker is busy go
// together in the next statement. Only calls outside a transaction are
// batched: one inside WithTx must see its own transaction.

// batchWorkers is how many statements of one kind a process runs at
// once: one per two cores, at most 4. A few workers keep one slow batch
// from holding up the next and leave most of the pool's connections to
// everything else; fewer of them make the batches larger, and on a small
// machine, where PostgreSQL shares the cores with aula, the CPU a larger
// batch saves (one parse, plan and executor start for many asks) is
// worth more than a second statement running beside it: on 2 cores a
// class of 200 got its first tokens about a fifth sooner with 1 worker
// than with 4 (see the README's "A class at once").
var batchWorkers = min(4, max(1, runtime.NumCPU()/2))

// batchMax is how many calls one statement answers.
const batchMax = 100

// batchTimeout bounds one batch's statement; the callers each keep their
// own context, and leave when it ends.
const batchTimeout = 30 * time.Second

// batched is one call waiting for its batch.
type batched[In, Out any] struct {
	in   In
	out  Out
	err  error
	done chan struct{}
}

// batcher runs calls of one kind in batches of up to max, on up to
// workers statements at a time.
type batcher[In, Out any] struct {
	workers, max int
	// run answers a batch: outs[i] and errs[i] belong to ins[i]. It runs
	// with a context of its own (callers may leave; the others still wait).
	run func(ctx context.Context, ins []In) (outs []Out, errs []error)

	mu    sync.Mutex
	queue []*batched[In, Out]
	busy  int
}

// newBatcher builds a batcher; run must answer every input of a batch.
func newBatcher[In, Out any](workers, max int, run func(context.Context, []In) ([]Out, []error)) *batcher[In, Out] {
	return &batcher[In, Out]{workers: workers, max: max, run: run}
}

// do runs in, alone or with the calls waiting beside it, and returns its
// answer; ctx ending returns its error (the batch goes on for the others).
func (b *batcher[In, Out]) do(ctx context.Context, in In) (Out, error) {
	c := &batched[In, Out]{in: in, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, c)
	start := b.busy < b.workers
	if start {
		b.busy++
	}
	b.mu.Unlock()
	if start {
		// The batch's context keeps the first caller's values (the request
		// id the log shows) but not its cancellation.
		go b.work(context.WithoutCancel(ctx))
	}
	select {
	case <-c.done:
		return c.out, c.err
	case <-ctx.Done():
		var zero Out
		return zero, ctx.Err()
	}
}

// work runs batches until the queue is empty.
func (b *batcher[In, Out]) work(ctx context.Context) {
	for {
		b.mu.Lock()
		n := min(len(b.queue), b.max)
		if n == 0 {
			b.busy--
			b.mu.Unlock()
			return
		}
		calls := b.queue[:n:n]
		b.queue = b.queue[n:]
		if len(b.queue) == 0 {
			b.queue = nil
		}
		b.mu.Unlock()
		b.runBatch(ctx, calls)
	}
}

// runBatch answers one batch of calls.
func (b *batcher[In, Out]) runBatch(ctx context.Context, calls []*batched[In, Out]) {
	ctx, cancel := context.WithTimeout(ctx, batchTimeout)
	defer cancel()
	ins := make([]In, len(calls))
	for i, c := range calls {
		ins[i] = c.in
	}
	outs, errs := b.safeRun(ctx, ins)
	for i, c := range calls {
		c.out, c.err = outs[i], errs[i]
		close(c.done)
	}
}

// safeRun is run, with a panic turned into every caller's error: a
// caller must never wait forever for a batch that died.
func (b *batcher[In, Out]) safeRun(ctx context.Context, ins []In) (outs []Out, errs []error) {
	defer func() {
		if p := recover(); p != nil {
			outs, errs = eachErr[Out](len(ins), fmt.Errorf("batch panicked: %v", p))
		}
	}()
	outs, errs = b.run(ctx, ins)
	if len(outs) != len(ins) || len(errs) != len(ins) {
		return eachErr[Out](len(ins), fmt.Errorf("batch answered %d of %d calls", len(outs), len(ins)))
	}
	return outs, errs
}

// eachErr is a batch's answer when its one statement failed: every
// caller gets err.
func eachErr[Out any](n int, err error) ([]Out, []error) {
	errs := make([]error, n)
	for i := range errs {
		errs[i] = err
	}
	return make([]Out, n), errs
}

// inTx says whether ctx carries a transaction (a call in one is never
// batched: it must read and write inside it).
func inTx(ctx context.Context) bool {
	_, ok := ctx.Value(txKey{}).(*gorm.DB)
	return ok
}

// reader is a keyed statement that a class's requests all make (a
// session, a thread, an answer's final state): calls outside a
// transaction share batched statements, a call inside one runs in it.
type reader[In, Out any] struct {
	db *gorm.DB
	// read answers many inputs in one statement: outs[i] belongs to ins[i].
	read  func(db *gorm.DB, ins []In) (outs []Out, err error)
	batch *batcher[In, Out]
}

// newReader builds a reader on db; read's error is every caller's.
func newReader[In, Out any](db *gorm.DB, read func(*gorm.DB, []In) ([]Out, error)) *reader[In, Out] {
	return &reader[In, Out]{db: db, read: read, batch: newBatcher(batchWorkers, batchMax,
		func(ctx context.Context, ins []In) ([]Out, []error) {
			outs, err := read(db.WithContext(ctx), ins)
			if err != nil {
				return eachErr[Out](len(ins), err)
			}
			return outs, make([]error, len(ins))
		})}
}

// get reads in, batched with the calls beside it unless ctx carries a
// transaction.
func (r *reader[In, Out]) get(ctx context.Context, in In) (Out, error) {
	if !inTx(ctx) {
		return r.batch.do(ctx, in)
	}
	outs, err := r.read(conn(ctx, r.db), []In{in})
	if err != nil {
		var zero Out
		return zero, err
	}
	return outs[0], nil
}

// matched puts a batch's rows back in the order of the keys that asked
// for them: out[i] is the row whose key is keys[i], nil when none is.
// Callers that named the same key share its row.
func matched[K comparable, R any](keys []K, rows []R, keyOf func(*R) K) []*R {
	byKey := make(map[K]*R, len(rows))
	for i := range rows {
		byKey[keyOf(&rows[i])] = &rows[i]
	}
	out := make([]*R, len(keys))
	for i, k := range keys {
		out[i] = byKey[k]
	}
	return out
}

// jsonRows runs a batch statement: in, encoded as JSON, is the query's
// first argument (the statement reads its inputs with json_to_recordset)
// and args follow it. Both failures are wrapped with what.
func jsonRows[R any](db *gorm.DB, what, query string, in any, args ...any) ([]R, error) {
	arg, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var rows []R
	if err := db.Raw(query, append([]any{string(arg)}, args...)...).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return rows, nil
}
