package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ImportedMessage is one turn of a history brought in from elsewhere, in
// thread order, with the key that recognises it on a later run.
type ImportedMessage struct {
	Key       string
	Line      int // where it came from, kept in its metadata
	Role      string
	Content   string
	CreatedAt time.Time
}

// ImportResult is what ImportHistory did for one user.
type ImportResult struct {
	ConversationID string
	Added          int // messages inserted
	Existing       int // messages already imported by an earlier run
}

// ImportHistory appends msgs to the user's imported thread (mode tutor,
// titled title), creating it on the first run, and skips the messages
// whose key an earlier run stored: a second run with the same history adds
// nothing. The thread becomes the user's active one if they have none.
func (s *Conversations) ImportHistory(ctx context.Context, userID, title string, msgs []ImportedMessage) (ImportResult, error) {
	var res ImportResult
	if !validID(userID) {
		return res, ErrNotFound
	}
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		// Serialise imports of one user, so two runs at once cannot both add.
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(hashtext('aula-legacy-' || ?::text))`, userID).Error; err != nil {
			return fmt.Errorf("lock legacy import: %w", err)
		}
		todo, err := s.newImports(ctx, userID, msgs, &res)
		if err != nil || len(todo) == 0 {
			return err
		}
		if err := s.appendImports(ctx, userID, title, todo, &res); err != nil {
			return err
		}
		res.Added = len(todo)
		return tx.Exec(`UPDATE users SET active_conversation_id = ? WHERE id = ? AND active_conversation_id IS NULL`,
			res.ConversationID, userID).Error
	})
	if err != nil {
		return ImportResult{}, err
	}
	return res, nil
}

// newImports returns the messages of msgs no earlier run stored, counting
// the others in res, and sets res.ConversationID to the live imported thread.
func (s *Conversations) newImports(ctx context.Context, userID string, msgs []ImportedMessage, res *ImportResult) ([]ImportedMessage, error) {
	var existing []struct {
		Key            string
		ConversationID string
		Live           bool
	}
	if err := conn(ctx, s.db).Raw(`SELECT m.metadata->>'legacyKey' AS key, m.conversation_id, c.deleted_at IS NULL AS live
		FROM messages m JOIN conversations c ON c.id = m.conversation_id
		WHERE m.user_id = ? AND m.metadata->>'legacyKey' IS NOT NULL`, userID).Scan(&existing).Error; err != nil {
		return nil, fmt.Errorf("read imported messages: %w", err)
	}
	have := make(map[string]bool, len(existing))
	for _, e := range existing {
		have[e.Key] = true
		if e.Live {
			res.ConversationID = e.ConversationID
		}
	}
	var todo []ImportedMessage
	for _, m := range msgs {
		if have[m.Key] {
			res.Existing++
		} else {
			todo = append(todo, m)
		}
	}
	return todo, nil
}

// appendImports writes todo at the end of the imported thread, creating
// the thread when res names none.
func (s *Conversations) appendImports(ctx context.Context, userID, title string, todo []ImportedMessage, res *ImportResult) error {
	tx := conn(ctx, s.db)
	last := todo[len(todo)-1].CreatedAt
	if res.ConversationID == "" {
		if err := tx.Raw(`INSERT INTO conversations (user_id, title, mode, style, created_at, last_activity_at)
			VALUES (?, ?, 'tutor', 'explain', ?, ?) RETURNING id`, userID, title, todo[0].CreatedAt, last).
			Row().Scan(&res.ConversationID); err != nil {
			return fmt.Errorf("create the default conversation: %w", err)
		}
	}
	var next int
	if err := tx.Raw(`UPDATE conversations SET next_seq = next_seq + ?,
			last_activity_at = greatest(last_activity_at, ?),
			title = CASE WHEN title = '' THEN ? ELSE title END
		WHERE id = ? RETURNING next_seq - ?`, len(todo), last, title, res.ConversationID, len(todo)).
		Row().Scan(&next); err != nil {
		return fmt.Errorf("allocate seqs: %w", err)
	}
	for n, m := range todo {
		meta, _ := json.Marshal(map[string]any{"legacyKey": m.Key, "legacyLine": m.Line})
		if err := tx.Exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status, metadata, created_at, completed_at)
			VALUES (?, ?, ?, ?, ?, 'complete', ?, ?, ?)`, res.ConversationID, userID, next+n, m.Role, m.Content,
			JSON(meta), m.CreatedAt, m.CreatedAt).Error; err != nil {
			return fmt.Errorf("insert message of line %d: %w", m.Line, err)
		}
	}
	return nil
}
