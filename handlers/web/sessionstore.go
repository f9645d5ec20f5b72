package web

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

	"aula/models"
)

// sessionUserKey is the session value holding the signed-in user's id.
const sessionUserKey = "uid"

// SessionStore is a gorilla/sessions store whose cookie carries only a
// signed session id; the values live in PostgreSQL (models.Sessions), so
// deleting the row revokes the session on every process. A visitor who is
// not signed in has nothing worth a row (a CSRF token, a language): their
// few string values travel in the signed cookie itself, so anonymous
// traffic (every GET /login, every 404) writes nothing to the database.
type SessionStore struct {
	rows   *models.Sessions
	codecs []securecookie.Codec
	// Options are the cookie options of new sessions.
	Options *sessions.Options
}

// NewSessionStore returns a store signing cookies with the given key pairs
// (hash key, optional block key), as securecookie.CodecsFromPairs takes them.
func NewSessionStore(rows *models.Sessions, keyPairs ...[]byte) *SessionStore {
	codecs := securecookie.CodecsFromPairs(keyPairs...)
	for _, c := range codecs {
		if sc, ok := c.(*securecookie.SecureCookie); ok {
			sc.MaxAge(0) // expiry is enforced by the row, not the cookie timestamp
		}
	}
	return &SessionStore{rows: rows, codecs: codecs, Options: &sessions.Options{
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
	sess, _, err := s.Open(r, name)
	return sess, err
}

// Open is New, with the account signed in to the session as its row
// names it (nil for none): the row and the user are read in one
// statement, and every signed-in request needs both.
func (s *SessionStore) Open(r *http.Request, name string) (*sessions.Session, *models.User, error) {
	sess := sessions.NewSession(s, name)
	opts := *s.Options
	sess.Options = &opts
	sess.IsNew = true
	c, err := r.Cookie(name)
	if err != nil {
		return sess, nil, nil
	}
	var payload cookiePayload
	if err := securecookie.DecodeMulti(name, c.Value, &payload, s.codecs...); err == nil {
		for k, v := range payload.Values {
			sess.Values[k] = v
		}
		sess.IsNew = false
		return sess, nil, nil
	}
	var id string
	if err := securecookie.DecodeMulti(name, c.Value, &id, s.codecs...); err != nil {
		return sess, nil, nil
	}
	row, err := s.rows.Load(r.Context(), id)
	if errors.Is(err, models.ErrNotFound) {
		return sess, nil, nil
	}
	if err != nil {
		return sess, nil, err
	}
	if err := gob.NewDecoder(bytes.NewReader(row.Data)).Decode(&sess.Values); err != nil {
		return sess, nil, nil
	}
	sess.ID = id
	sess.IsNew = false
	return sess, row.User, nil
}

// Save writes the session row and sets the cookie; MaxAge < 0 deletes both.
func (s *SessionStore) Save(r *http.Request, w http.ResponseWriter, sess *sessions.Session) error {
	ctx := r.Context()
	if sess.Options.MaxAge < 0 {
		if sess.ID != "" {
			if err := s.rows.Delete(ctx, sess.ID); err != nil {
				return err
			}
		}
		http.SetCookie(w, sessions.NewCookie(sess.Name(), "", sess.Options))
		return nil
	}
	if saveInCookie(w, sess, s.codecs) {
		return nil
	}
	if sess.ID == "" {
		sess.ID = newSessionID()
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(sess.Values); err != nil {
		return fmt.Errorf("encode session: %w", err)
	}
	uid, _ := sess.Values[sessionUserKey].(string)
	expires := time.Now().Add(time.Duration(sess.Options.MaxAge) * time.Second)
	if err := s.rows.Save(ctx, sess.ID, uid, buf.Bytes(), expires); err != nil {
		return err
	}
	encoded, err := securecookie.EncodeMulti(sess.Name(), sess.ID, s.codecs...)
	if err != nil {
		return fmt.Errorf("sign session cookie: %w", err)
	}
	http.SetCookie(w, sessions.NewCookie(sess.Name(), encoded, sess.Options))
	return nil
}

// cookiePayload is the cookie of a session without a row: its values.
type cookiePayload struct {
	Values map[string]string
}

// maxCookieSession is the largest cookie a rowless session may set; beyond
// it the values go to a row (browsers refuse cookies over 4 KB).
const maxCookieSession = 3072

// saveInCookie stores an anonymous session (no user, no row yet, string
// values only) in its signed cookie, and reports whether it did; otherwise
// the session needs a row.
func saveInCookie(w http.ResponseWriter, sess *sessions.Session, codecs []securecookie.Codec) bool {
	if sess.ID != "" {
		return false
	}
	payload := cookiePayload{Values: make(map[string]string, len(sess.Values))}
	for k, v := range sess.Values {
		ks, ok1 := k.(string)
		vs, ok2 := v.(string)
		if !ok1 || !ok2 || ks == sessionUserKey {
			return false
		}
		payload.Values[ks] = vs
	}
	encoded, err := securecookie.EncodeMulti(sess.Name(), payload, codecs...)
	if err != nil || len(encoded) > maxCookieSession {
		return false
	}
	http.SetCookie(w, sessions.NewCookie(sess.Name(), encoded, sess.Options))
	return true
}

// Renew deletes the session's row and gives it a fresh id, keeping its
// values, so an id planted before sign-in is worthless after it.
func (s *SessionStore) Renew(ctx context.Context, sess *sessions.Session) error {
	if sess.ID != "" {
		if err := s.rows.Delete(ctx, sess.ID); err != nil {
			return fmt.Errorf("renew session: %w", err)
		}
	}
	sess.ID = ""
	return nil
}

func newSessionID() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
