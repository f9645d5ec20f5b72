package models

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/gob"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/gorilla/sessions"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// SessionUserKey is the session value holding the signed-in user's id.
const SessionUserKey = "uid"

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

// SessionStore is a gorilla/sessions store whose cookie carries only a
// signed session id; the values live in PostgreSQL, so deleting the row
// revokes the session on every process.
type SessionStore struct {
	db     *gorm.DB
	codecs []securecookie.Codec
	// Options are the cookie options of new sessions.
	Options *sessions.Options
}

// NewSessionStore returns a store signing cookies with the given key pairs
// (hash key, optional block key), as securecookie.CodecsFromPairs takes them.
func NewSessionStore(db *gorm.DB, keyPairs ...[]byte) *SessionStore {
	codecs := securecookie.CodecsFromPairs(keyPairs...)
	for _, c := range codecs {
		if sc, ok := c.(*securecookie.SecureCookie); ok {
			sc.MaxAge(0) // expiry is enforced by the row, not the cookie timestamp
		}
	}
	return &SessionStore{db: db, codecs: codecs, Options: &sessions.Options{
		Path: "/", MaxAge: 30 * 24 * 3600, HttpOnly: true, SameSite: http.SameSiteLaxMode,
	}}
}

// Get returns the session for name, cached for the request.
func (s *SessionStore) Get(r *http.Request, name string) (*sessions.Session, error) {
	return sessions.GetRegistry(r).Get(s, name)
}

// New loads the session named by the request's cookie, or starts an empty one.
// A cookie that is forged, expired or revoked yields a new empty session.
func (s *SessionStore) New(r *http.Request, name string) (*sessions.Session, error) {
	sess := sessions.NewSession(s, name)
	opts := *s.Options
	sess.Options = &opts
	sess.IsNew = true
	c, err := r.Cookie(name)
	if err != nil {
		return sess, nil
	}
	var id string
	if err := securecookie.DecodeMulti(name, c.Value, &id, s.codecs...); err != nil {
		return sess, nil
	}
	var row sessionRow
	err = s.db.WithContext(r.Context()).Where("id = ? AND expires_at > now()", id).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return sess, nil
	}
	if err != nil {
		return sess, fmt.Errorf("load session: %w", err)
	}
	if err := gob.NewDecoder(bytes.NewReader(row.Data)).Decode(&sess.Values); err != nil {
		return sess, nil
	}
	sess.ID = id
	sess.IsNew = false
	return sess, nil
}

// Save writes the session row and sets the cookie; MaxAge < 0 deletes both.
func (s *SessionStore) Save(r *http.Request, w http.ResponseWriter, sess *sessions.Session) error {
	ctx := r.Context()
	if sess.Options.MaxAge < 0 {
		if sess.ID != "" {
			if err := s.db.WithContext(ctx).Delete(&sessionRow{}, "id = ?", sess.ID).Error; err != nil {
				return fmt.Errorf("delete session: %w", err)
			}
		}
		http.SetCookie(w, sessions.NewCookie(sess.Name(), "", sess.Options))
		return nil
	}
	if sess.ID == "" {
		sess.ID = newSessionID()
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(sess.Values); err != nil {
		return fmt.Errorf("encode session: %w", err)
	}
	row := sessionRow{ID: sess.ID, Data: buf.Bytes(), UpdatedAt: time.Now(),
		ExpiresAt: time.Now().Add(time.Duration(sess.Options.MaxAge) * time.Second)}
	if uid, ok := sess.Values[SessionUserKey].(string); ok && uid != "" {
		row.UserID = &uid
	}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "id"}},
		DoUpdates: clause.AssignmentColumns([]string{"user_id", "data", "updated_at", "expires_at"}),
	}).Create(&row).Error
	if err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	encoded, err := securecookie.EncodeMulti(sess.Name(), sess.ID, s.codecs...)
	if err != nil {
		return fmt.Errorf("sign session cookie: %w", err)
	}
	http.SetCookie(w, sessions.NewCookie(sess.Name(), encoded, sess.Options))
	return nil
}

// Renew deletes the session's row and gives it a fresh id, keeping its
// values, so an id planted before sign-in is worthless after it.
func (s *SessionStore) Renew(ctx context.Context, sess *sessions.Session) error {
	if sess.ID != "" {
		if err := s.db.WithContext(ctx).Delete(&sessionRow{}, "id = ?", sess.ID).Error; err != nil {
			return fmt.Errorf("renew session: %w", err)
		}
	}
	sess.ID = ""
	return nil
}

// RevokeUser deletes every session of a user (password change, account removal).
func (s *SessionStore) RevokeUser(ctx context.Context, userID string) error {
	return s.db.WithContext(ctx).Delete(&sessionRow{}, "user_id = ?", userID).Error
}

// DeleteExpired removes expired session rows.
func (s *SessionStore) DeleteExpired(ctx context.Context) (int64, error) {
	res := s.db.WithContext(ctx).Delete(&sessionRow{}, "expires_at <= now()")
	return res.RowsAffected, res.Error
}

func newSessionID() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
