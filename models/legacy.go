package models

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// LegacyMessage is one turn of a single-thread chat history being imported.
type LegacyMessage struct {
	Line      int // line number in the export, for order and reports
	Role      string
	Content   string
	CreatedAt time.Time
}

// LegacyResult is what ImportLegacy did for one user.
type LegacyResult struct {
	ConversationID string
	Added          int // messages inserted
	Existing       int // messages already imported by an earlier run
}

// ImportLegacy gives the user one default conversation (mode tutor, titled
// from the first question) holding msgs in order: by created_at, then line.
// Each message carries a legacy key in its metadata (a digest of its role,
// time and text, with its occurrence number), so a second run with the
// same export adds nothing and a longer export adds only the new lines.
func (s *Conversations) ImportLegacy(ctx context.Context, userID string, msgs []LegacyMessage) (LegacyResult, error) {
	var res LegacyResult
	if !validID(userID) {
		return res, ErrNotFound
	}
	sorted := slices.Clone(msgs)
	slices.SortStableFunc(sorted, func(a, b LegacyMessage) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Line, b.Line))
	})
	keys := make([]string, len(sorted))
	seen := map[string]int{}
	title := ""
	for i, m := range sorted {
		sum := sha256.Sum256([]byte(m.Role + "\x00" + m.CreatedAt.UTC().Format(time.RFC3339Nano) + "\x00" + m.Content))
		k := hex.EncodeToString(sum[:16])
		seen[k]++
		keys[i] = k + "-" + strconv.Itoa(seen[k])
		if title == "" && m.Role == RoleUser {
			title = TitleFrom(m.Content)
		}
	}
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		// Serialise imports of one user, so two runs at once cannot both add.
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(hashtext('aula-legacy-' || ?::text))`, userID).Error; err != nil {
			return fmt.Errorf("lock legacy import: %w", err)
		}
		var existing []struct {
			Key            string
			ConversationID string
			Live           bool
		}
		if err := tx.Raw(`SELECT m.metadata->>'legacyKey' AS key, m.conversation_id, c.deleted_at IS NULL AS live
			FROM messages m JOIN conversations c ON c.id = m.conversation_id
			WHERE m.user_id = ? AND m.metadata->>'legacyKey' IS NOT NULL`, userID).Scan(&existing).Error; err != nil {
			return fmt.Errorf("read imported messages: %w", err)
		}
		have := make(map[string]bool, len(existing))
		for _, e := range existing {
			have[e.Key] = true
			if e.Live {
				res.ConversationID = e.ConversationID
			}
		}
		var todo []int
		for i := range sorted {
			if have[keys[i]] {
				res.Existing++
			} else {
				todo = append(todo, i)
			}
		}
		if len(todo) == 0 {
			return nil
		}
		last := sorted[todo[len(todo)-1]].CreatedAt
		if res.ConversationID == "" {
			first := sorted[todo[0]].CreatedAt
			if err := tx.Raw(`INSERT INTO conversations (user_id, title, mode, style, created_at, last_activity_at)
				VALUES (?, ?, 'tutor', 'explain', ?, ?) RETURNING id`, userID, title, first, last).
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
		for n, i := range todo {
			m := sorted[i]
			meta, _ := json.Marshal(map[string]any{"legacyKey": keys[i], "legacyLine": m.Line})
			if err := tx.Exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status, metadata, created_at, completed_at)
				VALUES (?, ?, ?, ?, ?, 'complete', ?, ?, ?)`, res.ConversationID, userID, next+n, m.Role, m.Content,
				JSON(meta), m.CreatedAt, m.CreatedAt).Error; err != nil {
				return fmt.Errorf("insert message of line %d: %w", m.Line, err)
			}
		}
		res.Added = len(todo)
		return tx.Exec(`UPDATE users SET active_conversation_id = ? WHERE id = ? AND active_conversation_id IS NULL`,
			res.ConversationID, userID).Error
	})
	if err != nil {
		return LegacyResult{}, err
	}
	return res, nil
}
