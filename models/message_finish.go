package models

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"gorm.io/gorm"
)

// FinishInput is the final state of an answer.
type FinishInput struct {
	Status    string // complete, failed or cancelled
	Content   string
	ErrorCode string
	Provider  string
	Model     string
	LatencyMs int
	TtftMs    *int
	TokensIn  int
	TokensOut int
	Metadata  JSON
	Now       time.Time
	// LeaseOwner, when set, must still hold the answer: an instance whose
	// lease expired (and whose answer may since have been retried
	// elsewhere) cannot overwrite it.
	LeaseOwner string
}

// finishCall is one answer's final state, as the batch statement reads it.
type finishCall struct {
	I         int             `json:"i"` // its place in the batch: the first of an id's calls is the one stored
	ID        string          `json:"id"`
	Status    string          `json:"status"`
	Content   string          `json:"content"`
	ErrorCode string          `json:"error_code"`
	Provider  string          `json:"provider"`
	Model     string          `json:"model"`
	LatencyMs int             `json:"latency_ms"`
	TtftMs    *int            `json:"ttft_ms"`
	TokensIn  int             `json:"tokens_in"`
	TokensOut int             `json:"tokens_out"`
	Metadata  json.RawMessage `json:"metadata"`
	Now       time.Time       `json:"now"`
	Owner     string          `json:"owner"`
}

// Finish stores an answer's final state and returns the row as stored.
// Only a streaming answer is updated, so a late writer cannot overwrite a
// recovered or retried one: nil means the row was not ours to end. The
// answers of a class end together, so outside a transaction the ones
// ending at the same moment share one statement.
func (s *Messages) Finish(ctx context.Context, id string, in FinishInput) (*Message, error) {
	if !validID(id) {
		return nil, nil
	}
	meta := json.RawMessage(in.Metadata)
	if len(meta) == 0 || !json.Valid(meta) {
		meta = json.RawMessage("{}")
	}
	c := finishCall{ID: id, Status: in.Status, Content: strings.ReplaceAll(strings.ToValidUTF8(in.Content, "\uFFFD"), "\x00", ""),
		ErrorCode: in.ErrorCode, Provider: in.Provider, Model: in.Model, LatencyMs: in.LatencyMs, TtftMs: in.TtftMs,
		TokensIn: in.TokensIn, TokensOut: in.TokensOut, Metadata: meta, Now: in.Now, Owner: in.LeaseOwner}
	return s.finishes.get(ctx, c)
}

// finishAll stores many answers' final states in one statement; stored[i]
// is the row calls[i] ended, nil when it was no longer streaming (or no
// longer its owner's). An id named twice is ended by one of its calls.
func finishAll(db *gorm.DB, calls []finishCall) ([]*Message, error) {
	// The rows are locked in id order, as lease renewal locks them: the
	// two never deadlock (a deadlock's loser here would leave an answer
	// unstored).
	for i := range calls {
		calls[i].I = i
	}
	// An id named twice is stored from its first call, the one its row is
	// handed back to below.
	rows, err := jsonRows[Message](db, "finish answers", `WITH r AS MATERIALIZED (
			SELECT DISTINCT ON (id) * FROM json_to_recordset(?::json) AS r(i int, id uuid, status text, content text,
				error_code text, provider text, model text, latency_ms int, ttft_ms int, tokens_in int, tokens_out int,
				metadata jsonb, now timestamptz, owner text)
			ORDER BY id, i
		), l AS (
			SELECT m.id FROM messages m JOIN r ON r.id = m.id
			WHERE m.status = 'streaming' AND (r.owner = '' OR m.lease_owner = r.owner)
			ORDER BY m.id FOR UPDATE OF m
		)
		UPDATE messages m SET status = r.status, content = r.content, error_code = r.error_code,
			provider = r.provider, model = r.model, latency_ms = r.latency_ms, ttft_ms = r.ttft_ms,
			tokens_in = r.tokens_in, tokens_out = r.tokens_out, metadata = r.metadata, completed_at = r.now,
			lease_until = NULL, continued = false
		FROM l JOIN r ON r.id = l.id
		WHERE m.id = l.id AND m.status = 'streaming'
		RETURNING m.*`, calls)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*Message, len(rows))
	for i := range rows {
		byID[rows[i].ID] = &rows[i]
	}
	stored := make([]*Message, len(calls))
	for i, c := range calls {
		stored[i] = byID[c.ID]
		delete(byID, c.ID) // a second call for the same id did not store it
	}
	return stored, nil
}
