package tutor

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"aula/models"
	"aula/tutor/stream"
)

// job is one generation to run.
type job struct {
	st        *stream.Stream
	answer    models.Message
	conv      models.Conversation
	question  string // the student's text, attachment included
	plain     string // the student's text alone (language, retrieval)
	beforeSeq int    // history ends before the question's seq
	noHistory bool   // known to have no earlier turns: the history read is skipped
	lang      string
	passage   *Passage // the lesson passage asked about, nil if none
	locale    *string  // the student's interface language; nil when not read yet
	start     time.Time
	// partial is the stopped answer a Continue goes on from ("" otherwise);
	// the stream starts with it, so the stored text is it plus the rest.
	partial string
	// prep is the request prepared while the question was recorded (nil:
	// the generation reads the route and builds the request itself).
	prep *preparation
}

// outcome is how a generation ended.
type outcome struct {
	status    string
	code      string
	detail    string
	content   string
	provider  string
	model     string
	ttft      *int
	usage     Usage
	receipt   Receipt
	truncated bool
}

// generate runs one answer to its end and stores it; it never returns
// before the row leaves the streaming status.
//
// While the answer streams, this goroutine waits for the provider's
// tokens with generate's, run's and streamAnswer's frames under it, and
// the collector halves a waiting goroutine's stack only while it uses
// under a quarter of it: so these frames hold pointers, not the request
// and the outcome (hundreds of bytes each), and what runs after the
// stream (settle, conclude) has frames of its own. A class of a thousand
// answers keeps a thousand of these stacks.
func (s *Service) generate(ctx context.Context, j *job) {
	if j.prep == nil {
		// A prepared job started when its preparation did.
		j.start = s.now()
	}
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, s.cfg.AnswerTimeout, errAnswerTimeout)
	defer cancelTimeout()
	defer j.st.Cancel(nil)
	// A continuation's row already holds the kept text its stream starts with.
	stopPersist := s.streams.Persist(j.st, len(j.partial))
	s.conclude(ctx, j, s.run(ctx, j), stopPersist)
}

// conclude stores the outcome o of j's generation under ctx, once the
// persisting of its text has stopped, and names a new thread.
func (s *Service) conclude(ctx context.Context, j *job, o *outcome, stopPersist func()) {
	if o.status == models.StatusFailed && errors.Is(context.Cause(ctx), stream.ErrCancelled) {
		// Stop is never an error, whatever it interrupted (reading the
		// route, retrieving, waiting for the first token): what was
		// written is kept, refunded only when nothing was.
		o.status, o.code, o.detail, o.content = models.StatusCancelled, "", "", stream.Clean(j.st.Text())
	}
	// The batch writer stops before Finish, so a late batch cannot race
	// the final text (it would be refused anyway: the row is no longer streaming).
	stopPersist()
	s.store(j, *o)
	if o.status == models.StatusComplete && j.beforeSeq == 0 && j.conv.ID != "" && j.conv.Title == models.TitleFrom(j.plain) {
		s.nameThread(j, o.receipt.Lang)
	}
}

// run asks the provider of the tutor_chat route and streams its answer
// into the job's stream; the outcome says how it ended.
func (s *Service) run(ctx context.Context, j *job) *outcome {
	r := s.readyFor(ctx, j)
	if r.o.status != "" {
		return &r.o
	}
	cause, err := s.streamAnswer(ctx, j, r.sender(), &r.o)
	s.settle(j, r, cause, err)
	return &r.o
}

// settle completes r's outcome once its stream ended with cause (nil: on
// its own) and the provider's err: its status, the sources it cited and
// the tokens it used (estimated where the provider did not say).
func (s *Service) settle(j *job, r *ready, cause, err error) {
	o := r.o.ended(cause, err, stream.Clean(j.st.Text()))
	markCited(o.receipt.Citations, r.req.Sources, o.content)
	est := estimateUsage(r.req, o.content)
	if o.usage.TokensIn == 0 {
		o.usage.TokensIn = est.TokensIn
	}
	if o.usage.TokensOut == 0 {
		o.usage.TokensOut = est.TokensOut
	}
	r.o = o
}

// provider opens the provider of the tutor_chat route; a failed outcome
// (status set) when it cannot be used.
func (s *Service) provider(ctx context.Context) (*models.AIRoute, Provider, outcome) {
	route, err := s.route(ctx, models.UseTutorChat)
	if err != nil {
		return nil, nil, outcome{}.readFailed(ctx, err)
	}
	o := outcome{provider: route.Provider, model: route.Model}
	prov, err := s.OpenProvider(ctx, *route)
	if err != nil {
		return nil, nil, o.failed(providerErrorCode(err), err.Error())
	}
	return route, prov, o
}

// sender streams a request's answer to onToken under ctx.
type sender func(ctx context.Context, onToken func(string) error) (Usage, error)

// sender is how r's answer is streamed: a call started early is
// followed without the request in hand (the generation waits for its
// tokens with no copy of it on its stack, see generate), else r's
// provider is called with r's request.
func (r *ready) sender() sender {
	if p, ok := r.prov.(*earlyProvider); ok {
		return p.follow
	}
	return func(ctx context.Context, onToken func(string) error) (Usage, error) {
		return r.prov.Stream(ctx, r.req, onToken)
	}
}

// streamAnswer streams the answer send brings into the job's stream,
// within the first-token timeout and the answer size cap. It returns why
// the stream's context ended (nil if it did not) and the provider's error.
func (s *Service) streamAnswer(ctx context.Context, j *job, send sender, o *outcome) (cause, err error) {
	streamCtx, cancelStream := context.WithCancelCause(ctx)
	defer cancelStream(nil)
	firstToken := time.AfterFunc(s.cfg.FirstTokenTimeout, func() { cancelStream(errFirstTokenTimeout) })
	defer firstToken.Stop()
	size := len(j.partial) // the cap is the answer's, across its continuations
	o.usage, err = send(streamCtx, func(tok string) error {
		if tok == "" {
			return nil
		}
		if o.ttft == nil {
			firstToken.Stop()
			ms := int(s.now().Sub(j.start).Milliseconds())
			o.ttft = &ms
		}
		if size+len(tok) > s.cfg.MaxAnswerBytes {
			tok = tok[:stream.CompleteRunes([]byte(tok[:s.cfg.MaxAnswerBytes-size]))]
			o.truncated = true
		}
		j.st.Append(tok)
		size += len(tok)
		if o.truncated {
			return errAnswerTooLong
		}
		return nil
	})
	if streamCtx.Err() != nil {
		cause = context.Cause(streamCtx)
	}
	return cause, err
}

// ended is the outcome of a stream that ended with cause (nil: on its
// own) and the provider's err, having produced text.
func (o outcome) ended(cause, err error, text string) outcome {
	switch {
	case o.truncated:
		o.status, o.content = models.StatusComplete, text
	case errors.Is(cause, stream.ErrCancelled):
		o.status, o.content = models.StatusCancelled, text
	case errors.Is(cause, stream.ErrLeaseLost):
		return o.failed(CodeInterrupted, "")
	case cause != nil:
		return o.failed(codeOfCause(cause), "")
	case err != nil:
		return o.failed(providerErrorCode(err), err.Error())
	case strings.TrimSpace(text) == "":
		return o.failed(CodeEmptyAnswer, "")
	default:
		o.status, o.content = models.StatusComplete, text
	}
	return o
}

// failed is o ended as failed with code and detail.
func (o outcome) failed(code, detail string) outcome {
	o.status, o.code, o.detail = models.StatusFailed, code, detail
	return o
}

// readFailed is o ended by a read (the route, the history, the
// sources, the lesson) that failed with err under ctx. When the answer's
// time ran out or it was stopped meanwhile, that is why it ended, not
// the read.
func (o outcome) readFailed(ctx context.Context, err error) outcome {
	if c := causeCode(ctx); c != "" {
		return o.failed(c, "")
	}
	return o.failed(CodeContextError, err.Error())
}

// causeCode names why ctx ended, "" if it has not.
func causeCode(ctx context.Context) string {
	if ctx.Err() == nil {
		return ""
	}
	return codeOfCause(context.Cause(ctx))
}

// codeOfCause is the error code of a generation's end cause: a timeout's
// own, interrupted for anything else (shutdown, a stop elsewhere).
func codeOfCause(cause error) string {
	switch {
	case errors.Is(cause, errFirstTokenTimeout):
		return CodeFirstTokenTimeout
	case errors.Is(cause, errAnswerTimeout):
		return CodeAnswerTimeout
	default:
		return CodeInterrupted
	}
}

// providerErrorCode classifies a provider error for the error event.
func providerErrorCode(err error) string {
	switch {
	case errors.Is(err, ErrNoCredentials):
		return CodeNoCredentials
	case errors.Is(err, ErrUnknownProvider):
		return CodeUnknownProvider
	}
	if code := ErrorCode(err); code != "" {
		return code
	}
	return CodeProviderError
}

// store persists the outcome and refunds a failed (or empty cancelled)
// question in one transaction, then publishes the final state and frees
// the buffer. Readers are told the answer is done only once it is stored:
// while the write fails (the database away, or refusing writes) the
// finished answer is kept and stored again with a growing pause; the
// stream stays registered meanwhile, so its lease is renewed as soon as
// the database takes writes again.
func (s *Service) store(j *job, o outcome) {
	if o.status == models.StatusFailed && j.partial != "" {
		// A continuation that failed leaves the answer stopped, its text
		// kept, to be continued again; its question stays counted.
		s.log.Warn("tutor: continuation failed", "message", j.answer.ID, "code", o.code, "detail", o.detail)
		o.status, o.code, o.detail, o.content = models.StatusCancelled, "", "", stream.Clean(j.st.Text())
	}
	if o.status == models.StatusFailed {
		o.content = "" // a failed answer is never kept half-written
	}
	// The detail (a provider's or the database's own words) goes to the
	// log only: the metadata reaches the student (their data export).
	o.receipt.Truncated = o.truncated
	meta, _ := json.Marshal(o.receipt)
	in := models.FinishInput{Status: o.status, Content: o.content, ErrorCode: o.code, Provider: o.provider, Model: o.model,
		LatencyMs: int(s.now().Sub(j.start).Milliseconds()), TtftMs: o.ttft,
		TokensIn: o.usage.TokensIn, TokensOut: o.usage.TokensOut, Metadata: meta, Now: s.now(), LeaseOwner: s.streams.InstanceID()}
	// Only the process that stored the final state refunds: a row another
	// process already ended (lease expired) was refunded by that process.
	refund := j.partial == "" && (o.status == models.StatusFailed || (o.status == models.StatusCancelled && o.content == "") ||
		(o.status == models.StatusComplete && o.usage.Uncounted))
	m := s.finish(j.answer.ID, in, refund)
	if o.status == models.StatusFailed {
		s.log.Warn("tutor: answer failed", "message", j.answer.ID, "code", o.code, "provider", o.provider, "detail", o.detail)
	}
	ctx, cancel := context.WithTimeout(context.Background(), persistTimeout)
	defer cancel()
	stored := m != nil
	if !stored {
		m = s.unstored(ctx, j)
	}
	s.streams.End(ctx, j.st, m, stored)
}

// unstored is what the readers of j's answer are told when this process
// did not store it: the row as another process ended it, else (the row
// is still streaming, or cannot be read) that it was interrupted. Never
// "done": that promises a stored answer.
func (s *Service) unstored(ctx context.Context, j *job) *models.Message {
	m, err := s.msgs.Get(ctx, j.answer.UserID, j.answer.ID)
	if err == nil && m.Status != models.StatusStreaming {
		return m
	}
	m = &j.answer
	m.Status, m.Content, m.ErrorCode = models.StatusFailed, "", CodeInterrupted
	return m
}

// finish writes the final state (and the refund) until it is written or
// the row turns out to be no longer ours. A write that fails for any
// reason is tried again with a growing pause, not only a lost
// connection: a database that refuses writes for a while (read-only, a
// full disk) comes back as an outage does, and the answer's readers are
// told it is done only once it is stored. Once the process is stopping
// it tries for at most persistTimeout more. It returns the row this
// process stored, nil if it stored none.
func (s *Service) finish(id string, in models.FinishInput, refund bool) *models.Message {
	pause := 100 * time.Millisecond
	var giveUp <-chan time.Time
	for {
		ctx, cancel := context.WithTimeout(context.Background(), persistTimeout)
		m, err := s.finishOnce(ctx, id, in, refund)
		cancel()
		if err == nil {
			return m
		}
		level := slog.LevelWarn
		if !models.IsUnavailable(err) {
			level = slog.LevelError // not the database being away: worth a look
		}
		s.log.Log(context.Background(), level, "tutor: store answer failed; storing it again", "message", id, "retry", pause, "err", err)
		if giveUp == nil {
			select {
			case <-s.streams.Stopping():
				giveUp = time.After(persistTimeout)
			default:
			}
		}
		select {
		case <-time.After(pause):
		case <-giveUp:
			s.log.Error("tutor: stopped before the answer could be stored; answer not stored", "message", id)
			return nil
		}
		pause = min(pause*2, 2*time.Second)
	}
}

// finishOnce stores the final state once. Only a refunded answer needs a
// transaction (its final state and the refund stand or fall together);
// the others go alone, which lets the answers ending together share one
// statement.
func (s *Service) finishOnce(ctx context.Context, id string, in models.FinishInput, refund bool) (*models.Message, error) {
	if !refund {
		return s.msgs.Finish(ctx, id, in)
	}
	var m *models.Message
	err := models.WithTx(ctx, s.cfg.DB, func(ctx context.Context) error {
		var err error
		if m, err = s.msgs.Finish(ctx, id, in); err != nil || m == nil {
			return err
		}
		if _, err = s.quotas.Refund(ctx, id); err == nil {
			m.QuotaPeriod = nil // the refund cleared it after the row was read
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// finishFailed ends a job that never ran.
func (s *Service) finishFailed(j *job, code string) {
	j.start = s.now()
	s.store(j, outcome{status: models.StatusFailed, code: code})
	j.st.Cancel(nil)
}
