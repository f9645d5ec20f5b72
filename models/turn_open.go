package models

import (
	"fmt"

	"github.com/google/uuid"
)

// A question that opens a new conversation used to create it first, in
// a statement (and under a class's burst, a batch) of its own, and be
// recorded in it after: one more wait in front of every such answer, and
// an empty thread left behind whenever the question was refused. Its
// conversation is now inserted by the statement that records the
// question, once the quota admitted it; its fields are all known before
// (NewThread), so the answer can be prepared beside that statement.

// NewThread checks a new conversation's input as Create does and returns
// it with its id drawn but not stored: BeginTurn stores it with its first
// question (TurnInput.Opens). A lesson thread without a module takes its
// lesson's when stored; whether the lesson exists is checked then.
func NewThread(userID, mode, lessonID string, moduleID int64, style string) (*Conversation, error) {
	c, err := newConversation(userID, mode, lessonID, moduleID, style)
	if err != nil {
		return nil, err
	}
	c.ID = uuid.NewString()
	return &c, nil
}

// openTurnSQL is recordTurnSQL for a question opening a conversation: c0
// reads the user and checks the lesson (none found: not found, nothing
// written), q reserves the question, and the conversation is inserted
// only with a reserved question. Sibling statements do not see each
// other's rows, so the messages take seqs 0 and 1 and the conversation
// next_seq 2 without reading anything back.
var openTurnSQL = `WITH c0 AS (
		SELECT u.id, u.plan, u.locale, ` + limitSQL("u") + ` AS lim, ` + helpOffSQL("u", "CAST(@mode AS text)") + ` AS help_off, coalesce(CAST(@module AS bigint), l.module_id) AS module_id
		FROM users u LEFT JOIN lessons l ON l.id = CAST(@lesson AS text)
		WHERE u.id = @uid AND (CAST(@lesson AS text) IS NULL OR l.id IS NOT NULL)
	), ` + reserveQuestionSQL + `, c AS (
		INSERT INTO conversations (id, user_id, title, mode, style, lesson_id, module_id, next_seq, last_activity_at)
		SELECT @cid, @uid, @title, @mode, @style, CAST(@lesson AS text), c0.module_id, 2, @now FROM c0, q
		RETURNING id, user_id, title, mode, style, lesson_id, module_id, next_seq, created_at, last_activity_at
	), ` + writeTurnSQL("0", "1") + `
	SELECT c0.id IS NOT NULL AS found, coalesce(c0.plan, '') AS plan, coalesce(c0.locale, '') AS locale,
	       (SELECT questions FROM q) AS used, coalesce(c0.lim, 0) AS lim, coalesce(c0.help_off, false) AS help_off,
	       false AS has_context,
	       c.id, c.user_id, c.title, c.mode, c.style, c.lesson_id, c.module_id, c.next_seq, c.created_at,
	       c.last_activity_at, (SELECT id FROM qm) AS question_id
	FROM (SELECT 1) one LEFT JOIN c0 ON true LEFT JOIN c ON true`

// turnStatement is the single statement recording in and its arguments.
func turnStatement(in TurnInput) (string, map[string]any) {
	if len(in.Metadata) == 0 {
		in.Metadata = JSON("{}")
	}
	args := map[string]any{"cid": in.ConversationID, "uid": in.UserID, "period": Period(in.Now), "now": in.Now,
		"title": TitleFrom(in.Content), "content": in.Content, "meta": in.Metadata, "aid": in.AssistantID,
		"owner": in.Lease.owner(), "ttl": in.Lease.ttlMs()}
	o := in.Opens
	if o == nil {
		return recordTurnSQL, args
	}
	args["mode"], args["style"], args["lesson"], args["module"] = o.Mode, o.Style, o.LessonID, o.ModuleID
	return openTurnSQL, args
}

// missing is the error of a question whose conversation was not found:
// for one it opens, the lesson it names does not exist.
func (in TurnInput) missing() error {
	if in.Opens != nil {
		return fmt.Errorf("find lesson: %w", ErrNotFound)
	}
	return ErrNotFound
}
