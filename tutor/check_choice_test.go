package tutor

import (
	"context"
	"strings"
	"testing"

	"aula/internal/fakellm"
	"aula/models"
)

// Listing every choice of a which-of-these, twice in a row, is two
// "not yet"s: the section is not mastered (its row says so) and no
// answer counts as correct; the right choice alone, twice, masters it.
func TestCheckEveryChoiceListedIsNotMastery(t *testing.T) {
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Respond: func(r fakellm.Request) []string {
		return []string{`{"kind": "choice", "question": "Which port carries one VLAN to an end device?", ` +
			`"choices": ["Security", "routed", "ARP", "access port"], "answer": "access port"}`}
	}})
	tests := []struct {
		answer       string
		wantMastered bool
	}{
		{"Security routed ARP access port", false},
		{"access port, Security, routed or ARP", false},
		{"access port", true},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			f, u := quizFixture(t, srv)
			ctx := context.Background()
			st, err := f.svc.StartCheck(ctx, u, CheckScope{LessonID: "vlan-basics", Anchor: "trunk-ports"})
			if err != nil {
				t.Fatal(err)
			}
			for range models.MasteryStreak {
				if cur := st.Current(); cur == nil || cur.Kind != models.KindChoice || !strings.Contains(cur.Question, "Which port") {
					t.Fatalf("question %+v", cur)
				}
				if st, err = f.svc.AnswerCheck(ctx, u, st.Check.ConversationID, tt.answer); err != nil {
					t.Fatal(err)
				}
			}
			var m models.SectionMastery
			if err := f.db.Raw(`SELECT * FROM section_mastery WHERE user_id = ? AND lesson_id = 'vlan-basics' AND anchor = 'trunk-ports'`,
				u.ID).Scan(&m).Error; err != nil || m.UserID == "" {
				t.Fatalf("no mastery row: %v", err)
			}
			if m.Mastered() != tt.wantMastered || (m.LastVerdict == models.VerdictCorrect) != tt.wantMastered {
				t.Fatalf("after %q twice: mastered %v, last verdict %q, streak %d", tt.answer, m.Mastered(), m.LastVerdict, m.Streak)
			}
		})
	}
}
