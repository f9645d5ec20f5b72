package models

import (
	"context"
	"fmt"
	"time"
)

// EmptyThreadTTL is how long an empty thread (no message yet) is kept.
const EmptyThreadTTL = 24 * time.Hour

// ReuseEmpty returns the user's empty thread of that mode and lesson, if
// one exists, so "New conversation" clicked twice does not pile up empty
// threads. It returns ErrNotFound when there is none.
func (s *Conversations) ReuseEmpty(ctx context.Context, userID, mode, lessonID string) (*Conversation, error) {
	if !validID(userID) {
		return nil, ErrNotFound
	}
	var c Conversation
	q := conn(ctx, s.db).Where("user_id = ? AND mode = ? AND next_seq = 0 AND deleted_at IS NULL", userID, mode)
	if lessonID == "" {
		q = q.Where("lesson_id IS NULL")
	} else {
		q = q.Where("lesson_id = ?", lessonID)
	}
	if err := q.Order("created_at DESC").Take(&c).Error; err != nil {
		return nil, notFound(err)
	}
	return &c, nil
}

// DeleteStaleEmpty removes threads that never got a message and are older than ttl.
func (s *Conversations) DeleteStaleEmpty(ctx context.Context, ttl time.Duration) (int64, error) {
	res := conn(ctx, s.db).Exec(`DELETE FROM conversations WHERE next_seq = 0 AND created_at < ?`, time.Now().Add(-ttl))
	if res.Error != nil {
		return 0, fmt.Errorf("delete empty conversations: %w", res.Error)
	}
	return res.RowsAffected, nil
}
