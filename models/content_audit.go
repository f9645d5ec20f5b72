package models

import (
	"context"
	"fmt"
	"time"
)

// Content audit actions.
const (
	AuditPublish   = "publish"
	AuditUnpublish = "unpublish"
	AuditRestore   = "restore"
	AuditImport    = "import"
	AuditDelete    = "delete"
)

// Actor is who changes content: an admin, or no one for `aula content import`.
type Actor struct{ ID, Email string }

// ContentEvent is one entry of the content audit log.
type ContentEvent struct {
	ID         int64
	ActorID    *string `gorm:"type:uuid"`
	ActorEmail string
	Action     string
	Subject    string
	Detail     string
	CreatedAt  time.Time
}

// TableName maps ContentEvent to content_audit.
func (ContentEvent) TableName() string { return "content_audit" }

// RecordContent writes one audit entry (inside the caller's transaction
// when ctx carries one, so the entry and the change commit together).
func (s *Content) RecordContent(ctx context.Context, who Actor, action, subject, detail string) error {
	e := ContentEvent{ActorEmail: who.Email, Action: action, Subject: subject, Detail: detail}
	if who.ID != "" {
		e.ActorID = &who.ID
	}
	if err := conn(ctx, s.db).Create(&e).Error; err != nil {
		return fmt.Errorf("record %s of %s: %w", action, subject, err)
	}
	return nil
}

// ContentEvents returns the audit log newest first, limit entries before
// the entry id before (0: from the newest): a keyset page.
func (s *Content) ContentEvents(ctx context.Context, before int64, limit int) ([]ContentEvent, error) {
	q := conn(ctx, s.db).Order("id DESC").Limit(limit)
	if before > 0 {
		q = q.Where("id < ?", before)
	}
	var out []ContentEvent
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list content audit: %w", err)
	}
	return out, nil
}
