package models

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotEditable is an edit of a question that is not the thread's last,
// or whose answer is still being written.
var ErrNotEditable = errors.New("only the last question, once answered, can be edited")

// AnswerOf returns the answer to the user's question (the message after
// it), or ErrNotFound, in one statement.
func (s *Messages) AnswerOf(ctx context.Context, userID, questionID string) (*Message, error) {
	if !validID(questionID) || !validID(userID) {
		return nil, ErrNotFound
	}
	var a Message
	if err := conn(ctx, s.db).Raw(`SELECT a.* FROM messages q
		JOIN messages a ON a.conversation_id = q.conversation_id AND a.seq = q.seq + 1 AND a.role = 'assistant' AND a.user_id = q.user_id
		WHERE q.id = ? AND q.user_id = ? AND q.role = 'user'
		  AND EXISTS (SELECT 1 FROM conversations c WHERE c.id = q.conversation_id AND c.deleted_at IS NULL)`,
		questionID, userID).Scan(&a).Error; err != nil {
		return nil, fmt.Errorf("answer of question: %w", err)
	}
	if a.ID == "" {
		return nil, ErrNotFound
	}
	return &a, nil
}

// QuestionOf returns the question the user's answer a answers, or ErrNotFound.
func (s *Messages) QuestionOf(ctx context.Context, userID string, a *Message) (*Message, error) {
	var q Message
	if err := conn(ctx, s.db).Raw(`SELECT * FROM messages WHERE conversation_id = ? AND seq = ? AND role = 'user' AND user_id = ?`,
		a.ConversationID, a.Seq-1, userID).Scan(&q).Error; err != nil {
		return nil, fmt.Errorf("question of answer: %w", err)
	}
	if q.ID == "" {
		return nil, ErrNotFound
	}
	return &q, nil
}

// BeginEdit replaces the thread's last question, the one answer answerID
// answers, with content and reopens that answer to be written again: the
// earlier question and its answer are kept as a version (ShowVersion puts
// both back), and, being a new question, it is counted. It returns the
// reopened answer and the edited question. ErrNotEditable: not the last
// question, or its answer is being written.
func (s *Messages) BeginEdit(ctx context.Context, userID, answerID, content string, now time.Time, lease Lease) (answer, question *Message, err error) {
	if !validID(answerID) || !validID(userID) {
		return nil, nil, ErrNotFound
	}
	var a, q Message
	err = WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		if err := lockAnswer(tx, userID, answerID, &a); err != nil {
			return err
		}
		var later bool
		if err := tx.Raw(`SELECT EXISTS (SELECT 1 FROM messages WHERE conversation_id = ? AND seq > ?)`,
			a.ConversationID, a.Seq).Row().Scan(&later); err != nil {
			return fmt.Errorf("find later messages: %w", err)
		}
		if later || a.Status == StatusStreaming {
			return ErrNotEditable
		}
		// The answer's row lock guards its question too: every writer of a
		// question (an edit, a version shown) locks its answer first.
		if err := questionOf(tx, &a, now, ErrNotEditable, &q); err != nil {
			return err
		}
		if err := keepVersion(ctx, s.db, &a, q.Content); err != nil {
			return err
		}
		period, err := reserveQuota(ctx, s.db, userID, a.ConversationID, now)
		if err != nil {
			return err
		}
		if err := tx.Exec(`UPDATE messages SET content = ? WHERE id = ?`, content, q.ID).Error; err != nil {
			return fmt.Errorf("edit question: %w", err)
		}
		q.Content = content
		return reopenAnswer(tx, &a, period, lease)
	})
	if err != nil {
		return nil, nil, err
	}
	return &a, &q, nil
}
