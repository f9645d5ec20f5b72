package models

import (
	"context"
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
type Sessions struct {
	db *gorm.DB
	// load reads the sessions of requests arriving together in one statement.
	load *reader[string, *sessionUser]
}

// NewSessions returns the sessions store.
func NewSessions(db *gorm.DB) *Sessions {
	return &Sessions{db: db, load: newReader(db, findSessions)}
}

// LoadedSession is a live session as stored: its encoded values, and
// the account signed in to it (nil for none).
type LoadedSession struct {
	Data []byte
	User *User
}

// Load returns the live session id with its signed-in user, or
// ErrNotFound when it does not exist or expired. Every signed-in page
// starts here, so the user comes in the same statement, and the requests
// that arrive together share it (see batcher).
func (s *Sessions) Load(ctx context.Context, id string) (*LoadedSession, error) {
	r, err := s.load.get(ctx, id)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, ErrNotFound
	}
	// Callers that named the same id share the row read: each gets its
	// own copy of the user, free to change.
	out := &LoadedSession{Data: r.SessionData}
	if r.User.ID != "" {
		u := r.User
		out.User = &u
	}
	return out, nil
}

// sessionUser is a session row read with its user's columns (all empty
// when no one is signed in).
type sessionUser struct {
	SessionID   string
	SessionData []byte
	User
}

// findSessions loads many live sessions in one statement; found[i] is
// nil when ids[i] is unknown or expired. An id named twice (one
// browser's requests at once) is read once.
func findSessions(db *gorm.DB, ids []string) ([]*sessionUser, error) {
	keys := make([]struct {
		ID string `json:"id"`
	}, len(ids))
	for i, id := range ids {
		keys[i].ID = id
	}
	rows, err := jsonRows[sessionUser](db, "load sessions", `SELECT s.id AS session_id, s.data AS session_data, u.*
		FROM sessions s LEFT JOIN users u ON u.id = s.user_id
		WHERE s.id IN (SELECT DISTINCT id FROM json_to_recordset(?::json) AS r(id text)) AND s.expires_at > now()`,
		keys)
	if err != nil {
		return nil, err
	}
	return matched(ids, rows, func(r *sessionUser) string { return r.SessionID }), nil
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
