package apptest

import (
	"testing"

	"aula/models"
)

// Count runs a count(*) query.
func Count(t testing.TB, s *Server, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := s.DB.Raw(query, args...).Scan(&n).Error; err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// Message reads one message row.
func Message(t testing.TB, s *Server, id string) models.Message {
	t.Helper()
	var m models.Message
	if err := s.DB.Raw(`SELECT * FROM messages WHERE id = ?`, id).Scan(&m).Error; err != nil || m.ID == "" {
		t.Fatalf("message %s: %v (found %q)", id, err, m.ID)
	}
	return m
}

// ThreadMessages is the thread's messages as stored, in seq order.
func ThreadMessages(t testing.TB, s *Server, cid string) []models.Message {
	t.Helper()
	var ms []models.Message
	if err := s.DB.Raw(`SELECT * FROM messages WHERE conversation_id = ? ORDER BY seq`, cid).Scan(&ms).Error; err != nil {
		t.Fatal(err)
	}
	return ms
}
