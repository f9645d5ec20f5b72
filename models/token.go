package models

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// TokenPrefix starts every personal API token, so a leaked one is recognisable.
const TokenPrefix = "aula_"

// MaxTokenNameChars is the longest token name kept.
const MaxTokenNameChars = 100

// tokenTouchEvery bounds how often last_used_at is written: at most once a
// minute per token, so an API client does not cost a write per request.
const tokenTouchEvery = time.Minute

// Errors for API tokens; the fronts translate them.
var (
	// ErrInvalidToken is a token that is malformed, unknown or revoked.
	ErrInvalidToken = errors.New("invalid API token")
	// ErrTokenName is a token name that is empty or too long.
	ErrTokenName = fmt.Errorf("a token needs a name of 1 to %d characters", MaxTokenNameChars)
)

// APIToken is a personal API token of a user; only its sha256 is stored.
type APIToken struct {
	ID         string `gorm:"type:uuid;primaryKey;default:gen_random_uuid()"`
	UserID     string `gorm:"type:uuid"`
	Name       string
	TokenHash  []byte
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// TableName maps APIToken to api_tokens.
func (APIToken) TableName() string { return "api_tokens" }

// Tokens is the store of personal API tokens; every query is scoped by user.
type Tokens struct {
	db *gorm.DB
	// find authenticates the tokens of requests arriving together in one statement.
	find *reader[tokenLookup, *tokenUser]
}

// NewTokens returns the API token store.
func NewTokens(db *gorm.DB) *Tokens { return &Tokens{db: db, find: newReader(db, findTokens)} }

// newSecret is 256 random bits, URL-safe: the token of a reset, join or
// invitation link, of which the database keeps only hashToken.
func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashToken is what the database keeps of a token.
func hashToken(raw string) []byte {
	sum := sha256.Sum256([]byte(raw))
	return sum[:]
}

// wellFormed reports whether raw has the shape Create gives tokens, so
// garbage is refused before it costs a query.
func wellFormed(raw string) bool {
	body, ok := strings.CutPrefix(raw, TokenPrefix)
	if !ok {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(body)
	return err == nil && len(b) == 32
}

// Create makes a named token for the user and returns it with the secret,
// which is never stored and cannot be shown again.
func (s *Tokens) Create(ctx context.Context, userID, name string) (*APIToken, string, error) {
	name = strings.Join(strings.Fields(strings.ToValidUTF8(name, "")), " ")
	if name == "" || utf8.RuneCountInString(name) > MaxTokenNameChars {
		return nil, "", ErrTokenName
	}
	if !validID(userID) {
		return nil, "", ErrNotFound
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, "", fmt.Errorf("create token: %w", err)
	}
	raw := TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	t := &APIToken{UserID: userID, Name: name, TokenHash: hashToken(raw)}
	if err := conn(ctx, s.db).Create(t).Error; err != nil {
		return nil, "", fmt.Errorf("create token: %w", err)
	}
	return t, raw, nil
}

// List returns the user's tokens, newest first, revoked ones included.
func (s *Tokens) List(ctx context.Context, userID string) ([]APIToken, error) {
	if !validID(userID) {
		return nil, nil
	}
	var out []APIToken
	err := conn(ctx, s.db).Where("user_id = ?", userID).Order("created_at DESC, id").Find(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// Revoke ends the user's token at once; ErrNotFound when it is not theirs.
// Revoking a revoked token keeps its first revocation time.
func (s *Tokens) Revoke(ctx context.Context, userID, id string) error {
	if !validID(id) || !validID(userID) {
		return ErrNotFound
	}
	res := conn(ctx, s.db).Exec(`UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now())
		WHERE id = ? AND user_id = ?`, id, userID)
	if res.Error != nil {
		return fmt.Errorf("revoke token: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// tokenUser is a user row read with the token that reached it.
type tokenUser struct {
	User
	TokenID         string
	TokenName       string
	TokenHash       []byte
	TokenCreatedAt  time.Time
	TokenLastUsedAt *time.Time
}

// Authenticate returns the user a live token belongs to, and records its
// use (at most once a minute). A malformed, unknown or revoked token is
// ErrInvalidToken. The token, its user and the use are one statement, and
// the requests that arrive together share it (see batcher): every API
// request starts here, and a class asking at once would otherwise queue
// one round trip each for the connection pool.
func (s *Tokens) Authenticate(ctx context.Context, raw string, now time.Time) (*User, *APIToken, error) {
	if !wellFormed(raw) {
		return nil, nil, ErrInvalidToken
	}
	sum := hashToken(raw)
	r, err := s.find.get(ctx, tokenLookup{Hash: hex.EncodeToString(sum), Now: now})
	if err != nil {
		return nil, nil, err
	}
	// The index found the row by hash; the constant-time comparison keeps
	// the final decision free of timing differences all the same.
	if r == nil || subtle.ConstantTimeCompare(r.TokenHash, sum) != 1 {
		return nil, nil, ErrInvalidToken
	}
	t := APIToken{ID: r.TokenID, UserID: r.ID, Name: r.TokenName, TokenHash: r.TokenHash, CreatedAt: r.TokenCreatedAt,
		LastUsedAt: r.TokenLastUsedAt}
	u := r.User
	return &u, &t, nil
}

// tokenLookup is one token to authenticate: its hash in hex, and the
// time of the request (its use is recorded at that time).
type tokenLookup struct {
	Hash string    `json:"h"`
	Now  time.Time `json:"now"`
}

// findTokens authenticates many tokens in one statement; found[i] is
// nil when ins[i] is unknown or revoked. A token named twice (one
// account's requests at once) is read once and touched once.
func findTokens(db *gorm.DB, ins []tokenLookup) ([]*tokenUser, error) {
	rows, err := jsonRows[tokenUser](db, "find tokens", `WITH req AS (
			SELECT DISTINCT ON (h) decode(h, 'hex') AS hash, now FROM json_to_recordset(?::json) AS r(h text, now timestamptz)
		), t AS (
			SELECT a.id, a.user_id, a.name, a.token_hash, a.created_at, a.last_used_at, req.now
			FROM api_tokens a JOIN req ON a.token_hash = req.hash WHERE a.revoked_at IS NULL
		), touch AS (
			UPDATE api_tokens a SET last_used_at = t.now FROM t
			WHERE a.id = t.id AND (a.last_used_at IS NULL OR a.last_used_at <= t.now - ? * interval '1 millisecond')
			RETURNING a.id, a.last_used_at
		)
		SELECT u.*, t.id AS token_id, t.name AS token_name, t.token_hash, t.created_at AS token_created_at,
		       coalesce(touch.last_used_at, t.last_used_at) AS token_last_used_at
		FROM t JOIN users u ON u.id = t.user_id LEFT JOIN touch ON touch.id = t.id`,
		ins, tokenTouchEvery.Milliseconds())
	if err != nil {
		return nil, err
	}
	hashes := make([]string, len(ins))
	for i, in := range ins {
		hashes[i] = in.Hash
	}
	return matched(hashes, rows, func(r *tokenUser) string { return hex.EncodeToString(r.TokenHash) }), nil
}
