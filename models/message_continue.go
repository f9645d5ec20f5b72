package models

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotContinuable is a Continue of an answer that was not stopped with
// text to go on from.
var ErrNotContinuable = errors.New("only a stopped answer with text can be continued")

// ErrAnswerFull is a Continue of an answer already at the answer size
// cap: the cap holds for an answer across its continuations.
var ErrAnswerFull = errors.New("the answer has reached its maximum length")

// BeginContinue reopens the user's stopped answer to be written further:
// its text stays (the continuation is appended to it), it is leased to
// this process, and no question is counted — the student asked it once,
// and this finishes that answer. It returns the answer and its question.
// ErrNotFound: no such answer; ErrNotContinuable: not stopped, or empty;
// ErrAnswerFull: its text already has maxBytes bytes or more;
// ErrHelpModeOff: a help thread of a member whose organization turned help off.
func (s *Messages) BeginContinue(ctx context.Context, userID, msgID string, maxBytes int, now time.Time, lease Lease) (answer, question *Message, err error) {
	if !validID(msgID) || !validID(userID) {
		return nil, nil, ErrNotFound
	}
	var a, q Message
	err = WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		if err := lockAnswer(tx, userID, msgID, &a); err != nil {
			return err
		}
		if a.Status != StatusCancelled || a.Content == "" {
			return ErrNotContinuable
		}
		if len(a.Content) >= maxBytes {
			return ErrAnswerFull
		}
		if err := questionOf(tx, &a, now, ErrNotContinuable, &q); err != nil {
			return err
		}
		// Help mode is the organization's to turn off: an old help thread
		// is not continued either, as it is not asked again.
		var helpOff bool
		if err := tx.Raw(`SELECT `+helpOffSQL("u", "c.mode")+` FROM conversations c JOIN users u ON u.id = c.user_id
			WHERE c.id = ?`, a.ConversationID).Scan(&helpOff).Error; err != nil {
			return fmt.Errorf("read help mode: %w", err)
		}
		if helpOff {
			return ErrHelpModeOff
		}
		if err := tx.Exec(`UPDATE messages SET status = 'streaming', error_code = '', continued = true,
			rating = NULL, rating_reason = NULL, rating_comment = '', rated_at = NULL, completed_at = NULL,
			lease_owner = ?, lease_until = now() + ? * interval '1 millisecond'
			WHERE id = ?`, lease.owner(), lease.ttlMs(), a.ID).Error; err != nil {
			return fmt.Errorf("reopen answer: %w", err)
		}
		a.Status, a.ErrorCode, a.CompletedAt = StatusStreaming, "", nil
		a.Rating, a.RatingReason, a.RatingComment, a.RatedAt = nil, nil, "", nil
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return &a, &q, nil
}
