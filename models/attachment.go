package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Attachment is a file sent with a question; only its owner may read it.
type Attachment struct {
	ID            string `gorm:"type:uuid;primaryKey"`
	MessageID     string `gorm:"type:uuid"`
	UserID        string `gorm:"type:uuid"`
	Filename      string
	Mime          string
	Size          int
	Sha256        string `gorm:"column:sha256"`
	ExtractedText string
	Data          []byte
	CreatedAt     time.Time
}

// AttachmentMeta describes an attachment without its bytes.
type AttachmentMeta struct {
	ID, MessageID, Filename, Mime string
	Size                          int
}

// Attachments is the store of question files, scoped by user.
type Attachments struct{ db *gorm.DB }

// NewAttachments returns the attachments store.
func NewAttachments(db *gorm.DB) *Attachments { return &Attachments{db: db} }

// ForMessages returns the attachments of the user's messages, by message id, in one query.
func (s *Attachments) ForMessages(ctx context.Context, userID string, messageIDs []string) (map[string]AttachmentMeta, error) {
	out := map[string]AttachmentMeta{}
	if len(messageIDs) == 0 || !validID(userID) {
		return out, nil
	}
	var rows []AttachmentMeta
	err := conn(ctx, s.db).Raw(`SELECT id, message_id, filename, mime, size FROM attachments
		WHERE user_id = ? AND message_id IN ? ORDER BY created_at`, userID, messageIDs).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list attachments: %w", err)
	}
	for _, r := range rows {
		if _, seen := out[r.MessageID]; !seen {
			out[r.MessageID] = r
		}
	}
	return out, nil
}

// Get returns the user's attachment with its bytes; someone else's is ErrNotFound.
func (s *Attachments) Get(ctx context.Context, userID, id string) (*Attachment, error) {
	if !validID(id) || !validID(userID) {
		return nil, ErrNotFound
	}
	var a Attachment
	if err := conn(ctx, s.db).Where("id = ? AND user_id = ?", id, userID).
		Where(`EXISTS (SELECT 1 FROM messages m JOIN conversations c ON c.id = m.conversation_id
			WHERE m.id = attachments.message_id AND c.deleted_at IS NULL)`).Take(&a).Error; err != nil {
		return nil, notFound(err)
	}
	return &a, nil
}
