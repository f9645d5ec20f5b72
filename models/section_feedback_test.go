package models_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"gorm.io/gorm"

	"aula/internal/pgtest"
	"aula/models"
)

// feedbackWorld writes the traces students leave on lesson vl: answers
// citing a section (with a question before them and maybe a 👎) and
// graded check answers.
type feedbackWorld struct {
	t  *testing.T
	db *pgtest.DB
}

// answer stores a question and the tutor's answer citing anchor (cited
// or only retrieved), rated down for reason when reason is not "".
func (w feedbackWorld) answer(user, mode, anchor, question, reason, comment string, cited bool) {
	w.t.Helper()
	var conv string
	if err := w.db.Raw(`INSERT INTO conversations (user_id, mode, lesson_id, next_seq) VALUES (?, ?, 'vl', 2) RETURNING id`,
		user, mode).Row().Scan(&conv); err != nil {
		w.t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{"citations": []map[string]any{
		{"kind": "lesson", "lessonId": "vl", "anchor": anchor, "heading": anchor, "cited": cited},
		{"kind": "lesson", "lessonId": "other", "anchor": anchor, "cited": true},
	}})
	w.exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content) VALUES (?, ?, 0, 'user', ?)`, conv, user, question)
	w.exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, metadata) VALUES (?, ?, 1, 'assistant', 'An answer.', ?)`,
		conv, user, string(meta))
	if reason != "" {
		w.exec(`UPDATE messages SET rating = 'down', rating_reason = ?, rating_comment = ?, rated_at = now()
			WHERE conversation_id = ? AND role = 'assistant'`, reason, comment, conv)
	}
}

// graded stores a check answer on anchor, graded verdict, about the
// section text whose hash is hash.
func (w feedbackWorld) graded(user, anchor, hash, verdict, answer string) {
	w.t.Helper()
	var conv string
	if err := w.db.Raw(`INSERT INTO conversations (user_id, mode, lesson_id) VALUES (?, 'check', 'vl') RETURNING id`,
		user).Row().Scan(&conv); err != nil {
		w.t.Fatal(err)
	}
	w.exec(`INSERT INTO checks (conversation_id, user_id) VALUES (?, ?)`, conv, user)
	w.exec(`INSERT INTO check_items (conversation_id, user_id, position, lesson_id, anchor, section_hash, kind, question, answer, verdict, attempts, graded_at)
		VALUES (?, ?, 1, 'vl', ?, ?, 'blank', 'Q', ?, ?, 1, clock_timestamp())`, conv, user, anchor, hash, answer, verdict)
}

func (w feedbackWorld) exec(q string, args ...any) {
	w.t.Helper()
	if err := w.db.Exec(q, args...).Error; err != nil {
		w.t.Fatal(err)
	}
}

// countingStatements counts the statements db runs from now on.
func countingStatements(t *testing.T, db *gorm.DB) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	inc := func(*gorm.DB) { n.Add(1) }
	if err := db.Callback().Raw().After("gorm:raw").Register("feedback:raw", inc); err != nil {
		t.Fatal(err)
	}
	if err := db.Callback().Query().After("gorm:query").Register("feedback:query", inc); err != nil {
		t.Fatal(err)
	}
	if err := db.Callback().Row().After("gorm:row").Register("feedback:row", inc); err != nil {
		t.Fatal(err)
	}
	return &n
}

const feedbackBody = "Intro to VLANs.\n\n## Tags\n\nA tag marks each frame with a `VLAN ID` of 12 bits.\n\n## Trunks\n\nA trunk carries frames of many VLANs on one link.\n"

// Ratings, check results and questions on a section appear beside that
// section; after it is edited and republished its figures restart,
// while the section left untouched keeps its own.
func TestSectionFeedbackRestartsAfterAnEdit(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	c := models.NewContent(db.DB)
	importedLesson(t, c, feedbackBody)
	secs := sectionsOf(t, db)
	w := feedbackWorld{t: t, db: db}
	ann, bob, cy := newUser(t, db, models.PlanPro), newUser(t, db, models.PlanPro), newUser(t, db, models.PlanPro)

	w.answer(ann, models.ModeLesson, "tags", "What is a tag?", "lesson_unclear", "Which bits?", true)
	w.answer(bob, models.ModeTutor, "tags", "  what is a TAG  ", "answer_wrong", "", true)
	w.answer(cy, models.ModeLesson, "tags", "How long is a VLAN ID?", "other", "Too short", true)
	w.answer(cy, models.ModeLesson, "tags", "Only retrieved", "lesson_unclear", "not cited", false)
	w.answer(cy, models.ModeCheck, "tags", "my check answer", "", "", true)
	w.answer(ann, models.ModeLesson, "trunks", "What is a trunk?", "lesson_unclear", "", true)
	w.graded(ann, "tags", secs["tags"].Hash, models.VerdictNotYet, "8 bits")
	w.graded(ann, "tags", secs["tags"].Hash, models.VerdictCorrect, "12")
	w.graded(bob, "tags", secs["tags"].Hash, models.VerdictNotYet, "8 Bits.")
	w.graded(cy, "tags", secs["tags"].Hash, models.VerdictNotYet, "16")
	w.graded(cy, "tags", "an-earlier-text", models.VerdictNotYet, "old")
	w.graded(bob, "trunks", secs["trunks"].Hash, models.VerdictCorrect, "")

	f, err := c.SectionFeedback(ctx, "vl")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sections) != 3 || f.Sections[1].Anchor != "tags" || f.Sections[2].Anchor != "trunks" {
		t.Fatalf("sections = %+v; want the intro, tags, trunks", f.Sections)
	}
	if !f.Sections[0].Empty() {
		t.Errorf("the intro has feedback: %+v", f.Sections[0])
	}
	tags := f.Of("tags")
	if tags.Down != 3 || tags.Unclear != 1 || tags.Wrong != 1 || tags.Other != 1 {
		t.Errorf("tags 👎 = %d (unclear %d, wrong %d, other %d); want 3 (1, 1, 1)", tags.Down, tags.Unclear, tags.Wrong, tags.Other)
	}
	if len(tags.Comments) != 2 || tags.Comments[0].Comment != "Too short" || tags.Comments[1].Comment != "Which bits?" {
		t.Errorf("tags comments = %+v; want the two comments, newest first", tags.Comments)
	}
	if tags.Tried != 3 || tags.NotYet != 2 {
		t.Errorf("tags checks: %d tried, %d not yet; want 3 and 2 (ann's last answer was right)", tags.Tried, tags.NotYet)
	}
	if len(tags.WrongAnswers) != 2 || tags.WrongAnswers[0].N != 2 || tags.WrongAnswers[0].Text != "8 Bits." || tags.WrongAnswers[1].Text != "16" {
		t.Errorf("tags wrong answers = %+v; want “8 bits” twice, then 16", tags.WrongAnswers)
	}
	if len(tags.Questions) != 2 || tags.Questions[0].N != 2 || tags.Questions[1].Text != "How long is a VLAN ID?" {
		t.Errorf("tags questions = %+v; want “what is a tag” twice, then the VLAN ID one", tags.Questions)
	}
	trunks := f.Of("trunks")
	if trunks.Down != 1 || trunks.Tried != 1 || trunks.NotYet != 0 || len(trunks.Questions) != 1 {
		t.Errorf("trunks = %+v; want one 👎, one student tried and right, one question", trunks)
	}

	edit := models.LessonDraft{Title: "VLANs", Language: "en",
		ContentMD: "Intro to VLANs.\n\n## Tags\n\nA tag adds 4 bytes to each frame; its `VLAN ID` has 12 bits.\n\n## Trunks\n\nA trunk carries frames of many VLANs on one link.\n"}
	if _, err := c.SaveVersion(ctx, "vl", 1, edit, models.VersionSave, ""); err != nil {
		t.Fatal(err)
	}
	if err := c.Publish(ctx, "vl", 2, models.Actor{}); err != nil {
		t.Fatal(err)
	}
	f, err = c.SectionFeedback(ctx, "vl")
	if err != nil {
		t.Fatal(err)
	}
	if tags := f.Of("tags"); !tags.Empty() || len(tags.Comments) != 0 || len(tags.WrongAnswers) != 0 {
		t.Errorf("the edited section kept figures: %+v", tags)
	}
	if got := f.Of("trunks"); got.Down != trunks.Down || got.Tried != trunks.Tried || len(got.Questions) != 1 {
		t.Errorf("the untouched section lost figures: %+v; want %+v", got, trunks)
	}
	w.graded(bob, "tags", sectionsOf(t, db)["tags"].Hash, models.VerdictNotYet, "4")
	w.answer(bob, models.ModeLesson, "tags", "Why 4 bytes?", "lesson_unclear", "", true)
	if tags := mustFeedback(t, c).Of("tags"); tags.Tried != 1 || tags.NotYet != 1 || tags.Down != 1 || len(tags.Questions) != 1 {
		t.Errorf("the new text's figures = %+v; want one student not yet, one 👎, one question", tags)
	}
	if _, err := c.SectionFeedback(ctx, "nope"); err != models.ErrNotFound {
		t.Errorf("a missing lesson: %v; want ErrNotFound", err)
	}
}

func mustFeedback(t *testing.T, c *models.Content) *models.LessonFeedback {
	t.Helper()
	f, err := c.SectionFeedback(context.Background(), "vl")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The feedback of a lesson runs the same six statements whether its
// sections drew nothing or hundreds of ratings, answers and questions.
func TestSectionFeedbackRunsAFixedNumberOfStatements(t *testing.T) {
	db := pgtest.New(t)
	c := models.NewContent(db.DB)
	importedLesson(t, c, feedbackBody)
	n := countingStatements(t, db.DB)
	mustFeedback(t, c)
	small := n.Swap(0)
	w := feedbackWorld{t: t, db: db}
	secs := sectionsOf(t, db)
	for i := range 60 {
		u := newUser(t, db, models.PlanPro)
		for _, anchor := range []string{"tags", "trunks"} {
			w.answer(u, models.ModeLesson, anchor, fmt.Sprintf("Question %d?", i%7), "lesson_unclear", fmt.Sprintf("comment %d", i), true)
			w.graded(u, anchor, secs[anchor].Hash, models.VerdictNotYet, fmt.Sprintf("answer %d", i%5))
		}
	}
	n.Store(0)
	f := mustFeedback(t, c)
	large := n.Load()
	t.Logf("feedback runs %d statements with nothing, %d with 120 ratings and answers", small, large)
	if small != large || large != 6 {
		t.Errorf("statements: %d empty, %d full; want 6 both times", small, large)
	}
	if tags := f.Of("tags"); tags.Down != 60 || tags.Tried != 60 || len(tags.Comments) != models.FeedbackTop ||
		len(tags.Questions) != models.FeedbackTop || len(tags.WrongAnswers) != models.FeedbackTop {
		t.Errorf("tags = %d 👎, %d tried, %d comments, %d questions, %d wrong answers", tags.Down, tags.Tried,
			len(tags.Comments), len(tags.Questions), len(tags.WrongAnswers))
	}
}
