package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

// checkFx adds two sections to the fixture lesson l1-vlans.
func checkFx(t *testing.T) (*fx, *models.Checks) {
	t.Helper()
	db := pgtest.New(t)
	f := &fx{t: t, db: db}
	f.content()
	f.exec(`INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash) VALUES
		('l1-vlans', 1, 'What', 'what', 'A VLAN splits one switch into broadcast domains.', 'hw1'),
		('l1-vlans', 2, 'Tags', 'tags', 'Trunks carry 802.1Q tags.', 'ht1')`)
	return f, models.NewChecks(db.DB)
}

// A check is one question of the plan, its answers update the mastery and
// the totals in the grading transaction, and it is its owner's only.
func TestCheckLifecycle(t *testing.T) {
	f, checks := checkFx(t)
	ctx := context.Background()
	u, other := f.user(models.PlanFree), f.user(models.PlanFree)
	now := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	c, err := checks.Start(ctx, models.CheckStart{UserID: u, LessonID: "l1-vlans", Title: "Check: VLANs", Style: models.StyleGuide,
		Sections: []models.SectionRef{{LessonID: "l1-vlans", Anchor: "what"}, {LessonID: "l1-vlans", Anchor: "tags"}}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var used int
	f.db.Raw(`SELECT questions FROM plan_usage WHERE user_id = ?`, u).Row().Scan(&used)
	if used != 1 || c.Conversation.Mode != models.ModeCheck {
		t.Fatalf("used %d mode %q", used, c.Conversation.Mode)
	}
	it, err := checks.Ask(ctx, models.CheckItem{UserID: u, ConversationID: c.ConversationID, LessonID: "l1-vlans", Anchor: "tags",
		SectionHash: "ht1", Kind: models.KindChoice, Question: "Which tags?", Choices: models.TextList{`802.1Q "dot"`, "ISL"},
		Expected: "802.1Q"}, "Which tags?", nil, now)
	if err != nil || it.Position != 1 {
		t.Fatalf("ask: %+v %v", it, err)
	}
	grade := func(verdict string, finish bool) error {
		return checks.Grade(ctx, models.CheckGrade{UserID: u, ConversationID: c.ConversationID, ItemID: it.ID,
			Answer: "ISL", Verdict: verdict, Feedback: "fb", Finish: finish, Now: now})
	}
	if err := grade("", false); err != nil { // a hint: no verdict yet
		t.Fatal(err)
	}
	if m, _ := checks.Mastery(ctx, u, "l1-vlans"); len(m) != 0 {
		t.Fatalf("a hint wrote mastery %v", m)
	}
	if err := grade(models.VerdictNotYet, true); err != nil {
		t.Fatal(err)
	}
	if err := grade(models.VerdictCorrect, false); !errors.Is(err, models.ErrCheckGraded) {
		t.Fatalf("second grade: %v", err)
	}
	got, err := checks.Get(ctx, u, c.ConversationID)
	if err != nil || got.FinishedAt == nil || len(got.Items) != 1 || got.Items[0].Attempts != 2 ||
		*got.Items[0].Verdict != models.VerdictNotYet || len(got.Items[0].Choices) != 2 || got.Items[0].Choices[0] != `802.1Q "dot"` ||
		len(got.Sections) != 2 || got.Conversation.NextSeq != 5 {
		t.Fatalf("get: %+v %v", got, err)
	}
	m, _ := checks.Mastery(ctx, u, "l1-vlans")
	if mm := m["tags"]; mm.LastVerdict != models.VerdictNotYet || !mm.DueAt.Equal(now) {
		t.Fatalf("mastery %+v", m)
	}
	var answers, notYet int
	f.db.Raw(`SELECT answers, not_yet FROM section_check_totals WHERE lesson_id = 'l1-vlans' AND anchor = 'tags' AND section_hash = 'ht1'`).
		Row().Scan(&answers, &notYet)
	if answers != 1 || notYet != 1 {
		t.Fatalf("totals %d %d", answers, notYet)
	}
	f.db.Raw(`SELECT answers, not_yet FROM check_question_totals WHERE question = 'Which tags?'`).Row().Scan(&answers, &notYet)
	if answers != 1 || notYet != 1 {
		t.Fatalf("question totals %d %d", answers, notYet)
	}
	exp, err := models.NewUsers(f.db.DB).Export(ctx, u, now)
	if err != nil || len(exp.CheckAnswers) != 1 || exp.CheckAnswers[0].Answer != "ISL" || len(exp.CheckAnswers[0].Choices) != 2 ||
		len(exp.SectionMastery) != 1 || exp.SectionMastery[0].Anchor != "tags" {
		t.Fatalf("export: answers %+v mastery %+v (%v)", exp.CheckAnswers, exp.SectionMastery, err)
	}
	for _, id := range []string{other, "not-a-uuid"} {
		if _, err := checks.Get(ctx, id, c.ConversationID); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("user %s: %v", id, err)
		}
		if _, err := checks.Ask(ctx, models.CheckItem{UserID: id, ConversationID: c.ConversationID, Kind: models.KindOpen,
			LessonID: "l1-vlans"}, "q", nil, now); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("ask as %s: %v", id, err)
		}
	}
	if _, err := checks.Ask(ctx, models.CheckItem{UserID: u, ConversationID: c.ConversationID, Kind: models.KindOpen,
		LessonID: "l1-vlans", Anchor: "what"}, "q", nil, now); !errors.Is(err, models.ErrCheckFinished) {
		t.Fatalf("ask after finish: %v", err)
	}
}

// At the plan's limit a check is refused like a question, and nothing is created.
func TestCheckStartRefusedAtLimit(t *testing.T) {
	f, checks := checkFx(t)
	ctx := context.Background()
	u := f.user(models.PlanFree)
	now := time.Date(2026, 4, 6, 10, 0, 0, 0, time.UTC)
	f.exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 3)`, u, models.Period(now))
	_, err := checks.Start(ctx, models.CheckStart{UserID: u, LessonID: "l1-vlans", Title: "x",
		Sections: []models.SectionRef{{LessonID: "l1-vlans", Anchor: "what"}}, Now: now})
	if !errors.Is(err, models.ErrQuotaExceeded) {
		t.Fatalf("start at limit: %v", err)
	}
	var n int
	f.db.Raw(`SELECT count(*) FROM conversations WHERE user_id = ?`, u).Row().Scan(&n)
	if n != 0 {
		t.Fatalf("%d conversations created", n)
	}
}
