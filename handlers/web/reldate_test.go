package web_test

import (
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

// The thread list and the history say how long ago a conversation was
// active ("2 h ago", "ayer"), with the absolute time on hover.
func TestThreadDatesAreRelative(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	s := apptest.New(t, func(c *tutor.Config) { c.Now = func() time.Time { return now } })
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	askPlain(t, c, cid, "What is a VLAN?")
	s.DB.Exec(`UPDATE conversations SET last_activity_at = ? WHERE id = ?`, now.Add(-2*time.Hour), cid)
	tm := c.Get("/chat").Doc.Find("#c-" + cid + " time")
	if tm.Text() != "2 h ago" || !strings.Contains(tm.AttrOr("title", ""), "December 1, 2026 13:00 UTC") {
		t.Errorf("thread list date %q title %q", tm.Text(), tm.AttrOr("title", ""))
	}
	s.DB.Exec(`UPDATE users SET locale = 'es' WHERE id = ?`, u.ID)
	s.DB.Exec(`UPDATE conversations SET last_activity_at = ? WHERE id = ?`, now.Add(-20*time.Hour), cid)
	if got := c.Get("/chat").Doc.Find("#c-" + cid + " time").Text(); got != "ayer" {
		t.Errorf("thread list date in Spanish %q, want ayer", got)
	}
}
