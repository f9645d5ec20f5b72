package models

import (
	"context"
	"fmt"
	"strings"
)

// ContextTurn is an earlier turn another program brought with a
// conversation's first question: remembered like the conversation's own
// turns, shown as earlier context, but never a message or a question.
type ContextTurn struct {
	Role    string
	Content string
}

// CreateWithContext creates a conversation (as Create) together with its
// earlier context, oldest turn first, in one transaction.
func (s *Conversations) CreateWithContext(ctx context.Context, userID, mode, lessonID string, moduleID int64, style string, turns []ContextTurn) (*Conversation, error) {
	if len(turns) == 0 {
		// Its statements are their own transaction: no BEGIN and COMMIT
		// round trips. A question opening its thread does not come here
		// (its thread is stored with it, NewThread), so no class's burst
		// does: these are threads a program opens explicitly.
		return s.Create(ctx, userID, mode, lessonID, moduleID, style)
	}
	var c *Conversation
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		var err error
		if c, err = s.Create(ctx, userID, mode, lessonID, moduleID, style); err != nil {
			return err
		}
		// All the turns in one statement: one round trip however long the history.
		rows := make([]string, len(turns))
		args := make([]any, 0, 5*len(turns))
		for i, t := range turns {
			rows[i] = "(?, ?, ?, ?, ?)"
			args = append(args, c.ID, userID, i, t.Role, t.Content)
		}
		if err := conn(ctx, s.db).Exec(`INSERT INTO context_turns (conversation_id, user_id, position, role, content) VALUES `+
			strings.Join(rows, ", "), args...).Error; err != nil {
			return fmt.Errorf("store context turn: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ContextTurns returns the earlier context of the user's conversation,
// oldest first (none for someone else's).
func (s *Messages) ContextTurns(ctx context.Context, userID, conversationID string) ([]ContextTurn, error) {
	if !validID(userID) || !validID(conversationID) {
		return nil, nil
	}
	var out []ContextTurn
	err := conn(ctx, s.db).Raw(`SELECT role, content FROM context_turns
		WHERE conversation_id = ? AND user_id = ? ORDER BY position`, conversationID, userID).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("context turns: %w", err)
	}
	return out, nil
}
