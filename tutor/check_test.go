package tutor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"aula/internal/fakellm"
	"aula/models"
)

// checkFixture is a service with the test lessons, and a student.
func checkFixture(t *testing.T, plan string, tweak ...func(*Config)) (*fixture, *models.User) {
	t.Helper()
	f := newFixture(t, tweak...)
	f.seedLessons(testLessons...)
	return f, &models.User{ID: f.user(plan)}
}

// answerRight answers the current question with its expected answer.
func answerRight(t *testing.T, f *fixture, u *models.User, st *CheckState) *CheckState {
	t.Helper()
	cur := st.Current()
	if cur == nil {
		t.Fatal("no current question")
	}
	st, err := f.svc.AnswerCheck(context.Background(), u, st.Check.ConversationID, cur.Expected)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// A whole offline check over a lesson: questions from its own sentences,
// graded by matching, mastery and totals written, one question counted.
func TestCheckOfflineWholeLesson(t *testing.T) {
	f, u := checkFixture(t, models.PlanFree)
	ctx := context.Background()
	st, err := f.svc.StartCheck(ctx, u, CheckScope{LessonID: "vlan-basics"})
	if err != nil {
		t.Fatal(err)
	}
	first := st.Current()
	if first == nil || first.Kind != models.KindBlank || !strings.Contains(first.Question, "_____") || st.Lang != "en" {
		t.Fatalf("first question %+v", first)
	}
	asked := 0
	for st.Current() != nil {
		asked++
		st = answerRight(t, f, u, st)
		if asked > models.MaxCheckItems {
			t.Fatal("the check never ends")
		}
	}
	c, p, n := st.Tally()
	if !st.Finished() || c != asked || p+n != 0 || f.used(u.ID) != 1 {
		t.Fatalf("finished %v tally %d/%d/%d of %d, used %d", st.Finished(), c, p, n, asked, f.used(u.ID))
	}
	kinds := map[string]bool{}
	for _, it := range st.Check.Items {
		kinds[it.Kind] = true
		if !strings.Contains(it.Feedback, "](#"+it.Anchor+")") {
			t.Fatalf("feedback %q does not cite its section", it.Feedback)
		}
	}
	if !kinds[models.KindChoice] {
		t.Fatalf("no which-of-these question among %v", kinds)
	}
	var mastery int
	f.scalar(&mastery, `SELECT count(*) FROM section_mastery WHERE user_id = ? AND last_verdict = 'correct'`, u.ID)
	if mastery == 0 {
		t.Fatal("no mastery written")
	}
	if _, err := f.svc.AnswerCheck(ctx, u, st.Check.ConversationID, "x"); !isRefusal(err, RefusedCheckFinished) {
		t.Fatalf("answer after the end: %v", err)
	}
	other := &models.User{ID: f.user(models.PlanPro)}
	if _, err := f.svc.Check(ctx, other.ID, st.Check.ConversationID); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("another user's check: %v", err)
	}
	if _, err := f.svc.AnswerCheck(ctx, other, st.Check.ConversationID, "x"); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("another user's answer: %v", err)
	}
}

func isRefusal(err error, reason Reason) bool {
	var r *Refusal
	return errors.As(err, &r) && r.Reason == reason
}

// A section check in the guide style: a wrong answer gets a hint and a
// second try before its verdict; the check is in the lesson's language.
func TestCheckGuideHintThenVerdict(t *testing.T) {
	f, u := checkFixture(t, models.PlanPro)
	ctx := context.Background()
	st, err := f.svc.StartCheck(ctx, u, CheckScope{LessonID: "vlan-fundamentos", Anchor: "puertos-troncales", Style: models.StyleGuide})
	if err != nil {
		t.Fatal(err)
	}
	if st.Lang != "es" || !strings.Contains(st.Current().Question, "Completa") || st.Check.Conversation.Title != "Comprobación: Puertos troncales" {
		t.Fatalf("lang %s question %q title %q", st.Lang, st.Current().Question, st.Check.Conversation.Title)
	}
	id := st.Current().ID
	st, err = f.svc.AnswerCheck(ctx, u, st.Check.ConversationID, "no lo sé")
	if err != nil {
		t.Fatal(err)
	}
	if cur := st.Current(); cur == nil || cur.ID != id || cur.Attempts != 1 || cur.Verdict != nil || !strings.Contains(cur.Feedback, "Pista") {
		t.Fatalf("after a wrong first try: %+v", cur)
	}
	st, err = f.svc.AnswerCheck(ctx, u, st.Check.ConversationID, "tampoco")
	if err != nil {
		t.Fatal(err)
	}
	if last := st.Last(); last.ID != id || last.Verdict == nil || *last.Verdict != models.VerdictNotYet || last.Attempts != 2 {
		t.Fatalf("second try: %+v", last)
	}
}

// Bad answers are refused before anything is read or written.
func TestCheckAnswerRefusals(t *testing.T) {
	f, u := checkFixture(t, models.PlanPro)
	ctx := context.Background()
	st, err := f.svc.StartCheck(ctx, u, CheckScope{LessonID: "vlan-basics"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		answer string
		reason Reason
	}{
		{"empty", "  \n", RefusedEmptyAnswer},
		{"only NUL bytes", "\x00\x00", RefusedEmptyAnswer},
		{"invalid UTF-8 only", "\xff\xfe", RefusedEmptyAnswer},
		{"over-long", strings.Repeat("a", MaxCheckAnswerChars+1), RefusedAnswerTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := f.svc.AnswerCheck(ctx, u, st.Check.ConversationID, tt.answer); !isRefusal(err, tt.reason) {
				t.Fatalf("got %v, want %s", err, tt.reason)
			}
		})
	}
	if _, err := f.svc.StartCheck(ctx, u, CheckScope{LessonID: "vlan-basics", Anchor: "nope"}); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("unknown section: %v", err)
	}
	if _, err := f.svc.StartCheck(ctx, u, CheckScope{LessonID: "nope"}); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("unknown lesson: %v", err)
	}
}

// At the plan's limit a check is refused with the quota refusal.
func TestCheckRefusedAtQuota(t *testing.T) {
	f, u := checkFixture(t, models.PlanFree)
	f.exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 3)`, u.ID, models.Period(f.now.Now()))
	_, err := f.svc.StartCheck(context.Background(), u, CheckScope{LessonID: "vlan-basics"})
	if !isRefusal(err, RefusedQuota) {
		t.Fatalf("got %v", err)
	}
}

// quizServer is a fake OpenAI server playing the quiz model: a question
// for a question prompt, verdict for a grading one.
func quizServer(t *testing.T, verdict string) *fakellm.Server {
	t.Helper()
	return fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Respond: func(r fakellm.Request) []string {
		if strings.Contains(r.System, "You grade") {
			return []string{verdict}
		}
		return []string{"Here is one:\n```json\n", `{"kind": "open", "question": "What does a trunk port tag each frame with?", `,
			`"choices": [], "answer": "its 802.1Q VLAN id"}`, "\n```"}
	}})
}

func quizFixture(t *testing.T, srv *fakellm.Server) (*fixture, *models.User) {
	t.Helper()
	f, u := checkFixture(t, models.PlanFree, func(c *Config) {
		c.NewProvider = nil
		c.Credentials = fakeCreds(fakellm.OpenAI, srv.URL)
	})
	f.exec(`UPDATE ai_routes SET provider = 'openai', model = 'quiz-1' WHERE use_case = 'quiz'`)
	return f, u
}

// Through the quiz route's model: the question and the verdict are read
// from JSON wrapped in prose and fences, and the grading prompt holds the
// section's text and no other section's.
func TestCheckThroughQuizModel(t *testing.T) {
	srv := quizServer(t, "Sure! {\"verdict\": \"Partly\", \"feedback\": \"Right idea, name the standard.\", \"hint\": \"h\"} Hope it helps.")
	f, u := quizFixture(t, srv)
	ctx := context.Background()
	st, err := f.svc.StartCheck(ctx, u, CheckScope{LessonID: "vlan-basics", Anchor: "trunk-ports"})
	if err != nil {
		t.Fatal(err)
	}
	cur := st.Current()
	if cur.Kind != models.KindOpen || !strings.Contains(cur.Question, "trunk port tag") || cur.Expected != "its 802.1Q VLAN id" {
		t.Fatalf("question %+v", cur)
	}
	st, err = f.svc.AnswerCheck(ctx, u, st.Check.ConversationID, "a VLAN id")
	if err != nil {
		t.Fatal(err)
	}
	last := st.Last()
	if last.Verdict == nil || *last.Verdict != models.VerdictPartly || !strings.HasPrefix(last.Feedback, "Right idea") ||
		!strings.Contains(last.Feedback, "[§ Trunk ports](#trunk-ports)") {
		t.Fatalf("graded %+v", last)
	}
	var grading fakellm.Request
	for _, r := range srv.Requests() {
		if strings.Contains(r.System, "You grade") {
			grading = r
		}
	}
	trunk, what := testLessons[0].chunks[2].text, testLessons[0].chunks[0].text
	if !strings.Contains(grading.System, trunk) || strings.Contains(grading.System, what) || grading.Model != "quiz-1" {
		t.Fatalf("grading prompt not grounded in the section alone:\n%s", grading.System)
	}
	if msgs := grading.Messages; len(msgs) != 1 || msgs[0].Content != "a VLAN id" {
		t.Fatalf("grading carries more than the answer: %+v", msgs)
	}
	if f.used(u.ID) != 1 {
		t.Fatalf("used %d", f.used(u.ID))
	}
}

// A verdict the model garbles records nothing: the student is told to
// send the answer again, and the question stays open.
func TestCheckMalformedVerdict(t *testing.T) {
	srv := quizServer(t, `{"verdict": "probably fine?", "feedback": "`)
	f, u := quizFixture(t, srv)
	ctx := context.Background()
	st, err := f.svc.StartCheck(ctx, u, CheckScope{LessonID: "vlan-basics", Anchor: "trunk-ports"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.AnswerCheck(ctx, u, st.Check.ConversationID, "tags"); !isRefusal(err, RefusedUngraded) || !errors.Is(err, ErrUngraded) {
		t.Fatalf("got %v", err)
	}
	st, err = f.svc.Check(ctx, u.ID, st.Check.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	var totals int
	f.scalar(&totals, `SELECT count(*) FROM section_check_totals`)
	if cur := st.Current(); cur == nil || cur.Attempts != 0 || totals != 0 {
		t.Fatalf("a garbled verdict was recorded: %+v, totals %d", cur, totals)
	}
}

// A question the model garbles is replaced by one from the section's text.
func TestCheckMalformedQuestionFallsBackOffline(t *testing.T) {
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: []string{"What a lovely section!"}})
	f, u := quizFixture(t, srv)
	st, err := f.svc.StartCheck(context.Background(), u, CheckScope{LessonID: "vlan-basics", Anchor: "trunk-ports"})
	if err != nil {
		t.Fatal(err)
	}
	if cur := st.Current(); cur == nil || cur.Kind != models.KindBlank || len(srv.Requests()) != 1 {
		t.Fatalf("question %+v after %d model calls", cur, len(srv.Requests()))
	}
}

// The clock the grades are stamped with is the service's.
func TestCheckUsesServiceClock(t *testing.T) {
	f, u := checkFixture(t, models.PlanPro)
	st, err := f.svc.StartCheck(context.Background(), u, CheckScope{LessonID: "subnetting", Anchor: "counting-hosts"})
	if err != nil {
		t.Fatal(err)
	}
	answerRight(t, f, u, st)
	var due time.Time
	f.scalar(&due, `SELECT due_at FROM section_mastery WHERE user_id = ?`, u.ID)
	if want := f.now.Now().AddDate(0, 0, 1); !due.Equal(want) {
		t.Fatalf("due %v, want %v", due, want)
	}
}
