package models

import (
	"github.com/google/uuid"
	"gorm.io/gorm"
)

// convKey is one thread to read: its id, and the user it must belong to.
type convKey struct {
	UserID string `json:"u"`
	ID     string `json:"c"`
}

// keyOf is the key of a user's thread in the uuids' canonical spelling,
// the one the rows come back in (an id may be spelled in capitals);
// false when either is no uuid.
func keyOf(userID, id string) (convKey, bool) {
	u, err1 := uuid.Parse(userID)
	c, err2 := uuid.Parse(id)
	return convKey{UserID: u.String(), ID: c.String()}, err1 == nil && err2 == nil
}

// findConversations reads many users' live threads in one statement;
// found[i] is nil when keys[i] names no live thread of that user (someone
// else's thread is not found, as in liveConversation). A key named twice
// is read once. The ids are canonical uuids (see keyOf).
func findConversations(db *gorm.DB, keys []convKey) ([]*Conversation, error) {
	rows, err := jsonRows[Conversation](db, "find conversations", `SELECT c.* FROM conversations c
		JOIN (SELECT DISTINCT u, c FROM json_to_recordset(?::json) AS r(u uuid, c uuid)) r
		  ON c.id = r.c AND c.user_id = r.u
		WHERE c.deleted_at IS NULL`, keys)
	if err != nil {
		return nil, err
	}
	return matched(keys, rows, func(c *Conversation) convKey { return convKey{UserID: c.UserID, ID: c.ID} }), nil
}
