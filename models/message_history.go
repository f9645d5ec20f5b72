package models

import (
	"context"

	"gorm.io/gorm"
)

// HistoryRead is what a prompt's history is drawn from: a thread's
// newest turns before a question, newest first, how many such turns it
// holds in all, and the earlier context another program brought with its
// first question, oldest first.
type HistoryRead struct {
	Turns   []Message
	Total   int
	Context []ContextTurn
}

// historyKey is one thread's history read: whose, which, before which
// turn and how many turns at most.
type historyKey struct {
	I              int    `json:"i"`
	UserID         string `json:"user_id"`
	ConversationID string `json:"conv"`
	BeforeSeq      int    `json:"before"`
	Limit          int    `json:"lim"`
}

// historySQL reads the history of many threads in one statement (a
// class's follow-ups arriving together each read their thread's: one
// round trip on the pool each would queue them all). For each input:
// the newest turns that may enter a prompt (a question whose answer
// failed, is still streaming, or was cancelled before any text, is left
// out with that answer; a question's attached file comes with it, its
// text cut to HistoryAttachmentChars, so follow-ups can still use it),
// each with the count of them all, then the thread's context turns.
const historySQL = `WITH req AS MATERIALIZED (SELECT * FROM json_to_recordset(CAST(? AS json))
		AS r(i int, user_id uuid, conv uuid, before int, lim int))
	SELECT r.i, 'turn' AS kind, t.id, t.seq, t.role, t.content, t.metadata, t.total, 0 AS position
	FROM req r CROSS JOIN LATERAL (
		SELECT m.id::text AS id, m.seq, m.role,
		       CASE WHEN coalesce(f.extracted_text, '') = '' THEN m.content
		            ELSE m.content || E'\n\n[Attached file "' || f.filename || E'"]\n' || left(f.extracted_text, ?) END AS content,
		       m.metadata, count(*) OVER () AS total
		FROM messages m
		LEFT JOIN messages a ON a.conversation_id = m.conversation_id AND a.seq = m.seq + 1 AND m.role = 'user'
		LEFT JOIN LATERAL (SELECT filename, extracted_text FROM attachments
		                   WHERE message_id = m.id AND user_id = m.user_id ORDER BY created_at LIMIT 1) f ON m.role = 'user'
		WHERE m.conversation_id = r.conv AND m.user_id = r.user_id AND m.seq < r.before
		  AND CASE WHEN m.role = 'assistant'
		           THEN m.status = 'complete' OR (m.status = 'cancelled' AND m.content <> '')
		           ELSE a.role = 'assistant' AND (a.status = 'complete' OR (a.status = 'cancelled' AND a.content <> ''))
		      END
		ORDER BY m.seq DESC LIMIT r.lim) t
	UNION ALL
	SELECT r.i, 'context', '', 0, c.role, c.content, '{}'::jsonb, 0, c.position
	FROM req r JOIN context_turns c ON c.conversation_id = r.conv AND c.user_id = r.user_id
	ORDER BY 1, 2 DESC, 4 DESC, 9`

// historyRow is one row of historySQL: a turn or a context turn of input I.
type historyRow struct {
	I        int
	Kind     string
	Total    int
	Position int
	Message
}

// History reads the history a prompt draws on for the user's thread:
// its turns before beforeSeq (at most limit) and its earlier context.
// Every query is scoped by user and thread, so no other thread can leak
// in. Follow-ups asked together share one statement.
func (s *Messages) History(ctx context.Context, userID, conversationID string, beforeSeq, limit int) (HistoryRead, error) {
	if !validID(userID) || !validID(conversationID) {
		return HistoryRead{}, nil
	}
	return s.histories.get(ctx, historyKey{UserID: userID, ConversationID: conversationID, BeforeSeq: beforeSeq, Limit: limit})
}

// readHistories answers historyKeys in one statement: outs[i] is ins[i]'s.
func readHistories(db *gorm.DB, ins []historyKey) ([]HistoryRead, error) {
	for i := range ins {
		ins[i].I = i
	}
	rows, err := jsonRows[historyRow](db, "history", historySQL, ins, HistoryAttachmentChars)
	if err != nil {
		return nil, err
	}
	out := make([]HistoryRead, len(ins))
	for _, r := range rows {
		h := &out[r.I]
		if r.Kind == "context" {
			h.Context = append(h.Context, ContextTurn{Role: r.Role, Content: r.Content})
			continue
		}
		h.Turns, h.Total = append(h.Turns, r.Message), r.Total
	}
	return out, nil
}
