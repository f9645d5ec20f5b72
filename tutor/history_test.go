package tutor

import (
	"fmt"
	"strings"
	"testing"

	"aula/models"
)

// seedTurns writes n question/answer pairs into a conversation; status
// gives the answer status of chosen pairs (default complete;
// "cancelled-empty" is a cancelled answer with no text).
func (f *fixture) seedTurns(userID, convID string, n int, content func(i int, role string) string, status map[int]string) {
	f.t.Helper()
	for i := range n {
		st := models.StatusComplete
		if s, ok := status[i]; ok {
			st = s
		}
		answer := content(i, "assistant")
		switch st {
		case models.StatusFailed, models.StatusStreaming:
			answer = ""
		case "cancelled-empty":
			st, answer = models.StatusCancelled, ""
		}
		f.exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content) VALUES (?, ?, ?, 'user', ?)`,
			convID, userID, 2*i, content(i, "user"))
		f.exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status) VALUES (?, ?, ?, 'assistant', ?, ?)`,
			convID, userID, 2*i+1, answer, st)
	}
	f.exec(`UPDATE conversations SET next_seq = ? WHERE id = ?`, 2*n, convID)
}

func label(prefix string) func(int, string) string {
	return func(i int, role string) string { return fmt.Sprintf("%s-%s-%d", prefix, role, i) }
}

func TestHistoryWindow(t *testing.T) {
	f := newFixture(t)
	u := f.user(models.PlanPro)
	a := f.conv(u, models.ModeTutor, "", "")
	b := f.conv(u, models.ModeTutor, "", "")
	f.seedTurns(u, a, 30, label("A"), map[int]string{
		25: models.StatusFailed, 26: "cancelled-empty", 27: models.StatusStreaming, 28: models.StatusCancelled,
	})
	f.seedTurns(u, b, 2, label("B"), nil)

	tests := []struct {
		name      string
		conv      string
		first     string // first turn sent
		count     int
		omitted   int
		forbidden []string
	}{
		// 30 pairs, 3 not eligible (failed, cancelled before any text,
		// streaming): 54 turns, the newest 24 sent. The cancelled answer
		// with text (pair 28) is kept.
		{"24-message window, failed turns left out", a, "A-user-15", 24, 30,
			[]string{"A-user-25", "A-user-26", "A-user-27", "A-user-14", "B-user-0"}},
		{"other conversation never leaks in", b, "B-user-0", 4, 0, []string{"A-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := f.ask(u, tt.conv, "the current question")
			req := f.prov.last(t)
			if len(req.History) != tt.count || req.History[0].Content != tt.first || req.History[0].Role != models.RoleUser {
				t.Fatalf("history: %d turns starting %+v; want %d starting %s", len(req.History), req.History[0], tt.count, tt.first)
			}
			all := req.System
			for _, h := range req.History {
				all += "\n" + h.Content
				if h.Content == "the current question" {
					t.Fatal("the current question is duplicated in history")
				}
			}
			if tt.conv == a && !strings.Contains(all, "A-assistant-28") {
				t.Fatal("a cancelled answer with text should be kept")
			}
			for _, s := range tt.forbidden {
				if strings.Contains(all, s) {
					t.Fatalf("%q reached the prompt", s)
				}
			}
			r := ParseReceipt(m.Metadata)
			if r.TurnsSent != tt.count || r.TurnsOmitted != tt.omitted {
				t.Fatalf("receipt turns sent %d omitted %d, want %d %d", r.TurnsSent, r.TurnsOmitted, tt.count, tt.omitted)
			}
		})
	}
}

func TestHistoryTokenBudget(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.HistoryTokens = 100 })
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	// Each turn is 100 characters, about 25 tokens: four fit in 100.
	f.seedTurns(u, c, 10, func(i int, role string) string {
		s := fmt.Sprintf("C-%s-%d ", role, i)
		return s + strings.Repeat("x", 100-len(s))
	}, nil)
	m := f.ask(u, c, "next")
	req := f.prov.last(t)
	if len(req.History) != 4 || !strings.HasPrefix(req.History[0].Content, "C-user-8 ") ||
		!strings.HasPrefix(req.History[3].Content, "C-assistant-9 ") {
		t.Fatalf("budgeted history: %d turns", len(req.History))
	}
	if r := ParseReceipt(m.Metadata); r.TurnsOmitted != 16 {
		t.Fatalf("omitted %d, want 16", r.TurnsOmitted)
	}
}

func TestWindowTurnsStartsWithUser(t *testing.T) {
	newest := []models.Message{
		{Role: models.RoleAssistant, Content: strings.Repeat("a", 40)},
		{Role: models.RoleUser, Content: strings.Repeat("u", 40)},
		{Role: models.RoleAssistant, Content: strings.Repeat("b", 40)},
	}
	got := windowTurns(newest, 30) // all three fit; the oldest is an answer
	if len(got) != 2 || got[0].Role != models.RoleUser {
		t.Fatalf("got %+v", got)
	}
}
