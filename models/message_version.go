package models

import (
	"context"
	"fmt"
	"math"

	"gorm.io/gorm"
)

// keepVersion files the answer a regeneration (or an edit of its
// question) is about to replace among its versions, with the question it
// answered, when it has text worth keeping, and numbers the coming one
// after every version kept. It runs in the regeneration's transaction.
func keepVersion(ctx context.Context, db *gorm.DB, a *Message, question string) error {
	if a.Content == "" || (a.Status != StatusComplete && a.Status != StatusCancelled) {
		return nil
	}
	tx := conn(ctx, db)
	if err := tx.Exec(`INSERT INTO message_versions (message_id, user_id, version, content, metadata, provider, model, question, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, coalesce(?, now()))`, a.ID, a.UserID, max(a.Version, 1), a.Content, a.Metadata,
		a.Provider, a.Model, question, a.CompletedAt).Error; err != nil {
		return fmt.Errorf("keep version: %w", err)
	}
	if err := tx.Raw(`UPDATE messages SET version = (SELECT max(version) + 1 FROM message_versions WHERE message_id = ?)
		WHERE id = ? RETURNING version`, a.ID, a.ID).Row().Scan(&a.Version); err != nil {
		return fmt.Errorf("number version: %w", err)
	}
	return nil
}

// VersionCounts returns how many versions each of the user's answers has
// (1 when never regenerated), for the "1 / 2" switch. One answer's count
// (an answer's end, drawn as its stream finishes) is read with the
// others asked at the same moment (see batcher): a class's answers ending
// together each ran this statement alone, 200 statements a round planned
// on the pool's connections (13–22 ms of PostgreSQL's time per round of
// the class benchmark, more than they took to run).
func (s *Messages) VersionCounts(ctx context.Context, userID string, ids []string) (map[string]int, error) {
	out := make(map[string]int, len(ids))
	if len(ids) == 0 || !validID(userID) {
		return out, nil
	}
	if len(ids) == 1 && validID(ids[0]) {
		n, err := s.versions.get(ctx, versionKey{UserID: userID, MessageID: ids[0]})
		if err != nil {
			return nil, err
		}
		out[ids[0]] = n + 1
		return out, nil
	}
	var rows []struct {
		MessageID string
		N         int
	}
	if err := conn(ctx, s.db).Raw(`SELECT message_id, count(*) AS n FROM message_versions
		WHERE user_id = ? AND message_id IN ? GROUP BY 1`, userID, ids).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("version counts: %w", err)
	}
	for _, id := range ids {
		out[id] = 1
	}
	for _, r := range rows {
		out[r.MessageID] = r.N + 1
	}
	return out, nil
}

// ShowVersion puts version n of the user's answer on display: it becomes
// the row's text (what later prompts remember) and the one displayed
// before is kept among the versions (unless it is a failed or empty
// regeneration, which is dropped). ErrNotFound: no such answer or version;
// ErrNotRetryable: the answer is still being written.
func (s *Messages) ShowVersion(ctx context.Context, userID, msgID string, n int) (*Message, error) {
	// A number the version column (int4) cannot hold names no version:
	// PostgreSQL would refuse it as out of range.
	if !validID(msgID) || !validID(userID) || n < 1 || n > math.MaxInt32 {
		return nil, ErrNotFound
	}
	var a Message
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		if err := lockAnswer(tx, userID, msgID, &a); err != nil {
			return err
		}
		switch {
		case a.Status == StatusStreaming:
			return ErrNotRetryable
		case a.Version == n:
			return nil
		}
		var v struct {
			Content, Provider, Model string
			Metadata                 JSON
			Question                 *string
		}
		if err := tx.Raw(`DELETE FROM message_versions WHERE message_id = ? AND version = ?
			RETURNING content, metadata, provider, model, question`, a.ID, n).Scan(&v).Error; err != nil {
			return fmt.Errorf("take version: %w", err)
		}
		if v.Content == "" {
			return ErrNotFound
		}
		if err := swapQuestion(tx, &a, v.Question); err != nil {
			return err
		}
		a.Content, a.Metadata, a.Provider, a.Model, a.Status, a.ErrorCode, a.Version = v.Content, v.Metadata, v.Provider, v.Model, StatusComplete, "", n
		return tx.Exec(`UPDATE messages SET content = ?, metadata = ?, provider = ?, model = ?, status = 'complete', error_code = '',
			version = ?, rating = NULL, rating_reason = NULL, rating_comment = '', rated_at = NULL WHERE id = ?`,
			a.Content, a.Metadata, a.Provider, a.Model, n, a.ID).Error
	})
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// swapQuestion files the answer on display, with its question, among the
// versions and puts back the question of the version coming on display
// (nil: the one it answered is the question as it stands).
func swapQuestion(tx *gorm.DB, a *Message, question *string) error {
	var current string
	if err := tx.Raw(`SELECT content FROM messages WHERE conversation_id = ? AND seq = ? AND role = 'user'`,
		a.ConversationID, a.Seq-1).Row().Scan(&current); err != nil {
		return fmt.Errorf("find question: %w", err)
	}
	if a.Content != "" && (a.Status == StatusComplete || a.Status == StatusCancelled) {
		if err := tx.Exec(`INSERT INTO message_versions (message_id, user_id, version, content, metadata, provider, model, question)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, a.UserID, a.Version, a.Content, a.Metadata, a.Provider, a.Model, current).Error; err != nil {
			return fmt.Errorf("keep version: %w", err)
		}
	}
	if question == nil || *question == current {
		return nil
	}
	if err := tx.Exec(`UPDATE messages SET content = ? WHERE conversation_id = ? AND seq = ? AND role = 'user'`,
		*question, a.ConversationID, a.Seq-1).Error; err != nil {
		return fmt.Errorf("restore question: %w", err)
	}
	return nil
}

// versionKey is one answer whose kept versions its user counts.
type versionKey struct {
	I         int    `json:"i"`
	UserID    string `json:"u"`
	MessageID string `json:"m"`
}

// versionCountsSQL counts the kept versions of many answers, each scoped
// by its user.
const versionCountsSQL = `SELECT r.i, count(v.message_id) AS n
	FROM json_to_recordset(CAST(? AS json)) AS r(i int, u uuid, m uuid)
	LEFT JOIN message_versions v ON v.message_id = r.m AND v.user_id = r.u
	GROUP BY r.i`

// readVersionCounts answers a batch of version counts: out[i] is how
// many versions of ins[i] are kept.
func readVersionCounts(db *gorm.DB, ins []versionKey) ([]int, error) {
	for i := range ins {
		ins[i].I = i
	}
	rows, err := jsonRows[struct{ I, N int }](db, "version counts", versionCountsSQL, ins)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(ins))
	for _, r := range rows {
		out[r.I] = r.N
	}
	return out, nil
}
