package tutor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"aula/models"
	"aula/tutor/stream"
)

// Service defaults.
const (
	DefaultFirstTokenTimeout = 30 * time.Second
	DefaultAnswerTimeout     = 3 * time.Minute
	DefaultMaxAnswerBytes    = 64 << 10
	MaxQuestionChars         = 4000
	maxAttachmentChars       = 20000
	persistTimeout           = 10 * time.Second
)

// Error codes stored in messages.error_code and sent in `error` events.
const (
	CodeNoCredentials     = "no_credentials"
	CodeUnknownProvider   = "unknown_provider"
	CodeProviderError     = "provider_error" // a provider failure with no finer code (see ProviderError codes)
	CodeFirstTokenTimeout = "first_token_timeout"
	CodeAnswerTimeout     = "answer_timeout"
	CodeEmptyAnswer       = "empty_answer"
	CodeInterrupted       = "interrupted"
	CodeContextError      = "context_error"
)

// Errors the fronts render.
var (
	// ErrQuotaExceeded is the month's plan limit; the error is a
	// *models.QuotaError with the used count, the limit and the reset date.
	ErrQuotaExceeded = models.ErrQuotaExceeded
	// ErrEmptyQuestion is a question with no text and no attachment.
	ErrEmptyQuestion = errors.New("the question is empty")
	// ErrQuestionTooLong is a question over MaxQuestionChars characters.
	ErrQuestionTooLong = fmt.Errorf("the question is longer than %d characters", MaxQuestionChars)
	// ErrNotRetryable is a retry of an answer still being generated.
	ErrNotRetryable = models.ErrNotRetryable
	// ErrClosed is a question after Close.
	ErrClosed = errors.New("tutor service is shutting down")
)

// QuotaError is the detail of ErrQuotaExceeded.
type QuotaError = models.QuotaError

// Causes of a generation's end, told apart through context.Cause (the
// stream package sets the others: stop, shutdown, lease lost).
var (
	errFirstTokenTimeout = errors.New("no first token in time")
	errAnswerTimeout     = errors.New("answer took too long")
	errAnswerTooLong     = errors.New("answer reached the size cap")
)

// Final is how an answer ended (see stream.Final).
type Final = stream.Final

// Subscription reads one answer (see stream.Subscription).
type Subscription = stream.Subscription

// Config is what a Service is built from.
type Config struct {
	DB          *gorm.DB
	Credentials Credentials
	Logger      *slog.Logger
	// DefaultProvider and DefaultModel seed the ai_routes rows that are
	// missing at Start; "" means offline.
	DefaultProvider string
	DefaultModel    string

	FirstTokenTimeout time.Duration // default 30s
	AnswerTimeout     time.Duration // default 3m
	MaxAnswerBytes    int           // default 64 KiB; longer answers are cut and flagged
	HistoryMessages   int           // default 24
	HistoryTokens     int           // default 3000 (about 4 characters a token)
	LessonBudget      int           // default 8000 characters
	TopK              int           // retrieved chunks, default 5

	// Now is the clock (quota periods, timestamps); tests move it.
	Now func() time.Time
	// NewProvider builds a provider for a route; default NewProvider.
	NewProvider func(ctx context.Context, name, model string, creds Credentials) (Provider, error)
	// CheckCredentials says whether a provider can be used; default CheckCredentials.
	CheckCredentials func(name string, creds Credentials) error

	// Stream tunes the answers in flight: leases, batching, the LISTEN
	// connection (its DatabaseURL) and polling; its clock defaults to Now.
	Stream stream.Config
}

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
	retr   *Retriever
	// streams carries the answers in flight to their readers, here and
	// on other processes, and drains them on shutdown.
	streams *stream.Broker
}

// New builds a service; call Start before serving and Close on shutdown.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.DefaultProvider == "" {
		cfg.DefaultProvider = ProviderOffline
	}
	if cfg.FirstTokenTimeout <= 0 {
		cfg.FirstTokenTimeout = DefaultFirstTokenTimeout
	}
	if cfg.AnswerTimeout <= 0 {
		cfg.AnswerTimeout = DefaultAnswerTimeout
	}
	if cfg.MaxAnswerBytes <= 0 {
		cfg.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	if cfg.HistoryMessages <= 0 {
		cfg.HistoryMessages = DefaultHistoryMessages
	}
	if cfg.HistoryTokens <= 0 {
		cfg.HistoryTokens = DefaultHistoryTokens
	}
	if cfg.LessonBudget <= 0 {
		cfg.LessonBudget = DefaultLessonBudget
	}
	if cfg.TopK <= 0 {
		cfg.TopK = DefaultTopK
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewProvider == nil {
		cfg.NewProvider = NewProvider
	}
	if cfg.CheckCredentials == nil {
		cfg.CheckCredentials = CheckCredentials
	}
	if cfg.Stream.Now == nil {
		cfg.Stream.Now = cfg.Now
	}
	streams := stream.New(cfg.DB, cfg.Stream, cfg.Logger)
	s := &Service{
		cfg: cfg, log: cfg.Logger.With("instance", streams.InstanceID()),
		convs: models.NewConversations(cfg.DB), msgs: models.NewMessages(cfg.DB),
		quotas: models.NewQuotas(cfg.DB), routes: models.NewAIRoutes(cfg.DB), users: models.NewUsers(cfg.DB),
		retr: NewRetriever(cfg.DB), streams: streams,
	}
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
	if err := s.SeedRoutes(ctx, s.cfg.DefaultProvider, s.cfg.DefaultModel); err != nil {
		return fmt.Errorf("start tutor: %w", err)
	}
	return nil
}

// Close stops accepting questions, ends the generations in flight (they
// fail as "interrupted", refunded) and waits for them to be stored.
func (s *Service) Close() { s.streams.Close() }

// Drain is a graceful stop: it refuses new questions (ErrClosed), lets the
// answers in flight finish until ctx ends, then Closes, which stores any
// still running as interrupted (and refunds them).
func (s *Service) Drain(ctx context.Context) { s.streams.Drain(ctx) }

// Streams is the answers in flight, for the fronts that read them.
func (s *Service) Streams() *stream.Broker { return s.streams }

// Hub is the service's in-flight generations.
func (s *Service) Hub() *stream.Hub { return s.streams.Hub() }

func (s *Service) now() time.Time { return s.cfg.Now().UTC() }

// AskInput is one question.
type AskInput struct {
	UserID         string
	ConversationID string
	Content        string
	Attachment     *models.AttachmentInput // optional, text already extracted
	// Lang forces the answer language ("en" or "es"); "" detects it.
	Lang string
	// Seed is context another program brings for a new conversation
	// (see SeedTurns); it enters the prompt but is not stored.
	Seed []Turn
}

// AskResult is what Ask recorded: the question and the pending answer,
// whose text streams through Stream.
type AskResult struct {
	Conversation     models.Conversation
	UserMessage      models.Message
	AssistantMessage models.Message
}

// job is one generation to run.
type job struct {
	st        *stream.Stream
	answer    models.Message
	conv      models.Conversation
	question  string // the student's text, attachment included
	plain     string // the student's text alone (language, retrieval)
	beforeSeq int    // history ends before the question's seq
	lang      string
	seed      []Turn
	start     time.Time
}

// Ask records a question and starts answering it; the answer streams
// through Stream(…, AssistantMessage.ID, 0). Errors: models.ErrNotFound
// (not the user's conversation; nothing written), ErrQuotaExceeded (a
// *QuotaError), ErrEmptyQuestion, ErrQuestionTooLong, ErrClosed.
func (s *Service) Ask(ctx context.Context, in AskInput) (*AskResult, error) {
	content := strings.TrimSpace(strings.ToValidUTF8(in.Content, ""))
	if content == "" && (in.Attachment == nil || strings.TrimSpace(in.Attachment.Text) == "") {
		return nil, ErrEmptyQuestion
	}
	if utf8.RuneCountInString(content) > MaxQuestionChars {
		return nil, ErrQuestionTooLong
	}
	if content == "" {
		// A question that is only a file: the bubble and the thread title
		// name the file (a language-neutral label).
		content = "📎 " + in.Attachment.Filename
	}
	aid := uuid.NewString()
	st, genCtx, _ := s.streams.Open(aid, in.UserID)
	turn, err := s.msgs.BeginTurn(ctx, models.TurnInput{UserID: in.UserID, ConversationID: in.ConversationID,
		Content: content, AssistantID: aid, Now: s.now(), Attachment: in.Attachment, Lease: s.streams.Lease()})
	if err != nil {
		s.streams.Abandon(st)
		if errors.Is(err, models.ErrNotFound) || errors.Is(err, ErrQuotaExceeded) {
			return nil, err
		}
		return nil, fmt.Errorf("ask: %w", err)
	}
	question := content
	if a := in.Attachment; a != nil && strings.TrimSpace(a.Text) != "" {
		question = withAttachment(content, a.Filename, a.Text)
	}
	j := &job{st: st, answer: turn.Assistant, conv: turn.Conversation, question: question, plain: content,
		beforeSeq: turn.User.Seq, lang: in.Lang, seed: in.Seed}
	if !s.launch(genCtx, j) {
		// Closed between the commit and here: the answer must not stay streaming.
		s.finishFailed(j, CodeInterrupted)
		return nil, ErrClosed
	}
	return &AskResult{Conversation: turn.Conversation, UserMessage: turn.User, AssistantMessage: turn.Assistant}, nil
}

func withAttachment(content, filename, text string) string {
	return fmt.Sprintf("%s\n\n[Attached file %q]\n%s", content, filename, clipRunes(text, maxAttachmentChars))
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
		return nil, ErrNotRetryable
	}
	answer, question, err := s.msgs.BeginRetry(ctx, userID, msgID, s.now(), s.streams.Lease())
	if err != nil {
		s.streams.Abandon(st)
		if errors.Is(err, models.ErrNotFound) || errors.Is(err, ErrQuotaExceeded) || errors.Is(err, ErrNotRetryable) {
			return nil, err
		}
		return nil, fmt.Errorf("retry: %w", err)
	}
	j := &job{st: st, answer: *answer, question: question.Content, plain: question.Content, beforeSeq: question.Seq}
	conv, err := s.convs.Get(ctx, userID, answer.ConversationID)
	if err == nil {
		j.conv = *conv
		if text, filename, aerr := s.msgs.AttachmentText(ctx, userID, question.ID); aerr == nil && strings.TrimSpace(text) != "" {
			j.question = withAttachment(question.Content, filename, text)
		}
	}
	if err != nil || !s.launch(genCtx, j) {
		s.finishFailed(j, CodeInterrupted)
		if err != nil {
			return nil, fmt.Errorf("retry: %w", err)
		}
		return nil, ErrClosed
	}
	return answer, nil
}

// Cancel stops the user's answer in generation and waits until it is
// stored: the partial text is kept with status cancelled. A cancelled
// answer that had text still counts against the quota (the student got
// part of an answer); one stopped before any text is refunded.
func (s *Service) Cancel(ctx context.Context, userID, msgID string) error {
	return s.streams.Cancel(ctx, userID, msgID)
}

// Stream subscribes to the user's answer from a byte offset (see stream.Broker.Subscribe).
func (s *Service) Stream(ctx context.Context, userID, msgID string, offset int) (*Subscription, error) {
	return s.streams.Subscribe(ctx, userID, msgID, offset)
}

// Wait blocks until the user's answer is finished and returns it as stored.
func (s *Service) Wait(ctx context.Context, userID, msgID string) (*models.Message, error) {
	return s.streams.Wait(ctx, userID, msgID)
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
func (s *Service) generate(ctx context.Context, j *job) {
	j.start = s.now()
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, s.cfg.AnswerTimeout, errAnswerTimeout)
	defer cancelTimeout()
	defer j.st.Cancel(nil)
	stopPersist := s.streams.Persist(j.st)
	o := s.run(ctx, j)
	// The batch writer stops before Finish, so a late batch cannot race
	// the final text (it would be refused anyway: the row is no longer streaming).
	stopPersist()
	s.store(j, o)
}

func (s *Service) run(ctx context.Context, j *job) (o outcome) {
	route, err := s.route(ctx, models.UseTutorChat)
	if err != nil {
		return outcome{status: models.StatusFailed, code: CodeContextError, detail: err.Error()}
	}
	o.provider, o.model = route.Provider, route.Model
	if err := s.cfg.CheckCredentials(route.Provider, s.cfg.Credentials); err != nil {
		o.status, o.code, o.detail = models.StatusFailed, providerErrorCode(err), err.Error()
		return o
	}
	prov, err := s.cfg.NewProvider(ctx, route.Provider, route.Model, s.cfg.Credentials)
	if err != nil {
		o.status, o.code, o.detail = models.StatusFailed, providerErrorCode(err), err.Error()
		return o
	}
	req, receipt, err := s.buildRequest(ctx, j)
	if err != nil {
		if c := causeCode(ctx); c != "" {
			o.status, o.code = models.StatusFailed, c
			return o
		}
		o.status, o.code, o.detail = models.StatusFailed, CodeContextError, err.Error()
		return o
	}
	req.Model, req.Temperature, req.MaxTokens = route.Model, route.Temperature, route.MaxTokens
	if o.model == "" {
		o.model = ModelOf(prov)
	}
	o.receipt = receipt

	streamCtx, cancelStream := context.WithCancelCause(ctx)
	defer cancelStream(nil)
	firstToken := time.AfterFunc(s.cfg.FirstTokenTimeout, func() { cancelStream(errFirstTokenTimeout) })
	defer firstToken.Stop()
	first := true
	size := 0
	onToken := func(tok string) error {
		if tok == "" {
			return nil
		}
		if first {
			first = false
			firstToken.Stop()
			ms := int(s.now().Sub(j.start).Milliseconds())
			o.ttft = &ms
		}
		if size+len(tok) > s.cfg.MaxAnswerBytes {
			tok = tok[:stream.CompleteRunes([]byte(tok[:s.cfg.MaxAnswerBytes-size]))]
			j.st.Append(tok)
			size += len(tok)
			o.truncated = true
			return errAnswerTooLong
		}
		j.st.Append(tok)
		size += len(tok)
		return nil
	}
	usage, err := prov.Stream(streamCtx, req, onToken)
	o.usage = usage
	text := strings.ToValidUTF8(j.st.Text(), "\uFFFD")
	switch {
	case o.truncated:
		o.status, o.content = models.StatusComplete, text
	case errors.Is(context.Cause(streamCtx), stream.ErrCancelled):
		o.status, o.content = models.StatusCancelled, text
	case errors.Is(context.Cause(streamCtx), stream.ErrLeaseLost):
		o.status, o.code = models.StatusFailed, CodeInterrupted
	case streamCtx.Err() != nil:
		o.status, o.code = models.StatusFailed, causeCode(streamCtx)
	case err != nil:
		o.status, o.code, o.detail = models.StatusFailed, providerErrorCode(err), err.Error()
	case strings.TrimSpace(text) == "":
		o.status, o.code = models.StatusFailed, CodeEmptyAnswer
	default:
		o.status, o.content = models.StatusComplete, text
	}
	if o.usage.TokensIn == 0 {
		n := estimateTokens(req.System) + estimateTokens(req.Question)
		for _, t := range req.History {
			n += estimateTokens(t.Content)
		}
		o.usage.TokensIn = n
	}
	if o.usage.TokensOut == 0 {
		o.usage.TokensOut = estimateTokens(o.content)
	}
	return o
}

// causeCode names why ctx ended, "" if it has not.
func causeCode(ctx context.Context) string {
	if ctx.Err() == nil {
		return ""
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errFirstTokenTimeout):
		return CodeFirstTokenTimeout
	case errors.Is(cause, errAnswerTimeout):
		return CodeAnswerTimeout
	case errors.Is(cause, stream.ErrShutdown):
		return CodeInterrupted
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

// store persists the outcome, refunds a failed (or empty cancelled)
// question, then publishes the final state and frees the buffer.
func (s *Service) store(j *job, o outcome) {
	ctx, cancel := context.WithTimeout(context.Background(), persistTimeout)
	defer cancel()
	if o.status == models.StatusFailed {
		o.content = "" // a failed answer is never kept half-written
	}
	o.receipt.Truncated = o.truncated
	if o.detail != "" {
		o.receipt.Error = clipRunes(o.detail, 300)
	}
	meta, _ := json.Marshal(o.receipt)
	in := models.FinishInput{Status: o.status, Content: o.content, ErrorCode: o.code, Provider: o.provider, Model: o.model,
		LatencyMs: int(s.now().Sub(j.start).Milliseconds()), TtftMs: o.ttft,
		TokensIn: o.usage.TokensIn, TokensOut: o.usage.TokensOut, Metadata: meta, Now: s.now(), LeaseOwner: s.streams.InstanceID()}
	stored, err := s.msgs.Finish(ctx, j.answer.ID, in)
	if err != nil {
		// The row stays streaming; its lease is no longer renewed, so the
		// sweep fails and refunds it.
		s.log.Error("tutor: store answer", "message", j.answer.ID, "err", err)
	}
	// Only the process that stored the final state refunds: a row another
	// process already ended (lease expired) was refunded by that process.
	if stored && (o.status == models.StatusFailed || (o.status == models.StatusCancelled && o.content == "")) {
		if _, err := s.quotas.Refund(ctx, j.answer.ID); err != nil {
			s.log.Error("tutor: refund question", "message", j.answer.ID, "err", err)
		}
	}
	if o.status == models.StatusFailed {
		s.log.Warn("tutor: answer failed", "message", j.answer.ID, "code", o.code, "provider", o.provider, "detail", o.detail)
	}
	m, err := s.msgs.Get(ctx, j.answer.UserID, j.answer.ID)
	if err != nil {
		m = &j.answer
		m.Status, m.Content, m.ErrorCode, m.Metadata = o.status, o.content, o.code, meta
	}
	s.streams.End(ctx, j.st, m, stored)
}

// finishFailed ends a job that never ran.
func (s *Service) finishFailed(j *job, code string) {
	j.start = s.now()
	s.store(j, outcome{status: models.StatusFailed, code: code})
	j.st.Cancel(nil)
}

// buildRequest assembles what the provider sees and the receipt saying so.
func (s *Service) buildRequest(ctx context.Context, j *job) (Request, Receipt, error) {
	conv := j.conv
	hist, err := LoadHistory(ctx, s.msgs, j.answer.UserID, conv.ID, j.beforeSeq, s.cfg.HistoryMessages, s.cfg.HistoryTokens)
	if err != nil {
		return Request{}, Receipt{}, err
	}
	hist = withSeed(hist, j.seed, s.cfg.HistoryTokens)
	lang := j.lang
	if lang != "en" && lang != "es" {
		locale := ""
		if u, err := s.users.Get(ctx, j.answer.UserID); err == nil {
			locale = u.Locale
		}
		lang = detectLang(j.plain, locale)
	}
	var last *Receipt
	for _, m := range hist.Recent {
		if m.Role == models.RoleAssistant {
			var r Receipt
			if json.Unmarshal(m.Metadata, &r) == nil {
				last = &r
			}
			break
		}
	}
	guide := NextGuide(conv.Style, j.plain, last)

	query, method := s.condense(ctx, j.plain, hist.Recent)
	scope := Scope{Mode: conv.Mode, Lang: lang}
	if conv.LessonID != nil && conv.Mode == models.ModeLesson {
		scope.LessonID = *conv.LessonID
	}
	if conv.ModuleID != nil && conv.Mode == models.ModeLesson {
		scope.ModuleID = *conv.ModuleID
	}
	hits, err := s.retr.Search(ctx, query, scope, s.cfg.TopK)
	if err != nil {
		return Request{}, Receipt{}, err
	}
	in := PromptInput{Mode: conv.Mode, Style: conv.Style, Lang: lang, Sources: hits, Guide: guide, Budget: s.cfg.LessonBudget}
	if scope.LessonID != "" {
		l, err := s.retr.Lesson(ctx, scope.LessonID)
		if err != nil && !errors.Is(err, models.ErrNotFound) {
			return Request{}, Receipt{}, err
		}
		in.Lesson = l
	}
	p := BuildPrompt(in)
	r := Receipt{RetrievalQuery: query, CondenseMethod: method, TurnsSent: len(hist.Turns), TurnsOmitted: hist.Omitted,
		Lang: lang, Style: conv.Style, Mode: conv.Mode, HintLevel: guide.HintLevel, FullAnswer: guide.FullAnswer,
		Citations: citations(p.Sources)}
	if in.Lesson != nil {
		r.LessonID = in.Lesson.ID
		r.LessonWhole = p.LessonWhole
	}
	req := Request{System: p.System, History: hist.Turns, Question: j.question, Lang: lang, Mode: conv.Mode, Sources: p.Sources}
	return req, r, nil
}

// condense turns a follow-up into a standalone retrieval query, with the
// condense route's model when one is configured and keywords otherwise.
func (s *Service) condense(ctx context.Context, question string, recent []models.Message) (string, string) {
	prior := priorTurns(recent)
	if len(prior) == 0 {
		return question, "none"
	}
	if route, err := s.route(ctx, models.UseCondense); err == nil && route.Provider != ProviderOffline &&
		s.cfg.CheckCredentials(route.Provider, s.cfg.Credentials) == nil {
		if p, err := s.cfg.NewProvider(ctx, route.Provider, route.Model, s.cfg.Credentials); err == nil {
			if q := modelCondense(ctx, p, route, question, prior); q != "" {
				return q, "model"
			}
		}
	}
	return KeywordCondense(question, prior), "keyword"
}

// Citation is a chunk an answer was given, as recorded in its receipt.
type Citation struct {
	Kind     string  `json:"kind"`
	ChunkID  int64   `json:"chunkId"`
	LessonID string  `json:"lessonId,omitempty"`
	Heading  string  `json:"heading"`
	Anchor   string  `json:"anchor"`
	Score    float64 `json:"score"`
	Hash     string  `json:"hash"`
}

// Receipt records what the tutor saw for one answer (messages.metadata).
type Receipt struct {
	Citations      []Citation `json:"citations"`
	RetrievalQuery string     `json:"retrievalQuery"`
	CondenseMethod string     `json:"condenseMethod,omitempty"` // none, keyword or model
	TurnsSent      int        `json:"turnsSent"`
	TurnsOmitted   int        `json:"turnsOmitted"` // eligible earlier turns left out
	Lang           string     `json:"lang"`
	Style          string     `json:"style"`
	HintLevel      int        `json:"hintLevel,omitempty"`
	FullAnswer     bool       `json:"fullAnswer,omitempty"`
	Mode           string     `json:"mode"`
	LessonID       string     `json:"lessonId,omitempty"`
	LessonWhole    bool       `json:"lessonWhole,omitempty"`
	Truncated      bool       `json:"truncated,omitempty"`
	Error          string     `json:"error,omitempty"`
}

// ParseReceipt decodes an answer's metadata; an empty or foreign value gives a zero Receipt.
func ParseReceipt(meta []byte) Receipt {
	var r Receipt
	_ = json.Unmarshal(meta, &r)
	return r
}

func citations(src []Source) []Citation {
	out := make([]Citation, 0, len(src))
	for _, s := range src {
		out = append(out, Citation{Kind: s.Kind, ChunkID: s.ChunkID, LessonID: s.LessonID, Heading: s.Heading,
			Anchor: s.Anchor, Score: s.Score, Hash: s.Hash})
	}
	return out
}
