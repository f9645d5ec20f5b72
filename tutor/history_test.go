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
	got, _ := windowTurns(newest, 50) // all three fit; the oldest is an answer
	if len(got) != 2 || got[0].Role != models.RoleUser {
		t.Fatalf("got %+v", got)
	}
}

// TestHistoryLongTurnIsClipped: a short question, then one of 3,900 "ñ"
// with a long answer, then a follow-up about the first message. The model
// must still receive the first exchange; the long turns go in clipped
// (head and tail, a visible marker) and the receipt says which.
func TestHistoryLongTurnIsClipped(t *testing.T) {
	f := newFixture(t)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	long := map[string]string{
		"user":      "Start " + strings.Repeat("ñ", 3900) + " end",
		"assistant": "Begin " + strings.Repeat("x", 9000) + " finish",
	}
	f.seedTurns(u, c, 2, func(i int, role string) string {
		if i == 0 {
			return map[string]string{"user": "I am studying VLANs on Cisco switches.", "assistant": "Great, ask away."}[role]
		}
		return long[role]
	}, nil)
	m := f.ask(u, c, "What was I studying in my first message?")
	req := f.prov.last(t)
	if len(req.History) != 4 || req.History[0].Content != "I am studying VLANs on Cisco switches." {
		t.Fatalf("history: %d turns %+v; want the 4 turns starting with the first question", len(req.History), req.History)
	}
	total := 0
	if req.History[2].Content != long["user"] {
		t.Fatal("the long question fits once the longer answer is clipped, and should go whole")
	}
	if a := req.History[3].Content; !strings.Contains(a, "characters left out …]") ||
		!strings.HasPrefix(a, "Begin ") || !strings.HasSuffix(a, " finish") {
		t.Fatal("the long answer is not clipped to its head and tail with a marker")
	}
	for _, h := range req.History {
		total += TurnTokens(h)
	}
	if total > DefaultHistoryTokens {
		t.Fatalf("history takes %d tokens, over the budget of %d", total, DefaultHistoryTokens)
	}
	r := ParseReceipt(m.Metadata)
	if r.TurnsSent != 4 || len(r.Clipped) != 1 || r.Clipped[0].Turn != 3 || r.Clipped[0].Left == 0 {
		t.Fatalf("receipt: sent %d clipped %+v; want 4 sent, turn 3 clipped", r.TurnsSent, r.Clipped)
	}
}

// TestWindowTurns: the newest exchange always goes in, earlier turns as
// many as fit, an over-long one clipped rather than ending the memory;
// tokens count characters, not bytes.
func TestWindowTurns(t *testing.T) {
	turn := func(role string, n int, r string) models.Message {
		return models.Message{Role: role, Content: strings.Repeat(r, n)}
	}
	tests := []struct {
		name    string
		newest  []models.Message // newest first
		budget  int
		sent    int
		clipped []int // indexes among the sent turns, oldest first
	}{
		{"all fit", []models.Message{turn("assistant", 40, "a"), turn("user", 40, "u")}, 100, 2, nil},
		{"characters, not bytes", []models.Message{turn("assistant", 300, "ñ"), turn("user", 300, "ñ")}, 170, 2, nil},
		{"newest exchange too long: clipped, never dropped",
			[]models.Message{turn("assistant", 4000, "a"), turn("user", 4000, "u")}, 300, 2, []int{0, 1}},
		{"long newest exchange leaves room for the earlier one",
			[]models.Message{turn("assistant", 4000, "a"), turn("user", 4000, "u"), turn("assistant", 40, "b"), turn("user", 40, "v")},
			600, 4, []int{2, 3}},
		{"an over-long earlier turn is clipped, older ones still go in",
			[]models.Message{turn("assistant", 40, "a"), turn("user", 40, "u"), turn("assistant", 4000, "b"),
				turn("user", 40, "v"), turn("assistant", 40, "c"), turn("user", 40, "w")}, 400, 6, []int{3}},
		{"the budget ends the memory at a whole exchange", func() []models.Message {
			var ms []models.Message
			for range 5 {
				ms = append(ms, turn("assistant", 40, "a"), turn("user", 40, "u"))
			}
			return ms
		}(), 100, 6, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, clipped := windowTurns(tt.newest, tt.budget)
			if len(got) != tt.sent {
				t.Fatalf("sent %d turns, want %d", len(got), tt.sent)
			}
			used := 0
			for _, g := range got {
				used += TurnTokens(g)
			}
			if used > tt.budget {
				t.Fatalf("%d tokens over the budget %d", used, tt.budget)
			}
			var idx []int
			for _, c := range clipped {
				idx = append(idx, c.Turn)
			}
			if fmt.Sprint(idx) != fmt.Sprint(tt.clipped) {
				t.Fatalf("clipped %v, want %v", idx, tt.clipped)
			}
		})
	}
}
