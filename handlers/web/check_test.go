package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

const checkLesson = "/learn/go-basics/go-functions-errors"

// expected is the answer the current question of check cid waits for.
func expected(t *testing.T, s *apptest.Server, cid string) string {
	t.Helper()
	var e string
	if err := s.DB.Raw(`SELECT expected FROM check_items WHERE conversation_id = ? AND verdict IS NULL ORDER BY position LIMIT 1`, cid).
		Row().Scan(&e); err != nil {
		t.Fatalf("current question of %s: %v", cid, err)
	}
	return e
}

// checkID is the check a page shows.
func checkID(t *testing.T, p *webtest.Page) string {
	t.Helper()
	action := p.Doc.Find("#check-form").AttrOr("action", p.Doc.Find("#check").AttrOr("data-check", ""))
	id := strings.TrimSuffix(strings.TrimPrefix(action, "/checks/"), "/answer")
	if id == "" || p.Doc.Find("#check").Length() != 1 {
		t.Fatalf("no check on %s (status %d):\n%s", p.URL, p.Status, p.Body)
	}
	return id
}

// A whole check without JavaScript, from the lesson's panel: every step a
// form post answered by a redirect back to the panel; one question counted.
func TestCheckWithoutJavaScriptInPanel(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	lesson := c.Get(checkLesson)
	if n := lesson.Doc.Find(".prose form.section-check").Length(); n < 3 {
		t.Fatalf("%d section buttons beside the headings", n)
	}
	p := c.Submit(lesson, ".check-offer form", nil)
	if p.URL.Path != checkLesson || p.URL.Query().Get("session") == "" || p.Doc.Find("details#tutor[open] #check-question").Length() != 1 {
		t.Fatalf("starting led to %s:\n%s", p.URL, p.Text("#tutor"))
	}
	cid := checkID(t, p)
	for i := 1; p.Doc.Find("#check-form").Length() == 1; i++ {
		if got := p.Text("#check-progress"); !strings.Contains(got, "Question") {
			t.Fatalf("progress %q", got)
		}
		p = c.Submit(p, "#check-form", map[string]string{"answer": expected(t, s, cid)})
		if p.Status != http.StatusOK || p.URL.Path != checkLesson || !strings.Contains(p.Text("#check-last"), "Correct") {
			t.Fatalf("answer %d: %d %s: %q", i, p.Status, p.URL, p.Text("#check-last"))
		}
		if i > models.MaxCheckItems {
			t.Fatal("the check never ends")
		}
	}
	if got := p.Text("#check-score"); !strings.HasPrefix(got, "5 of 5 correct") {
		t.Fatalf("summary %q", got)
	}
	if n := apptest.Count(t, s, `SELECT questions FROM plan_usage WHERE user_id = ?`, u.ID); n != 1 {
		t.Fatalf("a check counted %d questions", n)
	}
	late := c.Post("/checks/"+cid+"/answer", url.Values{"_csrf": {p.CSRF()}, "answer": {"x"}})
	if late.Status != http.StatusConflict || !strings.Contains(late.Body, "the check has ended") {
		t.Fatalf("an answer after the end: status %d", late.Status)
	}
	drawer := c.Get(checkLesson + "?tutor=open&history=open")
	if drawer.Doc.Find("#history-body #c-"+cid).Length() != 1 {
		t.Fatalf("the check is not in the lesson's sessions drawer:\n%s", drawer.Text("#history-body"))
	}
	if chat := c.Get("/chat"); chat.Doc.Find("#c-"+cid).Length() != 1 {
		t.Fatal("the check is not in /chat's thread list")
	}
	if resumed := c.Get("/chat/" + cid); resumed.Doc.Find("#threads #c-"+cid).Length() != 1 || resumed.Doc.Find("#check-summary").Length() != 1 {
		t.Fatalf("opening the thread led to %s", resumed.URL)
	}
}

// On its own page a check works the same, and resumes where it stopped.
func TestCheckPageWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	lesson := c.Get(checkLesson)
	p := c.Post("/lessons/go-functions-errors/check", url.Values{"_csrf": {lesson.CSRF()}, "anchor": {"multiple-return-values"}})
	cid := checkID(t, p)
	if p.URL.Path != "/checks/"+cid || !strings.Contains(p.Text("#check-title"), "Multiple return values") {
		t.Fatalf("a section check from elsewhere led to %s %q", p.URL, p.Text("#check-title"))
	}
	p = c.Submit(p, "#check-form", map[string]string{"answer": "certainly not this"})
	if p.URL.Path != "/checks/"+cid || !strings.Contains(p.Text("#check-last"), "Not yet") || p.Doc.Find(`#check-last a[href^="/learn/go-basics/go-functions-errors#"]`).Length() == 0 {
		t.Fatalf("feedback %q does not cite the section on the lesson page:\n%s", p.Text("#check-last"), p.Body)
	}
	if r := c.Post("/chat/"+cid+"/messages", url.Values{"_csrf": {lesson.CSRF()}, "content": {"a question"}}); r.Status != http.StatusNotFound {
		t.Fatalf("a question into a check: status %d", r.Status)
	}
	again := c.Get("/checks/" + cid)
	if again.Text("#check-progress") != p.Text("#check-progress") || !strings.Contains(again.Text("#check-last"), "Not yet") {
		t.Fatalf("resumed at %q, left at %q", again.Text("#check-progress"), p.Text("#check-progress"))
	}
}

// Someone else's check is a 404, read or answered; a start on an unknown
// lesson or section too.
func TestCheckOfAnotherUserIsNotFound(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	s.User(t, "eve@example.com", "a-long-password-1", models.PlanPro)
	ana := s.SignIn(t, "ana@example.com", "a-long-password-1")
	p := ana.Submit(ana.Get(checkLesson), ".check-offer form", nil)
	cid := checkID(t, p)
	eve := s.SignIn(t, "eve@example.com", "a-long-password-1")
	csrf := eve.Get(checkLesson).CSRF()
	tests := []struct {
		name string
		page func() *webtest.Page
	}{
		{"page", func() *webtest.Page { return eve.Get("/checks/" + cid) }},
		{"answer", func() *webtest.Page {
			return eve.Post("/checks/"+cid+"/answer", url.Values{"_csrf": {csrf}, "answer": {"x"}})
		}},
		{"thread", func() *webtest.Page { return eve.Get("/chat/" + cid) }},
		{"not a uuid", func() *webtest.Page { return eve.Get("/checks/nope") }},
		{"unknown lesson", func() *webtest.Page {
			return eve.Post("/lessons/nope/check", url.Values{"_csrf": {csrf}})
		}},
		{"unknown section", func() *webtest.Page {
			return eve.Post("/lessons/go-functions-errors/check", url.Values{"_csrf": {csrf}, "anchor": {"nope"}})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p := tt.page(); p.Status != http.StatusNotFound {
				t.Fatalf("status %d", p.Status)
			}
		})
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM check_items WHERE conversation_id = ? AND attempts > 0`, cid); n != 0 {
		t.Fatal("eve's answer was recorded")
	}
}

// Bad answers are clear 4xx pages in the student's language, the answer
// kept in the form; nothing is graded.
func TestCheckBadAnswers(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	c.Lang = "es"
	p := c.Submit(c.Get(checkLesson), ".check-offer form", nil)
	cid := checkID(t, p)
	csrf := p.CSRF()
	tests := []struct {
		name, answer string
		status       int
		says         string
	}{
		{"empty", "   ", http.StatusUnprocessableEntity, "Escribe primero una respuesta"},
		{"over-long", strings.Repeat("a", 1001), http.StatusUnprocessableEntity, "como máximo 1.000 caracteres (esta tiene 1001)"},
		{"NUL byte", "a\x00b", http.StatusBadRequest, "byte NUL"},
		{"invalid UTF-8", "a\xffb", http.StatusBadRequest, "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Post("/checks/"+cid+"/answer", url.Values{"_csrf": {csrf}, "answer": {tt.answer}, "path": {"go-basics"}})
			if r.Status != tt.status || !strings.Contains(r.Body, tt.says) {
				t.Fatalf("status %d, want %d saying %q:\n%s", r.Status, tt.status, tt.says, r.Body)
			}
		})
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM check_items WHERE conversation_id = ? AND attempts > 0`, cid); n != 0 {
		t.Fatal("a bad answer was recorded")
	}
}

// At the plan's limit a check is refused like a question.
func TestCheckAtQuotaIsRefused(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	lesson := c.Get(checkLesson)
	if err := s.DB.Exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 3)`,
		u.ID, models.Period(s.Tutor.Now())).Error; err != nil {
		t.Fatal(err)
	}
	p := c.Post("/lessons/go-functions-errors/check", url.Values{"_csrf": {lesson.CSRF()}, "path": {"go-basics"}})
	if p.Status != http.StatusTooManyRequests || !strings.Contains(p.Body, "3 questions this month") {
		t.Fatalf("status %d:\n%s", p.Status, p.Body)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM checks WHERE user_id = ?`, u.ID); n != 0 {
		t.Fatal("a check was created past the limit")
	}
}

// A section with nothing to ask offline (here made all code) is refused
// before anything is written: a 422 that says so in the student's
// language on the site, NOTHING_TO_ASK in the API; no check is created
// and no question counted.
func TestCheckNothingToAskIsRefused(t *testing.T) {
	s := apptest.New(t)
	if err := s.DB.Exec("UPDATE lesson_chunks SET text = ? WHERE lesson_id = 'go-functions-errors' AND anchor = 'errors-are-values'",
		"```go\nreturn nil, err\n```").Error; err != nil {
		t.Fatal(err)
	}
	u := s.User(t, "eva@example.com", "a-long-password-1", models.PlanPro)
	s.DB.Exec(`UPDATE users SET locale = 'es' WHERE id = ?`, u.ID)
	c := s.SignIn(t, "eva@example.com", "a-long-password-1")
	c.Lang = "es"
	lesson := c.Get(checkLesson)
	p := c.Post("/lessons/go-functions-errors/check", url.Values{"_csrf": {lesson.CSRF()}, "path": {"go-basics"}, "anchor": {"errors-are-values"}})
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "no hay nada sobre lo que el tutor pueda preguntar") {
		t.Fatalf("status %d:\n%s", p.Status, p.Body)
	}
	resp, body := apptest.APICall(t, s, apptest.APIToken(t, s, u.ID), http.MethodPost, "/checks",
		map[string]any{"lessonId": "go-functions-errors", "anchor": "errors-are-values"})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), `"NOTHING_TO_ASK"`) {
		t.Fatalf("API: %d %s", resp.StatusCode, body)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM checks WHERE user_id = ?`, u.ID); n != 0 {
		t.Fatalf("%d checks created with nothing to ask", n)
	}
	if n := apptest.Count(t, s, `SELECT coalesce(sum(questions), 0) FROM plan_usage WHERE user_id = ?`, u.ID); n != 0 {
		t.Fatalf("%d questions counted for refused checks", n)
	}
}

// A verdict the quiz model garbles is a 503 that says to send the answer
// again, the answer kept in the form; nothing is graded.
func TestCheckUngradedAnswer(t *testing.T) {
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Respond: func(r fakellm.Request) []string {
		if strings.Contains(r.System, "You grade") {
			return []string{"I would say it is mostly fine!"}
		}
		return []string{`{"kind": "open", "question": "Why return an error last?", "answer": "so callers check it"}`}
	}})
	s := apptest.New(t, func(c *tutor.Config) {
		c.Credentials = tutor.Credentials{OpenAIKey: "k", OpenAIBaseURL: srv.URL}
	})
	if err := s.DB.Exec(`UPDATE ai_routes SET provider = 'openai', model = 'quiz-1' WHERE use_case = 'quiz'`).Error; err != nil {
		t.Fatal(err)
	}
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	p := c.Submit(c.Get(checkLesson), ".check-offer form", nil)
	cid := checkID(t, p)
	if !strings.Contains(p.Text("#check-question"), "Why return an error last?") {
		t.Fatalf("question %q", p.Text("#check-question"))
	}
	r := c.Submit(p, "#check-form", map[string]string{"answer": "so the caller sees it"})
	if r.Status != http.StatusServiceUnavailable || !strings.Contains(r.Text("#check-error"), "couldn't grade") ||
		r.Doc.Find("#check-answer").AttrOr("value", "") != "so the caller sees it" {
		t.Fatalf("status %d error %q", r.Status, r.Text("#check-error"))
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM check_items WHERE conversation_id = ? AND attempts > 0`, cid); n != 0 {
		t.Fatal("a garbled verdict was recorded")
	}
}

// In the guide style a wrong answer first gets a hint and a second try at
// the same question, then its verdict.
func TestCheckGuideHintWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	lesson := c.Get(checkLesson)
	p := c.Post("/lessons/go-functions-errors/check", url.Values{"_csrf": {lesson.CSRF()}, "style": {"guide"}})
	checkID(t, p)
	question := p.Text("#check-question")
	p = c.Submit(p, "#check-form", map[string]string{"answer": "certainly not this"})
	if !strings.Contains(p.Text("#check-last .verdict-badge"), "Hint") || p.Text("#check-question") != question ||
		!strings.Contains(p.Text("#check-form"), "Second try") || p.Text("#check-progress") != "Question 1 of 5" {
		t.Fatalf("after a wrong first try: %q / %q / %q", p.Text("#check-last"), p.Text("#check-form"), p.Text("#check-progress"))
	}
	p = c.Submit(p, "#check-form", map[string]string{"answer": "still not this"})
	if p.Text("#check-last .verdict-badge") != "Not yet" || p.Text("#check-progress") != "Question 2 of 5" {
		t.Fatalf("after the second try: %q %q", p.Text("#check-last"), p.Text("#check-progress"))
	}
}

// A check's page and an answer to it run a fixed, small number of SQL
// statements, whatever the lesson's length or how far the check is.
func TestCheckStatementBudget(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	p := c.Submit(c.Get(checkLesson), ".check-offer form", nil)
	cid := checkID(t, p)
	const pageBudget, answerBudget = 12, 26
	for i := 1; i <= 3; i++ {
		before := s.SQLs.Load()
		page := c.Get("/checks/" + cid)
		read := s.SQLs.Load() - before
		before = s.SQLs.Load()
		c.Post("/checks/"+cid+"/answer", url.Values{"_csrf": {page.CSRF()}, "answer": {expected(t, s, cid)}})
		// The redirect's page read is counted apart from the answer.
		answer := s.SQLs.Load() - before - read
		figure(t, fmt.Sprintf("check.statements.q%d", i), fmt.Sprintf("page %d, answer %d", read, answer))
		if read > pageBudget || answer > answerBudget {
			t.Fatalf("question %d: the page ran %d statements (budget %d), the answer %d (budget %d)", i, read, pageBudget, answer, answerBudget)
		}
	}
}

// The same form sent twice (a double click, the browser's back button):
// the first answer is graded, the second is refused with 409 and the
// reason in the student's language, and it is not taken as the answer to
// the question asked next.
func TestCheckDoubleSubmitWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	c.Lang = "es"
	p := c.Submit(c.Get(checkLesson), ".check-offer form", nil)
	cid := checkID(t, p)
	form := url.Values{"_csrf": {p.CSRF()}, "answer": {"una respuesta"}, "question": {"1"}}
	if r := c.Post("/checks/"+cid+"/answer", form); r.Status != http.StatusOK || !strings.Contains(r.Text("#check-progress"), "2") {
		t.Fatalf("first answer: status %d, progress %q", r.Status, r.Text("#check-progress"))
	}
	r := c.Post("/checks/"+cid+"/answer", form)
	if r.Status != http.StatusConflict || !strings.Contains(r.Body, "Esa pregunta ya tenía respuesta") {
		t.Fatalf("the same answer again: status %d:\n%s", r.Status, r.Body)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM check_items WHERE conversation_id = ? AND attempts > 0`, cid); n != 1 {
		t.Errorf("%d questions answered, want 1", n)
	}
}
