package tutor

import (
	"context"
	"fmt"
	"time"

	"github.com/tmc/langchaingo/embeddings"

	"aula/models"
)

// embedCallTimeout bounds one provider call of the embed pass.
const embedCallTimeout = time.Minute

// EmbedSections embeds the published sections whose heading and text
// the embeddings route's model has no vector of yet, embedBatch texts a
// call, then deletes the vectors no section needs any more (another
// model's, or a text no longer published). It returns how many texts it
// embedded: 0 when the database has no vectors or the route is off.
// Processes sharing a database take turns: a batch holds a lock, and a
// pass that finds it taken ends, leaving the rest to the holder.
func (s *Service) EmbedSections(ctx context.Context) (int, error) {
	v := s.retr.vectors
	if !v.ready.Load() {
		return 0, nil
	}
	r, on, err := v.route(ctx)
	if err != nil || !on {
		return 0, err
	}
	e, err := v.newEmbedder(r.Provider, r.Model)
	if err != nil {
		return 0, fmt.Errorf("embed sections: %w", err)
	}
	model, n := embeddingModel(r), 0
	for {
		done, k, err := s.embedBatch(ctx, e, model)
		n += k
		if err != nil {
			return n, err
		}
		if done {
			break
		}
	}
	if _, err := v.store.Prune(ctx, model); err != nil {
		return n, err
	}
	return n, nil
}

// embedBatch embeds up to embedBatch pending texts in one transaction
// holding the embed lock; done when none was left or another process
// holds the lock.
func (s *Service) embedBatch(ctx context.Context, e embeddings.Embedder, model string) (done bool, n int, err error) {
	store := s.retr.vectors.store
	err = models.WithTx(ctx, s.cfg.DB, func(ctx context.Context) error {
		ok, err := store.TryEmbedLock(ctx)
		if err != nil || !ok {
			done = true
			return err
		}
		texts, err := store.Pending(ctx, model, embedBatch)
		if err != nil || len(texts) == 0 {
			done = true
			return err
		}
		in := make([]string, len(texts))
		for i, t := range texts {
			in[i] = t.Heading + "\n\n" + t.Text
		}
		callCtx, cancel := context.WithTimeout(ctx, embedCallTimeout)
		vecs, err := e.EmbedDocuments(callCtx, in)
		cancel()
		if err != nil {
			return fmt.Errorf("embed sections (%s): %w", model, err)
		}
		n = len(texts)
		return store.Save(ctx, model, texts, vecs)
	})
	if err != nil {
		return true, 0, err
	}
	return done, n, nil
}

// startVectors finds out whether the database stores vectors and, when
// it does, starts the loop that embeds new and changed sections every
// EmbedInterval (published lessons and imports are picked up by the next
// pass); Close stops it.
func (s *Service) startVectors(ctx context.Context) error {
	ok, err := s.retr.vectors.enable(ctx)
	if err != nil {
		return err
	}
	if !ok {
		s.log.Info("retrieval: no pgvector extension, sections are ranked by words alone")
		return nil
	}
	if s.cfg.EmbedInterval < 0 {
		return nil
	}
	loopCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stopEmbed = cancel
	s.embedDone = make(chan struct{})
	go s.embedLoop(loopCtx)
	return nil
}

// embedLoop runs EmbedSections now and then every EmbedInterval until
// ctx ends.
func (s *Service) embedLoop(ctx context.Context) {
	defer close(s.embedDone)
	tick := time.NewTicker(s.cfg.EmbedInterval)
	defer tick.Stop()
	for {
		n, err := s.EmbedSections(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("embeddings: embedding sections failed", "err", err)
		} else if n > 0 {
			s.log.Info("embeddings: sections embedded", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// stopVectors ends the embed loop and waits for it.
func (s *Service) stopVectors() {
	if s.stopEmbed != nil {
		s.stopEmbed()
		<-s.embedDone
	}
}
