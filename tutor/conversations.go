package tutor

import (
	"context"
	"errors"
	"fmt"

	"aula/models"
)

// DeleteConversation deletes the user's thread, first stopping the answers
// still being written in it, so none keeps generating (and streaming) for
// a thread that is gone. Someone else's thread is models.ErrNotFound.
func (s *Service) DeleteConversation(ctx context.Context, userID, conversationID string) error {
	msgs, err := s.msgs.ListByConversation(ctx, userID, conversationID)
	if err != nil && !errors.Is(err, models.ErrNotFound) {
		return fmt.Errorf("delete conversation: %w", err)
	}
	for _, m := range msgs {
		if m.Status != models.StatusStreaming {
			continue
		}
		if err := s.streams.Cancel(ctx, userID, m.ID); err != nil && !errors.Is(err, models.ErrNotFound) {
			return fmt.Errorf("delete conversation: stop answer: %w", err)
		}
	}
	return s.convs.Delete(ctx, userID, conversationID)
}
