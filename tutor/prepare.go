package tutor

import (
	"context"
	"sync"

	"aula/models"
)

// Under a class's burst every round trip to the database waits its turn
// for the connection pool: recording the question, then reading the
// route, the history, the matching chunks and the lesson one after the
// other put each wait in front of the provider call. When the front has
// already read the thread (it had to, to show or check it), those reads
// need nothing the recording writes, so they run beside it; the recorded
// turn then says whether what they assumed still holds.

// ready is what a generation needs before it calls the provider: the
// provider and the request to send it, or the failed outcome instead.
type ready struct {
	prov Provider
	req  Request
	o    outcome
}

// readyFor is the request prepared for the job while its question was
// recorded, or the one prepare builds now (on the heap: the generation's
// frames stay small while it streams, see generate).
func (s *Service) readyFor(ctx context.Context, j *job) *ready {
	r := new(ready)
	if p := j.prep; p != nil {
		// What the preparation assumed and the copy of its result are not
		// needed past here, and the job lives as long as the answer streams.
		j.prep = nil
		*r = p.wait()
	} else {
		*r = s.prepare(ctx, j, false)
	}
	return r
}

// opened is the tutor_chat route read and its provider opened, or the
// failed outcome saying why it cannot be used.
type opened struct {
	route *models.AIRoute
	prov  Provider
	o     outcome
}

// prepare reads the tutor_chat route, opens its provider and builds the
// request for j. early starts the reads at once, side by side; else they
// run one after the other, the route first. The outcome is the same
// either way: a route that cannot be used fails the answer first, then a
// request that cannot be built.
func (s *Service) prepare(ctx context.Context, j *job, early bool) ready {
	provider := soon(early, func() opened {
		route, prov, o := s.provider(ctx)
		return opened{route, prov, o}
	})
	if !early {
		if p := provider(); p.o.status != "" {
			return ready{o: p.o}
		}
	}
	req, receipt, err := s.buildRequest(ctx, j, early)
	p := provider()
	o := p.o
	switch {
	case o.status != "":
		return ready{o: o}
	case err != nil:
		return ready{o: o.readFailed(ctx, err)}
	}
	req.Model, req.Temperature, req.MaxTokens = p.route.Model, p.route.Temperature, p.route.MaxTokens
	if o.model == "" {
		o.model = ModelOf(p.prov)
	}
	o.receipt = receipt
	return ready{prov: p.prov, req: req, o: o}
}

// soon returns f's result, computed once: from now on, in a goroutine of
// its own, when early; else when it is first asked for.
func soon[T any](early bool, f func() T) func() T {
	if !early {
		return sync.OnceValue(f)
	}
	ch := make(chan T, 1) // the goroutine never waits for a reader
	go func() { ch <- f() }()
	return sync.OnceValue(func() T { return <-ch })
}

// preparation is an answer's request being prepared while its question
// is recorded, from the thread and locale the front already knew.
type preparation struct {
	assumed *job // the job as the front's thread and locale describe it
	cancel  context.CancelFunc
	result  func() ready
	// mu guards the early provider call: discard ends it, and none
	// starts after a discard.
	mu        sync.Mutex
	discarded bool
	endCall   context.CancelFunc
}

// prepareEarly starts preparing the answer to in before its question is
// recorded, when the front told Ask the thread it read (nil otherwise:
// the generation prepares it afterwards, as it always did). ctx is the
// generation's, so a Stop or a shutdown ends the preparation too; the
// answer's time limit counts from here.
func (s *Service) prepareEarly(ctx context.Context, in AskInput, question, plain string, passage *Passage) *preparation {
	known := in.known()
	if known == nil {
		return nil
	}
	c, locale := known.Conversation, known.Locale
	j := &job{answer: models.Message{UserID: in.UserID, ConversationID: c.ID}, conv: c, question: question,
		plain: plain, beforeSeq: c.NextSeq, noHistory: c.NextSeq == 0, lang: in.Lang, passage: passage,
		locale: &locale, start: s.now()}
	genCtx, early := ctx, s.mayStartEarly(in.UserID)
	ctx, cancel := context.WithTimeoutCause(ctx, s.cfg.AnswerTimeout, errAnswerTimeout)
	p := &preparation{assumed: j, cancel: cancel}
	p.result = soon(true, func() ready {
		r := s.prepare(ctx, j, true)
		if early && r.o.status == "" && r.prov != nil {
			r.prov = p.startCall(genCtx, r.prov, r.req)
		}
		return r
	})
	return p
}

// startCall starts the prepared request's provider call (see early.go)
// under the generation's context, unless the preparation was discarded
// meanwhile; it returns the provider the generation streams through.
func (p *preparation) startCall(genCtx context.Context, prov Provider, req Request) Provider {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.discarded {
		return prov
	}
	ctx, end := context.WithCancel(genCtx)
	p.endCall = end
	return startEarly(ctx, end, prov, req)
}

// wait is the prepared request once ready. It needs no context of its
// own: the preparation runs under the generation's, so whatever ends the
// generation (a Stop, a shutdown, the time limit) ends it as well.
func (p *preparation) wait() ready {
	defer p.cancel()
	return p.result()
}

// adopt hands j the preparation when the recorded turn is the one it
// assumed; otherwise the preparation is dropped and the generation
// prepares the request itself, after the turn, as without one.
func (s *Service) adopt(j *job, p *preparation, t *models.Turn) {
	if p == nil {
		return
	}
	if !p.fits(t) {
		p.discard()
		s.log.Debug("tutor: prepared request dropped: the recorded turn differs from the thread read",
			"conversation", t.Conversation.ID, "seq", t.User.Seq, "assumed", p.assumed.beforeSeq)
		return
	}
	j.prep, j.start = p, p.assumed.start
}

// discard ends a preparation whose question was refused or whose
// assumptions the recorded turn proved wrong; nil is none.
func (p *preparation) discard() {
	if p == nil {
		return
	}
	p.cancel()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.discarded = true
	if p.endCall != nil {
		p.endCall()
	}
}

// fits says whether the recorded turn is the one the preparation
// assumed: the question took the seq the thread's next one promised (no
// other question came in between, so the history read is the one before
// it), the thread has the mode, style, lesson and module read, and the
// answer's language falls back to the same locale.
func (p *preparation) fits(t *models.Turn) bool {
	a, c := p.assumed, t.Conversation
	return t.User.Seq == a.beforeSeq && a.noHistory == (t.User.Seq == 0 && !t.HasContext) &&
		(a.lang == "en" || a.lang == "es" || *a.locale == t.Locale) &&
		c.Mode == a.conv.Mode && c.Style == a.conv.Style && same(c.LessonID, a.conv.LessonID) && sameModule(c, a.conv)
}

// sameModule says whether the recorded thread c has the module the
// preparation assumed. A lesson thread opened without one is stored
// with its lesson's, the module the preparation read with the lesson
// (lessonModule).
func sameModule(c, assumed models.Conversation) bool {
	if assumed.ModuleID == nil && lessonThread(assumed) {
		return true
	}
	return same(c.ModuleID, assumed.ModuleID)
}

// same says whether two optional values are equal (both absent, or both
// present and equal).
func same[T comparable](a, b *T) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
