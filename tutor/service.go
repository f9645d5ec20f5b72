package tutor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"aula/models"
	"aula/tutor/stream"
)

// Service answers questions: Ask records them and starts a generation
// that streams through the stream broker; every front calls it.
type Service struct {
	cfg    Config
	log    *slog.Logger
	convs  *models.Conversations
	msgs   *models.Messages
	quotas *models.Quotas
	routes *models.AIRoutes
	users  *models.Users
	checks *models.Checks
	retr   *Retriever
	// streams carries the answers in flight to their readers, here and
	// on other processes, and drains them on shutdown.
	streams *stream.Broker
	// overQuota holds the users refused for the month's quota (user id →
	// month), whose questions get no early provider call (early.go).
	overQuota sync.Map
	// titles holds a token per thread being named (title.go, titleSlots).
	titles chan struct{}
	// stopEmbed and embedDone end and await the embed loop (embed_pass.go).
	stopEmbed context.CancelFunc
	embedDone chan struct{}
}

// New builds a service; call Start before serving and Close on shutdown.
func New(cfg Config) *Service {
	cfg = cfg.withDefaults()
	retr := NewRetriever(cfg.DB)
	streams := stream.New(cfg.DB, withContentChannel(cfg.Stream, retr.chunks.ContentChanged), cfg.Logger)
	s := &Service{
		cfg: cfg, log: cfg.Logger.With("instance", streams.InstanceID()),
		convs: models.NewConversations(cfg.DB), msgs: models.NewMessages(cfg.DB),
		quotas: models.NewQuotas(cfg.DB), routes: models.NewAIRoutes(cfg.DB), users: models.NewUsers(cfg.DB),
		checks: models.NewChecks(cfg.DB), retr: retr, streams: streams,
		titles: make(chan struct{}, titleSlots),
	}
	s.retr.vectors = newVectors(cfg.DB, cfg, s.log)
	return s
}

// Start recovers from stopped processes (answers left streaming whose
// lease ran out fail as "interrupted" and their questions are refunded;
// answers other live processes are generating are left alone), seeds the
// missing provider routes from the configured default, and starts the
// background work shared with the other processes: the LISTEN connection,
// the lease heartbeat and the sweep of expired leases.
func (s *Service) Start(ctx context.Context) error {
	if err := s.streams.Start(ctx); err != nil {
		return fmt.Errorf("start tutor: %w", err)
	}
	if err := s.routes.SeedMissing(ctx, s.cfg.DefaultProvider, s.cfg.DefaultModel); err != nil {
		return fmt.Errorf("start tutor: %w", err)
	}
	if err := s.startVectors(ctx); err != nil {
		return fmt.Errorf("start tutor: %w", err)
	}
	return nil
}

// Close stops accepting questions, ends the generations in flight (they
// fail as "interrupted", refunded) and waits for them to be stored.
func (s *Service) Close() {
	s.streams.Close()
	s.stopVectors()
}

// Drain is a graceful stop: it refuses new questions (ErrClosed), lets the
// answers in flight finish until ctx ends, then Closes, which stores any
// still running as interrupted (and refunds them).
func (s *Service) Drain(ctx context.Context) {
	s.streams.Drain(ctx)
	s.stopVectors()
}

// Streams is the answers in flight, for the fronts that read them.
func (s *Service) Streams() *stream.Broker { return s.streams }

// Conversations is the store of threads the service records questions
// in, for the fronts: one per process, so the threads it remembers (see
// models.Conversations.Remembered) are the ones every front saw.
func (s *Service) Conversations() *models.Conversations { return s.convs }

// withContentChannel is sc whose LISTEN connection also follows
// models.ContentChannel: a section changed by any process (or a
// connection that was down and may have missed one) calls forget.
func withContentChannel(sc stream.Config, forget func()) stream.Config {
	listen := map[string]func(string){}
	maps.Copy(listen, sc.Listen)
	listen[models.ContentChannel] = func(string) { forget() }
	sc.Listen = listen
	return sc
}

// ContentChanged tells the service's retrieval that the lessons students
// read changed in this process (models.Content.Changed): a word it
// remembers as not covered is checked again.
func (s *Service) ContentChanged() { s.retr.chunks.ContentChanged() }

func (s *Service) now() time.Time { return s.cfg.Now().UTC() }

// AskInput is one question.
type AskInput struct {
	UserID         string
	ConversationID string
	Content        string
	Attachment     *models.AttachmentInput // optional, text already extracted
	// Lang forces the answer language ("en" or "es"); "" detects it.
	Lang string
	// Passage is text of the lesson the student selected and asks about
	// ("" none): the answer's primary context. Only a lesson thread takes one.
	Passage string
	// Known is what the front has already read for this question (nil:
	// nothing). Given it, the answer's request is prepared while the
	// question is recorded rather than after.
	Known *Known
	// Opens is the new conversation the question opens (models.NewThread,
	// its ID the ConversationID; nil: an existing one): it is stored with
	// the question, only when the question is admitted.
	Opens *models.Conversation
}

// Known is what a front read before asking: the thread, as it has just
// read or created it for this user, and the user's interface language
// ("" detects the answer's), as authentication read it. The turn Ask
// records says whether they still hold.
type Known struct {
	Conversation models.Conversation
	Locale       string
}

// known is what the front read for this question, nil when nothing or
// when it read another thread than the one asked in.
func (in AskInput) known() *Known {
	if in.Known == nil || in.Known.Conversation.ID != in.ConversationID {
		return nil
	}
	return in.Known
}

// AskResult is what Ask recorded: the question and the pending answer,
// whose text streams through Stream.
type AskResult struct {
	Conversation     models.Conversation
	UserMessage      models.Message
	AssistantMessage models.Message
	// Usage is the user's count of the month as the question left it.
	Usage models.QuotaUsage
}

// Ask records a question and starts answering it; the answer streams
// through Stream(…, AssistantMessage.ID, 0). Errors: models.ErrNotFound
// (not the user's conversation; nothing written) or a *Refusal (empty,
// too long, quota, busy).
func (s *Service) Ask(ctx context.Context, in AskInput) (*AskResult, error) {
	content, err := CheckQuestion(in.Content, in.Attachment != nil && strings.TrimSpace(in.Attachment.Text) != "")
	if err != nil {
		return nil, err
	}
	if content == "" {
		// A question that is only a file: the bubble and the thread title
		// name the file (a language-neutral label).
		content = "📎 " + in.Attachment.Filename
	}
	passage, err := s.passageFor(ctx, in.UserID, in.ConversationID, in.known(), in.Passage)
	if err != nil {
		return nil, err
	}
	question := content
	if a := in.Attachment; a != nil && strings.TrimSpace(a.Text) != "" {
		question = withAttachment(content, a.Filename, a.Text)
	}
	aid := uuid.NewString()
	st, genCtx, _ := s.streams.Open(aid, in.UserID)
	prep := s.prepareEarly(genCtx, in, question, content, passage)
	turn, err := s.msgs.BeginTurn(ctx, models.TurnInput{UserID: in.UserID, ConversationID: in.ConversationID,
		Content: content, AssistantID: aid, Now: s.now(), Attachment: in.Attachment, Lease: s.streams.Lease(),
		Metadata: questionMetadata(passage), Opens: in.Opens})
	if err != nil {
		prep.discard()
		s.streams.Abandon(st)
		if errors.Is(err, ErrQuotaExceeded) {
			s.noteOverQuota(in.UserID)
		}
		if errors.Is(err, models.ErrNotFound) || errors.Is(err, ErrQuotaExceeded) || errors.Is(err, models.ErrHelpModeOff) {
			return nil, asRefusal(err)
		}
		return nil, fmt.Errorf("ask: %w", err)
	}
	s.convs.Remember(turn.Conversation)
	// The job lives as long as the answer streams: it points at a copy of
	// the locale, not into the turn, which would keep the whole turn.
	locale := turn.Locale
	j := &job{st: st, answer: turn.Assistant, conv: turn.Conversation, question: question, plain: content,
		beforeSeq: turn.User.Seq, lang: in.Lang, passage: passage, locale: &locale,
		noHistory: turn.User.Seq == 0 && !turn.HasContext}
	s.adopt(j, prep, turn)
	if !s.launch(genCtx, j) {
		// Closed between the commit and here: the answer must not stay streaming.
		prep.discard()
		s.finishFailed(j, CodeInterrupted)
		return nil, refused(RefusedBusy, ErrClosed)
	}
	return &AskResult{Conversation: turn.Conversation, UserMessage: turn.User, AssistantMessage: turn.Assistant,
		Usage: turn.Usage}, nil
}

// launch starts the generation unless the service is closing.
func (s *Service) launch(ctx context.Context, j *job) bool {
	return s.streams.Launch(func() { s.generate(ctx, j) }) == nil
}

// Retry regenerates an answer of the user in place (same id and seq):
// failed, cancelled or complete answers may be retried; a question is
// reserved again, so ErrQuotaExceeded is possible. It returns the reopened
// (streaming) answer.
func (s *Service) Retry(ctx context.Context, userID, msgID string) (*models.Message, error) {
	st, genCtx, ok := s.streams.Open(msgID, userID)
	if !ok {
		if _, err := s.msgs.Get(ctx, userID, msgID); err != nil {
			return nil, err
		}
		return nil, refused(RefusedNotRetryable, ErrNotRetryable)
	}
	answer, question, err := s.msgs.BeginRetry(ctx, userID, msgID, s.now(), s.streams.Lease())
	if err != nil {
		s.streams.Abandon(st)
		if errors.Is(err, models.ErrNotFound) || errors.Is(err, ErrQuotaExceeded) || errors.Is(err, ErrNotRetryable) ||
			errors.Is(err, models.ErrHelpModeOff) {
			return nil, asRefusal(err)
		}
		return nil, fmt.Errorf("retry: %w", err)
	}
	j := &job{st: st, answer: *answer, question: question.Content, plain: question.Content, beforeSeq: question.Seq,
		passage: PassageOf(question.Metadata)}
	if err := s.launchAgain(ctx, genCtx, userID, j, question); err != nil {
		return nil, fmt.Errorf("retry: %w", err)
	}
	return answer, nil
}
