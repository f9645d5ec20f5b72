package models

import (
	"testing"

	"github.com/google/uuid"
)

// The memory of threads stays bounded however many a process sees, and
// keeps the one it saw last.
func TestRecentIsBounded(t *testing.T) {
	var r recent
	user := uuid.NewString()
	var last string
	for range recentMax + 50 {
		last = uuid.NewString()
		r.put(Conversation{ID: last, UserID: user})
	}
	if n := len(r.m); n > recentMax {
		t.Errorf("%d threads remembered, at most %d", n, recentMax)
	}
	if _, ok := r.m[convKey{UserID: user, ID: last}]; !ok {
		t.Errorf("the thread seen last is not remembered")
	}
	r.put(Conversation{ID: "not-a-uuid", UserID: user})
	if n := len(r.m); n > recentMax {
		t.Errorf("%d threads remembered after a bad id", n)
	}
}
