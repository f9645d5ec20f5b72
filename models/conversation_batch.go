package models

import (
	"context"
	"fmt"

	"gorm.io/gorm"
)

// convLine is one conversation in the batch statement's input.
type convLine struct {
	I      int     `json:"i"`
	UID    string  `json:"uid"`
	Mode   string  `json:"mode"`
	Style  string  `json:"style"`
	Lesson *string `json:"lesson"`
	Module *int64  `json:"module"`
}

// createConversationsSQL inserts many conversations in one statement:
// one whose lesson does not exist is left out (its caller's ErrNotFound),
// and one without a module takes its lesson's, as Create does. The ids
// are drawn first, so each row comes back to its caller.
const createConversationsSQL = `WITH req AS MATERIALIZED (
		SELECT r.*, gen_random_uuid() AS id
		FROM json_to_recordset(?::json) AS r(i int, uid uuid, mode text, style text, lesson text, module bigint)
	), ins AS (
		INSERT INTO conversations (id, user_id, mode, style, lesson_id, module_id)
		SELECT req.id, req.uid, req.mode, req.style, req.lesson, coalesce(req.module, l.module_id)
		FROM req LEFT JOIN lessons l ON l.id = req.lesson
		WHERE req.lesson IS NULL OR l.id IS NOT NULL
		ORDER BY req.i
		RETURNING id, user_id, title, mode, style, lesson_id, module_id, next_seq, created_at, last_activity_at
	)
	SELECT req.i, ins.* FROM req JOIN ins ON ins.id = req.id`

// createdRow is a conversation createConversationsSQL inserted, with its
// caller's place in the batch.
type createdRow struct {
	I int
	Conversation
}

// createBatch is CreateWithContext's batch of checked rows: outs[i] and
// errs[i] answer ins[i]. One alone, or a batch whose statement failed
// (a module that does not exist, say), runs Create's own statements for
// each, so every caller gets the error it would get alone.
func (s *Conversations) createBatch(ctx context.Context, ins []Conversation) ([]*Conversation, []error) {
	db := s.db.WithContext(ctx)
	outs, errs := make([]*Conversation, len(ins)), make([]error, len(ins))
	if len(ins) > 1 {
		if created, err := createConversations(db, ins); err == nil {
			for i := range ins {
				if outs[i] = created[i]; outs[i] == nil {
					errs[i] = fmt.Errorf("find lesson: %w", ErrNotFound)
				}
			}
			return outs, errs
		}
	}
	for i, c := range ins {
		outs[i], errs[i] = insertConversation(db, c)
	}
	return outs, errs
}

// createConversations runs createConversationsSQL; created[i] is ins[i]
// stored, nil when its lesson does not exist.
func createConversations(db *gorm.DB, ins []Conversation) ([]*Conversation, error) {
	lines := make([]convLine, len(ins))
	for i, c := range ins {
		lines[i] = convLine{I: i, UID: c.UserID, Mode: c.Mode, Style: c.Style, Lesson: c.LessonID, Module: c.ModuleID}
	}
	rows, err := jsonRows[createdRow](db, "create conversations", createConversationsSQL, lines)
	if err != nil {
		return nil, err
	}
	created := make([]*Conversation, len(ins))
	for _, r := range rows {
		if r.I >= 0 && r.I < len(ins) {
			created[r.I] = &r.Conversation
		}
	}
	return created, nil
}
