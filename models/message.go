package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// Message roles and statuses, as stored in messages.role and messages.status.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"

	StatusComplete  = "complete"
	StatusStreaming = "streaming"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
)

// Rating values and reasons, as stored in messages.rating and rating_reason.
const (
	RatingUp   = "up"
	RatingDown = "down"
)

// RatingReasons are the reasons a student may give with a rating.
var RatingReasons = []string{"lesson_unclear", "answer_wrong", "not_asked", "other"}

// MaxRatingComment is the longest rating comment kept, in characters.
const MaxRatingComment = 1000

// Errors for messages; the fronts translate them.
var (
	ErrNotRateable   = errors.New("only a complete answer can be rated")
	ErrInvalidRating = errors.New("rating must be up or down")
	ErrInvalidReason = errors.New("unknown rating reason")
	ErrNotRetryable  = errors.New("only a finished answer can be regenerated")
)

// JSON is a jsonb column kept as raw bytes; the tutor decodes its own shape.
type JSON []byte

// Value sends the JSON as text, which PostgreSQL casts to jsonb.
func (j JSON) Value() (driver.Value, error) {
	if len(j) == 0 {
		return "{}", nil
	}
	return string(j), nil
}

// Scan copies the column's bytes, which the driver may reuse.
func (j *JSON) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*j = nil
	case []byte:
		*j = append(JSON(nil), v...)
	case string:
		*j = JSON(v)
	default:
		return fmt.Errorf("scan json: unexpected %T", src)
	}
	return nil
}

// Message is one turn of a conversation.
type Message struct {
	ID             string `gorm:"type:uuid;primaryKey;default:gen_random_uuid()"`
	ConversationID string `gorm:"type:uuid"`
	UserID         string `gorm:"type:uuid"`
	Seq            int
	Role           string
	Content        string
	Status         string
	Rating         *string
	RatingReason   *string
	RatingComment  string
	RatedAt        *time.Time
	Provider       string
	Model          string
	LatencyMs      *int
	TtftMs         *int
	TokensIn       *int
	TokensOut      *int
	ErrorCode      string
	Metadata       JSON `gorm:"type:jsonb"`
	QuotaPeriod    *time.Time
	CreatedAt      time.Time
	CompletedAt    *time.Time
	Version        int // the version on display of a regenerated answer (1 first)
}

// Messages is the store of conversation turns; every query is scoped by user.
type Messages struct {
	db *gorm.DB
	// finishes stores the final states of answers ending together in one statement.
	finishes *reader[finishCall, *Message]
	// turns records the questions of asks arriving together in one statement.
	turns *batcher[TurnInput, *Turn]
	// histories reads the histories of follow-ups asked together in one statement.
	histories *reader[historyKey, HistoryRead]
	// versions counts the kept versions of answers drawn together in one statement.
	versions *reader[versionKey, int]
}

// NewMessages returns the messages store.
func NewMessages(db *gorm.DB) *Messages {
	s := &Messages{db: db}
	s.finishes = newReader(db, finishAll)
	s.turns = newBatcher(batchWorkers, batchMax, s.recordTurnBatch)
	s.histories = newReader(db, readHistories)
	s.versions = newReader(db, readVersionCounts)
	return s
}

// AttachmentInput is a file sent with a question, its text already extracted.
type AttachmentInput struct {
	Filename string
	MIME     string
	Data     []byte
	Text     string
}

// BeginRetry reopens a finished answer of the user for regeneration in
// place (same id and seq), with the generating instance's lease written on
// it: a question is reserved again, the content, rating and receipt are
// cleared and the status is streaming. It returns the reopened answer and
// the question it answers.
func (s *Messages) BeginRetry(ctx context.Context, userID, msgID string, now time.Time, lease Lease) (answer, question *Message, err error) {
	if !validID(msgID) || !validID(userID) {
		return nil, nil, ErrNotFound
	}
	var a, q Message
	err = WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		if err := lockAnswer(tx, userID, msgID, &a); err != nil {
			return err
		}
		if a.Status == StatusStreaming {
			return ErrNotRetryable
		}
		if err := questionOf(tx, &a, now, ErrNotRetryable, &q); err != nil {
			return err
		}
		if err := keepVersion(ctx, s.db, &a, q.Content); err != nil {
			return err
		}
		// An answer that failed was refunded; a complete or cancelled one
		// still holds its question. Either way this generation counts one,
		// and the old count (if any) stays spent.
		period, err := reserveQuota(ctx, s.db, userID, a.ConversationID, now)
		if err != nil {
			return err
		}
		return reopenAnswer(tx, &a, period, lease)
	})
	if err != nil {
		return nil, nil, err
	}
	return &a, &q, nil
}

// reopenAnswer empties answer a to be written again, counted in period
// and leased to this process.
func reopenAnswer(tx *gorm.DB, a *Message, period time.Time, lease Lease) error {
	if err := tx.Exec(`UPDATE messages SET status = 'streaming', content = '', error_code = '', metadata = '{}', continued = false,
		rating = NULL, rating_reason = NULL, rating_comment = '', rated_at = NULL,
		provider = '', model = '', latency_ms = NULL, ttft_ms = NULL, tokens_in = NULL, tokens_out = NULL,
		completed_at = NULL, quota_period = ?, lease_owner = ?, lease_until = now() + ? * interval '1 millisecond'
		WHERE id = ?`, period, lease.owner(), lease.ttlMs(), a.ID).Error; err != nil {
		return fmt.Errorf("reopen answer: %w", err)
	}
	a.Status, a.Content, a.ErrorCode, a.Metadata, a.QuotaPeriod = StatusStreaming, "", "", JSON("{}"), &period
	a.Rating, a.RatingReason, a.RatingComment, a.RatedAt = nil, nil, "", nil
	a.Provider, a.Model, a.LatencyMs, a.TtftMs, a.TokensIn, a.TokensOut, a.CompletedAt = "", "", nil, nil, nil, nil, nil
	return nil
}

// lockAnswer reads the user's answer in a live thread into a, locked for
// the transaction's update; ErrNotFound when there is none.
func lockAnswer(tx *gorm.DB, userID, msgID string, a *Message) error {
	if err := tx.Raw(`SELECT * FROM messages m WHERE id = ? AND user_id = ? AND role = 'assistant'
		AND EXISTS (SELECT 1 FROM conversations c WHERE c.id = m.conversation_id AND c.deleted_at IS NULL)
		FOR UPDATE`, msgID, userID).Scan(a).Error; err != nil {
		return fmt.Errorf("find answer: %w", err)
	}
	if a.ID == "" {
		return ErrNotFound
	}
	return nil
}

// Get returns the user's message, or ErrNotFound.
func (s *Messages) Get(ctx context.Context, userID, id string) (*Message, error) {
	if !validID(id) || !validID(userID) {
		return nil, ErrNotFound
	}
	var m Message
	err := conn(ctx, s.db).Where("id = ? AND user_id = ?", id, userID).
		Where("EXISTS (SELECT 1 FROM conversations c WHERE c.id = messages.conversation_id AND c.deleted_at IS NULL)").
		Take(&m).Error
	if err != nil {
		return nil, notFound(err)
	}
	return &m, nil
}

// ListByConversation returns the thread's messages in seq order; ErrNotFound
// when the conversation is not the user's.
func (s *Messages) ListByConversation(ctx context.Context, userID, conversationID string) ([]Message, error) {
	if _, err := liveConversation(ctx, s.db, userID, conversationID); err != nil {
		return nil, err
	}
	var ms []Message
	err := conn(ctx, s.db).Where("conversation_id = ? AND user_id = ?", conversationID, userID).
		Order("seq").Find(&ms).Error
	if err != nil {
		return nil, fmt.Errorf("list messages: %w", err)
	}
	return ms, nil
}

// HistoryAttachmentChars bounds the text of a file that an earlier question
// brings into a later prompt's history (about 1,000 tokens).
const HistoryAttachmentChars = 4000

// Rate records the user's rating of a complete answer; rating "" clears it.
func (s *Messages) Rate(ctx context.Context, userID, id, rating, reason, comment string) error {
	if !validID(id) || !validID(userID) {
		return ErrNotFound
	}
	if rating != RatingUp && rating != RatingDown && rating != "" {
		return ErrInvalidRating
	}
	var reasonArg *string
	if reason != "" {
		ok := false
		for _, r := range RatingReasons {
			ok = ok || r == reason
		}
		if !ok {
			return ErrInvalidReason
		}
		reasonArg = &reason
	}
	comment = strings.TrimSpace(strings.ToValidUTF8(comment, ""))
	if utf8.RuneCountInString(comment) > MaxRatingComment {
		comment = string([]rune(comment)[:MaxRatingComment])
	}
	var ratingArg *string
	if rating != "" {
		ratingArg = &rating
	} else {
		reasonArg, comment = nil, ""
	}
	var status, role string
	err := conn(ctx, s.db).Raw(`SELECT status, role FROM messages m WHERE id = ? AND user_id = ?
		AND EXISTS (SELECT 1 FROM conversations c WHERE c.id = m.conversation_id AND c.deleted_at IS NULL)`, id, userID).
		Row().Scan(&status, &role)
	if err != nil {
		return fmt.Errorf("rate: %w", notFound(err))
	}
	if role != RoleAssistant || status != StatusComplete {
		return ErrNotRateable
	}
	res := conn(ctx, s.db).Exec(`UPDATE messages SET rating = ?, rating_reason = ?, rating_comment = ?,
		rated_at = CASE WHEN ?::text IS NULL THEN NULL ELSE now() END
		WHERE id = ? AND user_id = ? AND role = 'assistant' AND status = 'complete'`,
		ratingArg, reasonArg, comment, ratingArg, id, userID)
	if res.Error != nil {
		return fmt.Errorf("rate: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotRateable
	}
	return nil
}

// AttachmentText returns the extracted text and file name of the first
// attachment of the user's message ("" when there is none).
func (s *Messages) AttachmentText(ctx context.Context, userID, messageID string) (text, filename string, err error) {
	if !validID(messageID) || !validID(userID) {
		return "", "", ErrNotFound
	}
	var f struct{ ExtractedText, Filename string }
	err = conn(ctx, s.db).Raw(`SELECT extracted_text, filename FROM attachments WHERE message_id = ? AND user_id = ?
		ORDER BY created_at LIMIT 1`, messageID, userID).Scan(&f).Error
	if err != nil {
		return "", "", fmt.Errorf("attachment text: %w", err)
	}
	return f.ExtractedText, f.Filename, nil
}

// questionOf reads into q the question answer a answers and marks their
// thread active at now; refuse is the error when a has no question.
func questionOf(tx *gorm.DB, a *Message, now time.Time, refuse error, q *Message) error {
	if err := tx.Raw(`SELECT * FROM messages WHERE conversation_id = ? AND seq = ? AND role = 'user'`,
		a.ConversationID, a.Seq-1).Scan(q).Error; err != nil {
		return fmt.Errorf("find question: %w", err)
	}
	if q.ID == "" {
		return refuse
	}
	if err := tx.Exec(`UPDATE conversations SET last_activity_at = ? WHERE id = ?`, now, a.ConversationID).Error; err != nil {
		return fmt.Errorf("touch conversation: %w", err)
	}
	return nil
}
