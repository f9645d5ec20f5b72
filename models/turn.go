package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// TurnInput is a question to record.
type TurnInput struct {
	UserID         string
	ConversationID string
	Content        string
	// AssistantID is the id the pending answer gets; the caller picks it so
	// the answer can be registered for streaming before the row is visible.
	AssistantID string
	Now         time.Time
	Attachment  *AttachmentInput
	// Metadata is the question's own record (the passage it asks about);
	// empty is {}.
	Metadata JSON
	// Lease is the generating instance's claim on the answer; a zero
	// Lease still expires (after DefaultLeaseTTL) so no answer can stay
	// streaming forever.
	Lease Lease
	// Opens is the new conversation the question opens (see NewThread;
	// its ID is ConversationID), nil when ConversationID names an
	// existing one. It is stored with the question, only when admitted.
	Opens *Conversation
}

// Turn is what BeginTurn recorded.
type Turn struct {
	Conversation Conversation
	User         Message
	Assistant    Message
	QuotaPeriod  time.Time
	// Locale is the user's interface language, read in the same statement
	// (the answer's language falls back to it).
	Locale string
	// HasContext says whether the conversation holds earlier context
	// turns: a first question without any has no history to read.
	HasContext bool
	// Usage is the user's count of the month as the question left it,
	// read in the same statement (the page shows it after an ask).
	Usage QuotaUsage
}

// BeginTurn records a question: the conversation must be the user's and
// not a knowledge check (else ErrNotFound and nothing written; a check's
// answers go through Checks.Grade, not questions) or, for a thread the
// question opens (in.Opens), its lesson must exist (else ErrNotFound and
// nothing written, the thread neither), a question of the month is
// reserved (*QuotaError when none is left, nothing else written), the
// user message and a streaming assistant message get the next two seqs,
// the title is set from the first question, and the thread becomes the
// user's active one. Without an attachment all of it is one statement
// (one round trip, row locks held only while it runs), since a class
// asking at once queues every round trip on the connection pool, and
// the asks that arrive together share one (see turn_batch.go); an
// attachment is added in the same transaction.
func (s *Messages) BeginTurn(ctx context.Context, in TurnInput) (*Turn, error) {
	if !validID(in.ConversationID) || !validID(in.UserID) {
		return nil, ErrNotFound
	}
	if o := in.Opens; o != nil && (o.ID != in.ConversationID || o.UserID != in.UserID) {
		return nil, fmt.Errorf("record question: the conversation it opens is %s of %s", o.ID, o.UserID)
	}
	if in.Attachment == nil {
		if inTx(ctx) {
			return recordTurn(conn(ctx, s.db), in)
		}
		// The caller waits for its batch even when its request ends: a
		// recorded turn nobody receives would stay streaming under this
		// process's live lease, never generated and never swept.
		return s.turns.do(context.WithoutCancel(ctx), in)
	}
	var t *Turn
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		var err error
		if t, err = recordTurn(conn(ctx, s.db), in); err != nil {
			return err
		}
		a := in.Attachment
		sum := sha256.Sum256(a.Data)
		if err := conn(ctx, s.db).Exec(`INSERT INTO attachments (message_id, user_id, filename, mime, size, sha256, extracted_text, data)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, t.User.ID, in.UserID, a.Filename, a.MIME, len(a.Data),
			hex.EncodeToString(sum[:]), strings.ToValidUTF8(a.Text, ""), a.Data).Error; err != nil {
			return fmt.Errorf("insert attachment: %w", err)
		}
		return nil
	})
	return t, err
}

// turnRow is what the turn statement returns: the conversation locked
// (c0), whether a question was reserved (used), and what was written.
type turnRow struct {
	Found  bool
	Plan   string
	Locale string
	Used   *int
	// Lim is the user's monthly limit (0: unlimited), HelpOff a help
	// question their organization refuses (nothing written).
	Lim        int
	HelpOff    bool
	HasContext bool
	Conversation
	QuestionID *string
}

// recordTurnSQL records a question in one statement: it locks the thread,
// reserves the plan's question (the upsert's WHERE is the quota's race
// guard), takes two sequence numbers, and inserts the question and the
// answer to be written under this process's lease.
var recordTurnSQL = `WITH c0 AS (
		SELECT c.id, u.plan, u.locale, ` + limitSQL("u") + ` AS lim, ` + helpOffSQL("u", "c.mode") + ` AS help_off
		FROM conversations c JOIN users u ON u.id = c.user_id
		WHERE c.id = @cid AND c.user_id = @uid AND c.deleted_at IS NULL AND c.mode <> 'check'
		FOR UPDATE OF c
	), ` + reserveQuestionSQL + `, c AS (
		UPDATE conversations
		SET next_seq = next_seq + 2, last_activity_at = @now,
		    title = CASE WHEN title = '' THEN @title ELSE title END
		FROM q WHERE conversations.id = @cid
		RETURNING conversations.id, conversations.user_id, title, mode, style, lesson_id, module_id, next_seq,
		          conversations.created_at, last_activity_at
	), ` + writeTurnSQL("c.next_seq - 2", "c.next_seq - 1") + `
	SELECT c0.id IS NOT NULL AS found, coalesce(c0.plan, '') AS plan, coalesce(c0.locale, '') AS locale, (SELECT questions FROM q) AS used,
	       coalesce(c0.lim, 0) AS lim, coalesce(c0.help_off, false) AS help_off,
	       EXISTS (SELECT 1 FROM context_turns WHERE conversation_id = @cid AND user_id = @uid) AS has_context,
	       c.id, c.user_id, c.title, c.mode, c.style, c.lesson_id, c.module_id, c.next_seq, c.created_at,
	       c.last_activity_at, (SELECT id FROM qm) AS question_id
	FROM (SELECT 1) one LEFT JOIN c0 ON true LEFT JOIN c ON true`

// reserveQuestionSQL is the single statements' reservation of a
// question for the user c0 found (none for a help question their
// organization refuses, c0.help_off): the upsert's WHERE re-checks the
// committed count under the plan_usage row's lock, the whole race guard
// of the quota; no row comes back when none is left.
const reserveQuestionSQL = `q AS (
		INSERT INTO plan_usage AS p (user_id, period, questions) SELECT @uid, @period, 1 FROM c0 WHERE NOT c0.help_off
		ON CONFLICT (user_id, period) DO UPDATE SET questions = p.questions + 1
		WHERE (SELECT lim FROM c0) = 0 OR p.questions < (SELECT lim FROM c0)
		RETURNING p.questions
	)`

// writeTurnSQL is what the single statements write once the question's
// thread c is written: it becomes the user's active thread (the user's
// row is written only when that changes: a follow-up in the active
// thread rewrote it for nothing, 1.2 of a batch's ~20 ms for 100
// follow-ups, 0.4 without), and the
// question and the answer (under this process's lease) take the seqs
// question and answer (SQL expressions).
func writeTurnSQL(question, answer string) string {
	return `u AS (
		UPDATE users SET active_conversation_id = c.id FROM c
		WHERE users.id = c.user_id AND users.active_conversation_id IS DISTINCT FROM c.id RETURNING users.id
	), qm AS (
		INSERT INTO messages (conversation_id, user_id, seq, role, content, status, metadata, created_at, completed_at)
		SELECT c.id, @uid, ` + question + `, 'user', @content, 'complete', @meta, @now, @now FROM c RETURNING id
	), am AS (
		INSERT INTO messages (id, conversation_id, user_id, seq, role, status, quota_period, created_at,
			lease_owner, lease_until)
		SELECT @aid, c.id, @uid, ` + answer + `, 'assistant', 'streaming', @period, @now,
			@owner, now() + @ttl * interval '1 millisecond' FROM c RETURNING id
	)`
}

// recordTurn is BeginTurn's statement. The conversation row is locked
// first, so concurrent asks in one thread serialise and get consecutive
// seqs; the plan_usage upsert re-checks the committed count under its row
// lock (the whole race guard of the quota); everything else is written
// only when a question was reserved. A question opening its thread
// (in.Opens) runs openTurnSQL, which inserts the thread instead.
func recordTurn(tx *gorm.DB, in TurnInput) (*Turn, error) {
	var r turnRow
	query, args := turnStatement(in)
	if err := tx.Raw(query, args).Scan(&r).Error; err != nil {
		return nil, fmt.Errorf("record question: %w", err)
	}
	switch {
	case !r.Found:
		return nil, in.missing()
	case r.HelpOff:
		return nil, ErrHelpModeOff
	case r.Used == nil:
		return nil, quotaRefusal(tx, in.UserID, r.Plan, in.Now)
	case r.QuestionID == nil:
		return nil, fmt.Errorf("record question: the conversation changed while it was locked")
	}
	return newTurn(in, r.Conversation, *r.QuestionID, r.Locale, r.HasContext, r.Plan, quotaOf(*r.Used, r.Lim)), nil
}

// newTurn is the Turn of a recorded question, c being the conversation
// just after its two messages (they hold the seqs before c.NextSeq), the
// user on plan with q.used of q.limit questions counted this month.
func newTurn(in TurnInput, c Conversation, questionID, locale string, hasContext bool, plan string, q count) *Turn {
	period := Period(in.Now)
	if len(in.Metadata) == 0 {
		in.Metadata = JSON("{}")
	}
	t := &Turn{Conversation: c, QuotaPeriod: period, Locale: locale, HasContext: hasContext,
		Usage: QuotaUsage{Plan: plan, Period: period, Used: q.used, Limit: q.limit, ResetAt: NextPeriod(in.Now)}}
	t.User = Message{ID: questionID, ConversationID: c.ID, UserID: in.UserID, Seq: c.NextSeq - 2, Role: RoleUser,
		Content: in.Content, Status: StatusComplete, Metadata: in.Metadata, CreatedAt: in.Now, CompletedAt: &in.Now}
	t.Assistant = Message{ID: in.AssistantID, ConversationID: c.ID, UserID: in.UserID, Seq: c.NextSeq - 1,
		Role: RoleAssistant, Status: StatusStreaming, Metadata: JSON("{}"), QuotaPeriod: &period, CreatedAt: in.Now}
	return t
}
