package tutor

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tmc/langchaingo/embeddings"
	"gorm.io/gorm"

	"aula/models"
)

// Embeddings defaults.
const (
	// DefaultQueryEmbedTimeout bounds the question's embedding, the one
	// model call on a question's path when the embeddings route is on:
	// past it the turn ranks by words alone.
	DefaultQueryEmbedTimeout = 300 * time.Millisecond
	// DefaultEmbedInterval is how often the sections are checked for
	// texts without vectors.
	DefaultEmbedInterval = time.Minute
	// rrfK is reciprocal rank fusion's constant (Cormack, Clarke and
	// Büttcher 2009): a section's fused score is the sum over the lists
	// of 1/(rrfK+rank), so a first place in one list is worth little more
	// than a third place, and agreement between the lists decides.
	rrfK = 60
)

// vectors is retrieval's vector side: the sections' embeddings in
// chunk_embeddings (pgvector) and the embeddings route that makes them.
// Without the table (no pgvector) or with the route off, it does nothing
// and retrieval ranks by words alone.
type vectors struct {
	store       *models.ChunkVectors
	routes      *models.AIRoutes
	newEmbedder func(name, model string) (embeddings.Embedder, error)
	timeout     time.Duration
	log         *slog.Logger
	// ready is set once chunk_embeddings is known to exist (enable).
	ready atomic.Bool
	// seen is the embeddings route as a question last read it: questions
	// reuse it for routeTTL, so with the route off a question reads
	// nothing more than before.
	seen atomic.Pointer[seenRoute]
}

// routeTTL is how long questions reuse the embeddings route they read:
// an admin's change reaches every process within it.
const routeTTL = 5 * time.Second

// seenRoute is the embeddings route and when it was read.
type seenRoute struct {
	r  models.AIRoute
	on bool
	at time.Time
}

// questionRoute is the embeddings route for a question: the one read
// less than routeTTL ago, or a fresh read.
func (v *vectors) questionRoute(ctx context.Context) (models.AIRoute, bool, error) {
	if s := v.seen.Load(); s != nil && time.Since(s.at) < routeTTL {
		return s.r, s.on, nil
	}
	r, on, err := v.route(ctx)
	if err == nil {
		v.seen.Store(&seenRoute{r: r, on: on, at: time.Now()})
	}
	return r, on, err
}

func newVectors(db *gorm.DB, cfg Config, log *slog.Logger) *vectors {
	return &vectors{store: models.NewChunkVectors(db), routes: models.NewAIRoutes(db), timeout: cfg.QueryEmbedTimeout, log: log,
		newEmbedder: func(name, model string) (embeddings.Embedder, error) {
			return cfg.NewEmbedder(name, model, cfg.Credentials)
		}}
}

// enable finds out whether the database stores vectors, creating the
// table when pgvector was installed after the migration ran.
func (v *vectors) enable(ctx context.Context) (bool, error) {
	ok, err := v.store.Enable(ctx)
	if err != nil {
		return false, err
	}
	v.ready.Store(ok)
	return ok, nil
}

// route returns the embeddings route; on is false when there is none or
// it is offline (the default: embedding every section costs calls).
func (v *vectors) route(ctx context.Context) (r models.AIRoute, on bool, err error) {
	row, err := v.routes.Get(ctx, models.UseEmbeddings)
	if errors.Is(err, models.ErrNotFound) {
		return models.AIRoute{}, false, nil
	}
	if err != nil {
		return models.AIRoute{}, false, err
	}
	return *row, row.Provider != ProviderOffline, nil
}

// queryVector is a turn's question embedding. It is asked for as the
// turn starts, so the provider call runs beside the lexical search and
// only the rest of it, if any, is waited for.
type queryVector struct {
	done  chan struct{}
	model string
	vec   []float32
	err   error
}

// start embeds text for one turn within the timeout; nil when the
// database has no vectors.
func (v *vectors) start(ctx context.Context, text string) *queryVector {
	if v == nil || !v.ready.Load() || strings.TrimSpace(text) == "" {
		return nil
	}
	if s := v.seen.Load(); s != nil && !s.on && time.Since(s.at) < routeTTL {
		return nil // off: no call, no wait
	}
	q := &queryVector{done: make(chan struct{})}
	go func() {
		defer close(q.done)
		ctx, cancel := context.WithTimeout(ctx, v.timeout)
		defer cancel()
		r, on, err := v.questionRoute(ctx)
		if err != nil || !on {
			q.err = err
			return
		}
		e, err := v.newEmbedder(r.Provider, r.Model)
		if err == nil {
			q.vec, err = e.EmbedQuery(ctx, text)
		}
		q.model, q.err = embeddingModel(r), err
	}()
	return q
}

// wait returns the question's vector and the model that made it, nil
// when the route is off, the call failed or it ran out of time.
func (v *vectors) wait(q *queryVector) ([]float32, string) {
	if q == nil {
		return nil, ""
	}
	<-q.done
	if q.err != nil {
		v.log.Warn("embeddings: the question is ranked by words alone", "err", q.err)
		return nil, ""
	}
	if !slices.ContainsFunc(q.vec, func(x float32) bool { return x != 0 }) {
		return nil, "" // a zero vector is at no distance from anything
	}
	return q.vec, q.model
}

// withVectors fuses one scope's lexical matches with the sections nearest
// the question in the same scope (reciprocal rank fusion). A scope where
// no word matched stays empty, so the search still widens from the
// lesson to its module and to every lesson as before, and a failure of
// the vector side leaves the lexical ranking as it was.
func (r *Retriever) withVectors(ctx context.Context, q models.ChunkSearch, tq turnQuery, lex []Source, err error) ([]Source, error) {
	if err != nil || len(lex) == 0 || tq.vec == nil {
		return lex, err
	}
	vec, model := r.vectors.wait(tq.vec)
	if vec == nil {
		return lex, nil
	}
	near, err := r.vectors.store.Nearest(ctx, models.VectorSearch{Model: model, Vec: vec, Help: q.Help, Lang: q.Lang,
		OnlyLang: q.OnlyLang, LessonID: q.LessonID, ModuleID: q.ModuleID, Limit: q.Limit})
	if err != nil {
		r.vectors.log.Warn("embeddings: nearest sections failed, ranked by words alone", "err", err)
		return lex, nil
	}
	return fuse(lex, sources(near), q.Limit), nil
}

// fuse ranks the sections of both lists by reciprocal rank fusion, best
// first, and keeps k. A tie goes to the better lexical rank (the measured
// baseline), then to the better vector rank.
func fuse(lex, near []Source, k int) []Source {
	type fused struct {
		src        Source
		score      float64
		lexRank    int
		vectorRank int
	}
	byID := map[[2]any]*fused{}
	var all []*fused
	add := func(list []Source, lexical bool) {
		for i, s := range list {
			id := [2]any{s.Kind, s.ChunkID}
			f, ok := byID[id]
			if !ok {
				f = &fused{src: s, lexRank: len(lex) + 1, vectorRank: len(near) + 1}
				byID[id] = f
				all = append(all, f)
			}
			f.score += 1 / float64(rrfK+i+1)
			if lexical {
				f.lexRank = i + 1
			} else {
				f.vectorRank = i + 1
			}
		}
	}
	add(lex, true)
	add(near, false)
	slices.SortStableFunc(all, func(a, b *fused) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.lexRank, b.lexRank), cmp.Compare(a.vectorRank, b.vectorRank))
	})
	out := make([]Source, 0, min(k, len(all)))
	for _, f := range all[:min(k, len(all))] {
		f.src.Score = f.score
		out = append(out, f.src)
	}
	return out
}
