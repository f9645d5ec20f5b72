package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// DeviceTouchEvery bounds how often a session's last-seen time is written:
// once per five minutes of activity, not once per request.
const DeviceTouchEvery = 5 * time.Minute

// Device is one signed-in session of a user as the settings page lists it.
// Handle names it in forms: a hash of the session id, so the page never
// carries a secret that would let a script take over another session.
type Device struct {
	Handle     string
	UserAgent  string
	Address    string
	CreatedAt  time.Time
	LastSeenAt time.Time
	// Current is the session making the request.
	Current bool
}

// DeviceHandle is the public name of the session with that id.
func DeviceHandle(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return hex.EncodeToString(sum[:])
}

// handleSQL computes DeviceHandle in PostgreSQL.
const handleSQL = `encode(sha256(convert_to(id, 'UTF8')), 'hex')`

// Devices returns the user's live sessions, most recently seen first;
// currentID marks the caller's own.
func (s *Sessions) Devices(ctx context.Context, userID, currentID string) ([]Device, error) {
	if !validID(userID) {
		return nil, nil
	}
	var out []Device
	err := conn(ctx, s.db).Raw(`SELECT `+handleSQL+` AS handle, user_agent, address, created_at, last_seen_at
		FROM sessions WHERE user_id = ? AND expires_at > now() ORDER BY last_seen_at DESC, created_at DESC`, userID).
		Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	cur := DeviceHandle(currentID)
	for i := range out {
		out[i].Current = out[i].Handle == cur
	}
	return out, nil
}

// SignOut ends the user's session named by handle; someone else's or an
// unknown handle is ErrNotFound.
func (s *Sessions) SignOut(ctx context.Context, userID, handle string) error {
	if !validID(userID) {
		return ErrNotFound
	}
	res := conn(ctx, s.db).Exec(`DELETE FROM sessions WHERE user_id = ? AND `+handleSQL+` = ?`, userID, handle)
	if res.Error != nil {
		return fmt.Errorf("sign out session: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// SignOutOthers ends every session of the user but currentID and returns how many.
func (s *Sessions) SignOutOthers(ctx context.Context, userID, currentID string) (int64, error) {
	if !validID(userID) {
		return 0, ErrNotFound
	}
	res := conn(ctx, s.db).Exec(`DELETE FROM sessions WHERE user_id = ? AND id <> ?`, userID, currentID)
	if res.Error != nil {
		return 0, fmt.Errorf("sign out other sessions: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// Touch records the device and address of a session and that it was seen
// now; it writes only when the last write is older than DeviceTouchEvery
// or the device or address changed.
func (s *Sessions) Touch(ctx context.Context, sessionID, userAgent, address string) error {
	if len(userAgent) > 300 {
		userAgent = userAgent[:300]
	}
	// PostgreSQL refuses NUL and invalid UTF-8 in text; a header can carry both.
	userAgent = strings.ToValidUTF8(strings.ReplaceAll(userAgent, "\x00", ""), "")
	err := conn(ctx, s.db).Exec(`UPDATE sessions SET last_seen_at = now(), user_agent = ?, address = ?
		WHERE id = ? AND (last_seen_at < now() - make_interval(secs => ?) OR user_agent <> ? OR address <> ?)`,
		userAgent, address, sessionID, DeviceTouchEvery.Seconds(), userAgent, address).Error
	if err != nil {
		return fmt.Errorf("touch session: %w", err)
	}
	return nil
}
