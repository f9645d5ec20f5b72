package models

import (
	"context"
	"fmt"
	"time"
)

// HistoryEntry is one of a student's conversations as the API lists it.
type HistoryEntry struct {
	ConversationID string    `json:"conversationId"`
	Title          string    `json:"title"`
	Mode           string    `json:"mode"`
	LessonID       *string   `json:"lessonId"`
	LessonTitle    *string   `json:"lessonTitle"`
	ModuleID       *int64    `json:"moduleId"`
	ModuleName     *string   `json:"moduleName"`
	Questions      int       `json:"questions"`
	CreatedAt      time.Time `json:"createdAt"`
	LastActivityAt time.Time `json:"lastActivityAt"`
	Total          int       `json:"-" gorm:"column:total"`
}

// HistoryByPage returns a page (from 1) of the user's live, non-empty
// conversations, most recently active first, with the total count: the
// JSON API pages by number where the dashboard pages by cursor.
func (s *Stats) HistoryByPage(ctx context.Context, userID string, page, limit int) ([]HistoryEntry, int, error) {
	if !validID(userID) {
		return nil, 0, nil
	}
	var rows []HistoryEntry
	err := conn(ctx, s.db).Raw(`SELECT c.id AS conversation_id, c.title, c.mode, c.lesson_id, l.title AS lesson_title,
			c.module_id, m.title AS module_name, c.created_at, c.last_activity_at,
			(SELECT count(*) FROM messages q WHERE q.conversation_id = c.id AND q.user_id = c.user_id AND q.role = 'user') AS questions,
			count(*) OVER () AS total
		FROM conversations c
		LEFT JOIN lessons l ON l.id = c.lesson_id
		LEFT JOIN modules m ON m.id = c.module_id
		WHERE c.user_id = ? AND c.deleted_at IS NULL AND c.next_seq > 0
		ORDER BY c.last_activity_at DESC, c.id DESC
		LIMIT ? OFFSET ?`, userID, limit, (page-1)*limit).Scan(&rows).Error
	if err != nil {
		return nil, 0, fmt.Errorf("history: %w", err)
	}
	total := 0
	if len(rows) > 0 {
		total = rows[0].Total
	} else if page > 1 {
		// Past the last page the window has no row to carry the count.
		if err := conn(ctx, s.db).Raw(`SELECT count(*) FROM conversations
			WHERE user_id = ? AND deleted_at IS NULL AND next_seq > 0`, userID).Row().Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("history count: %w", err)
		}
	}
	return rows, total, nil
}

// TotalQuestions counts every question the user ever asked whose answer
// did not fail (a failed one was refunded), as the quota counts them: a
// knowledge check is one question, however many answers it takes.
func (s *Stats) TotalQuestions(ctx context.Context, userID string) (int, error) {
	if !validID(userID) {
		return 0, nil
	}
	var n int
	err := conn(ctx, s.db).Raw(`SELECT (SELECT count(*) FROM messages m WHERE m.user_id = ? AND m.role = 'user'
			AND NOT EXISTS (SELECT 1 FROM messages a WHERE a.conversation_id = m.conversation_id
			                AND a.seq = m.seq + 1 AND a.status = 'failed')
			AND NOT EXISTS (SELECT 1 FROM checks k WHERE k.conversation_id = m.conversation_id))
		+ (SELECT count(*) FROM checks WHERE user_id = ?)`, userID, userID).Row().Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("total questions: %w", err)
	}
	return n, nil
}

// Module returns a module by id.
func (s *Content) Module(ctx context.Context, id int64) (*Module, error) {
	var m Module
	if err := conn(ctx, s.db).Where("id = ?", id).Take(&m).Error; err != nil {
		return nil, notFound(err)
	}
	return &m, nil
}
