package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Channels aula processes LISTEN on; see Streams.
const (
	// StreamChannel carries "<message id> <content length in bytes>" pairs
	// (or "*": any) when streaming answers' stored text grew, and
	// "<message id> end" when one was finished.
	StreamChannel = "aula_stream"
	// CancelChannel carries "<message id>": the process generating that
	// answer stops it, as if the student had pressed stop there.
	CancelChannel = "aula_cancel"
	// FollowChannel carries "<message id>": a process follows that answer
	// for a reader, so the process generating it stores its text as it
	// grows (until then the text lives in that process's memory only).
	FollowChannel = "aula_follow"
)

// DefaultLeaseTTL is how long a generation's lease outlives its owner's
// last renewal when nothing else is configured (AULA_LEASE_TTL): a dead
// process's answers fail within about 4/3 of it.
const DefaultLeaseTTL = 15 * time.Second

// ErrLeaseLost means the answer is no longer streaming under this
// instance's lease: another process declared it dead and finished it.
var ErrLeaseLost = errors.New("the answer's lease was lost")

// Lease is who generates an answer and for how long the claim holds
// without renewal; it is written with the streaming row.
type Lease struct {
	Owner string
	TTL   time.Duration
}

func (l Lease) ttlMs() int64 {
	if l.TTL <= 0 {
		return DefaultLeaseTTL.Milliseconds()
	}
	return l.TTL.Milliseconds()
}

func (l Lease) owner() *string {
	if l.Owner == "" {
		return nil
	}
	return &l.Owner
}

// Streams is the shared state of answers in generation: their text so
// far, their leases, and the notifications other processes follow. It
// talks to database/sql directly, not through GORM, because it runs on
// every batch of tokens and must not show up as application queries.
type Streams struct{ db *sql.DB }

// NewStreams returns the store on db's connection pool.
func NewStreams(db *gorm.DB) (*Streams, error) {
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("streams: %w", err)
	}
	return &Streams{db: sqlDB}, nil
}

// Piece is text to add to a streaming answer whose stored content is At
// bytes long.
type Piece struct {
	ID   string
	At   int
	Text string
}

// maxNotifiedIDs bounds the ids one notification names (its payload is
// at most 8,000 bytes); past it the notification says "*": every follower
// re-reads its row.
const maxNotifiedIDs = 150

// AppendBatch adds each piece to the stored content of a streaming answer
// owner holds, provided the stored content is At bytes long (so a retried
// write can never double text), in one statement and one commit however
// many answers there are, and notifies StreamChannel once with the ids
// that grew. It returns the new length of each answer it grew; an answer
// missing from it is no longer owner's (ErrLeaseLost for that answer).
func (s *Streams) AppendBatch(ctx context.Context, owner string, pieces []Piece) (map[string]int, error) {
	if len(pieces) == 0 {
		return map[string]int{}, nil
	}
	ids, ats, texts := make([]string, len(pieces)), make([]int64, len(pieces)), make([]string, len(pieces))
	for i, p := range pieces {
		ids[i], ats[i], texts[i] = p.ID, int64(p.At), p.Text
	}
	// Rows are locked in id order, as lease renewal and Finish lock them.
	rows, err := s.db.QueryContext(ctx, `WITH v AS (
			SELECT * FROM unnest($2::uuid[], $3::bigint[], $4::text[]) AS v(id, at, text)
		), l AS (
			SELECT m.id FROM messages m JOIN v ON v.id = m.id WHERE m.status = 'streaming' AND m.lease_owner = $1
			ORDER BY m.id FOR UPDATE OF m
		), u AS (
			UPDATE messages m SET content = m.content || v.text
			FROM v JOIN l ON l.id = v.id
			WHERE m.id = v.id AND m.status = 'streaming' AND m.lease_owner = $1 AND octet_length(m.content) = v.at
			RETURNING m.id, octet_length(m.content) AS n
		), note AS (
			SELECT pg_notify('`+StreamChannel+`', CASE WHEN count(*) > `+fmt.Sprint(maxNotifiedIDs)+` THEN '*'
				ELSE string_agg(id::text || ' ' || n::text, ' ') END) AS sent
			FROM u HAVING count(*) > 0
		)
		SELECT u.id::text, u.n FROM u LEFT JOIN note ON true`, owner, ids, ats, texts)
	if err != nil {
		return nil, fmt.Errorf("append answer text: %w", err)
	}
	defer rows.Close()
	grown := make(map[string]int, len(pieces))
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("append answer text: %w", err)
		}
		grown[id] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("append answer text: %w", err)
	}
	return grown, nil
}

// Renew pushes forward the leases owner holds on the answers ids (one
// statement however many there are) and returns the ids it renewed; an
// id missing from them is no longer owner's (ErrLeaseLost for that
// answer) or not written yet. Only the answers the caller is still
// generating are named, so a row the owner failed to finish (the
// database was away) expires and is swept.
func (s *Streams) Renew(ctx context.Context, owner string, ids []string, ttl time.Duration) (map[string]bool, error) {
	renewed := map[string]bool{}
	if len(ids) == 0 {
		return renewed, nil
	}
	// Rows are locked in id order, as Finish's batch locks them, so the
	// two never deadlock (a deadlock's loser would leave an answer unstored).
	rows, err := s.db.QueryContext(ctx, `WITH l AS (
			SELECT id FROM messages WHERE status = 'streaming' AND lease_owner = $1 AND id = ANY($3::uuid[])
			ORDER BY id FOR UPDATE
		)
		UPDATE messages m SET lease_until = now() + $2 * interval '1 millisecond'
		FROM l WHERE m.id = l.id RETURNING m.id::text`,
		owner, Lease{TTL: ttl}.ttlMs(), ids)
	if err != nil {
		return nil, fmt.Errorf("renew leases: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("renew leases: %w", err)
		}
		renewed[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("renew leases: %w", err)
	}
	return renewed, nil
}

// FailExpired ends every streaming answer whose lease ran out (or that
// has none), except those self still holds (held: the ids of self's
// answers in flight, a live owner perhaps still storing a final text
// after the database was away). An answer of self's that it no longer
// holds is ended too: its final write failed, and no other process would
// ever sweep it while self lives. A first answer ends failed, error code
// "interrupted", its half-written text cleared and its question
// refunded; a continuation ends stopped as it was before Continue, with
// the text stored (what was kept, and what the continuation stored since)
// and its question still counted, so it can be continued again. Either
// way its followers get an "end" notification. Rows and refunds change
// in one statement with row locks skipped, so sweeps racing on several
// processes, or with the owner's own Finish, refund a question exactly
// once. It returns the ids it ended.
func (s *Streams) FailExpired(ctx context.Context, now time.Time, self string, held []string) ([]string, error) {
	if held == nil {
		held = []string{}
	}
	rows, err := s.db.QueryContext(ctx, `WITH dead AS (
			SELECT id, user_id, quota_period, continued FROM messages
			WHERE status = 'streaming' AND (lease_until IS NULL OR lease_until < now())
			  AND (lease_owner IS DISTINCT FROM $2 OR NOT (id = ANY($3::uuid[])))
			ORDER BY lease_until NULLS FIRST LIMIT 500
			FOR UPDATE SKIP LOCKED
		), ended AS (
			UPDATE messages m SET completed_at = $1, lease_until = NULL, continued = false,
				status = CASE WHEN dead.continued THEN 'cancelled' ELSE 'failed' END,
				error_code = CASE WHEN dead.continued THEN '' ELSE 'interrupted' END,
				content = CASE WHEN dead.continued THEN m.content ELSE '' END,
				quota_period = CASE WHEN dead.continued THEN m.quota_period END
			FROM dead WHERE m.id = dead.id
			RETURNING dead.id, dead.user_id, dead.quota_period, dead.continued
		), refund AS (
			UPDATE plan_usage p SET questions = greatest(p.questions - r.n, 0)
			FROM (SELECT user_id, quota_period, count(*) AS n FROM ended
			      WHERE quota_period IS NOT NULL AND NOT continued GROUP BY user_id, quota_period) r
			WHERE p.user_id = r.user_id AND p.period = r.quota_period
			RETURNING p.user_id
		)
		SELECT id::text, pg_notify('`+StreamChannel+`', id::text || ' end')::text FROM ended`, now, self, held)
	if err != nil {
		return nil, fmt.Errorf("fail expired answers: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id, ignored string
		if err := rows.Scan(&id, &ignored); err != nil {
			return nil, fmt.Errorf("fail expired answers: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("fail expired answers: %w", err)
	}
	return ids, nil
}

// StreamState is a user's answer as another process sees it mid-stream.
type StreamState struct {
	Status string
	Length int    // bytes of content stored
	Tail   []byte // content from the requested offset on
}

// ReadFrom returns the user's assistant message's status and its stored
// text from byte offset from (PostgreSQL's own substring counts
// characters, so the text is sliced as UTF-8 bytes). ErrNotFound when the
// message is not the user's answer.
func (s *Streams) ReadFrom(ctx context.Context, userID, id string, from int) (*StreamState, error) {
	if !validID(id) || !validID(userID) {
		return nil, ErrNotFound
	}
	var st StreamState
	err := s.db.QueryRowContext(ctx, `SELECT status, octet_length(content), substr(convert_to(content, 'UTF8'), $3 + 1)
		FROM messages WHERE id = $1 AND user_id = $2 AND role = 'assistant'`, id, userID, max(from, 0)).
		Scan(&st.Status, &st.Length, &st.Tail)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read answer text: %w", err)
	}
	return &st, nil
}

// NotifyFollow asks whichever process generates id to store its text as
// it grows, for a reader on another process.
func (s *Streams) NotifyFollow(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `SELECT pg_notify('`+FollowChannel+`', $1)`, id); err != nil {
		return fmt.Errorf("notify follow: %w", err)
	}
	return nil
}

// NotifyCancel asks whichever process generates id to stop it.
func (s *Streams) NotifyCancel(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `SELECT pg_notify('`+CancelChannel+`', $1)`, id); err != nil {
		return fmt.Errorf("notify cancel: %w", err)
	}
	return nil
}

// LeaseOf returns the owner and expiry of an answer's lease, for tests and
// operators ("" and nil when it has none).
func (s *Streams) LeaseOf(ctx context.Context, id string) (owner string, until *time.Time, err error) {
	var o sql.NullString
	var u sql.NullTime
	if err := s.db.QueryRowContext(ctx, `SELECT lease_owner, lease_until FROM messages WHERE id = $1`, id).Scan(&o, &u); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return "", nil, ErrNotFound
		}
		return "", nil, fmt.Errorf("read lease: %w", err)
	}
	if u.Valid {
		until = &u.Time
	}
	return o.String, until, nil
}

// NotifyEnd tells the followers of id that its final state is stored.
func (s *Streams) NotifyEnd(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, `SELECT pg_notify('`+StreamChannel+`', $1 || ' end')`, id); err != nil {
		return fmt.Errorf("notify end: %w", err)
	}
	return nil
}

// Ping tells whether the database answers.
func (s *Streams) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }
