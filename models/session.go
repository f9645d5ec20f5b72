package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// sessionRow is a server-side session record.
type sessionRow struct {
	ID        string
	UserID    *string `gorm:"type:uuid"`
	Data      []byte
	CreatedAt time.Time
	UpdatedAt time.Time
	ExpiresAt time.Time
}

func (sessionRow) TableName() string { return "sessions" }

// Sessions stores the server-side sessions: the cookie carries only a
// signed id, the values live here, so deleting a row revokes the session
// on every process. The web door's cookie store reads and writes them.
type Sessions struct{ db *gorm.DB }

// NewSessions returns the sessions store.
func NewSessions(db *gorm.DB) *Sessions { return &Sessions{db: db} }

// Load returns the encoded values of the live session id, or ErrNotFound
// when it does not exist or expired.
func (s *Sessions) Load(ctx context.Context, id string) ([]byte, error) {
	var row sessionRow
	err := conn(ctx, s.db).Where("id = ? AND expires_at > now()", id).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load session: %w", err)
	}
	return row.Data, nil
}

// Save writes session id with its encoded values, its signed-in user
// ("" for none) and its expiry, creating or replacing the row.
func (s *Sessions) Save(ctx context.Context, id, userID string, data []byte, expires time.Time) error {
	row := sessionRow{ID: id, Data: data, UpdatedAt: time.Now(), ExpiresAt: expires}
	if userID != "" {
		row.UserID = &userID
	}
	err := conn(ctx, s.db).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "id"}},
		DoUpdates: clause.AssignmentColumns([]string{"user_id", "data", "updated_at", "expires_at"}),
	}).Create(&row).Error
	if err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	return nil
}

// Delete removes session id (sign-out, or a renewal before sign-in).
func (s *Sessions) Delete(ctx context.Context, id string) error {
	if err := conn(ctx, s.db).Delete(&sessionRow{}, "id = ?", id).Error; err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// RevokeUser deletes every session of a user (password change, account removal).
func (s *Sessions) RevokeUser(ctx context.Context, userID string) error {
	return conn(ctx, s.db).Delete(&sessionRow{}, "user_id = ?", userID).Error
}

// DeleteExpired removes expired session rows.
func (s *Sessions) DeleteExpired(ctx context.Context) (int64, error) {
	res := conn(ctx, s.db).Delete(&sessionRow{}, "expires_at <= now()")
	return res.RowsAffected, res.Error
}
