package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/internal/webtest"
	"aula/tutor"
)

// Marks of the tutor's system prompt (tutor/prompt.go).
const (
	guardMark    = "Guide only: the student has a knowledge check on this lesson open"
	explainMark  = "Style: give a clear, complete answer"
	fullMark     = "now give the full worked answer"
	lessonPrompt = "You are aula's tutor for the lesson below."
)

// lessonPromptAfter asks q in the lesson panel of go-functions-errors
// without JavaScript (the first time it opens the thread) and returns
// the system prompt the model was sent for it.
func lessonPromptAfter(t *testing.T, srv *fakellm.Server, c *webtest.Client, lessonID, q string) string {
	t.Helper()
	before := len(srv.Requests())
	p := c.Post("/chat", url.Values{"_csrf": {c.Get("/learn").CSRF()}, "mode": {"lesson"}, "lesson_id": {lessonID},
		"path": {"go-basics"}, "content": {q}})
	if p.Status != http.StatusOK {
		t.Fatalf("ask %q: %d at %s", q, p.Status, p.URL)
	}
	reqs := srv.Requests()
	for i := len(reqs) - 1; i >= before; i-- {
		if strings.Contains(reqs[i].System, lessonPrompt) {
			return reqs[i].System
		}
	}
	t.Fatalf("no tutor request for %q among %d", q, len(reqs)-before)
	return ""
}

// "Guide only during checks", proven on the prompt the provider gets
// (a fake OpenAI server): while a member has a check open on a lesson,
// that lesson's tutor is told to guide only and not to give the check's
// questions' answers, even when the member asks for the answer and has
// switched the thread to explain; other lessons, other organizations'
// members and FREE students are not guarded, and the member's tutor
// explains again once the check is finished.
func TestOrgPolicyGuidesOnlyWhileACheckIsOpen(t *testing.T) {
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: []string{"What", " does", " the", " section", " say?"}})
	s := apptest.New(t, func(c *tutor.Config) {
		c.Credentials = tutor.Credentials{OpenAIKey: "k", OpenAIBaseURL: srv.URL}
	})
	if err := s.DB.Exec(`UPDATE ai_routes SET provider = 'openai', model = 'tutor-1' WHERE use_case = 'tutor_chat'`).Error; err != nil {
		t.Fatal(err)
	}
	policyOrgs(t, s)
	setPolicy(t, s.SignIn(t, "a@example.com", orgPass), map[string]string{"teaching_style": "explain", "guide_during_checks": "on", "help_mode": "on"})
	clients := map[string]*webtest.Client{}
	checks := map[string]string{}
	for _, who := range []string{"ma", "mb", "free"} {
		c := s.SignIn(t, who+"@example.com", orgPass)
		p := c.Post("/lessons/go-functions-errors/check", url.Values{"_csrf": {c.Get(checkLesson).CSRF()}, "anchor": {"multiple-return-values"}})
		clients[who], checks[who] = c, checkID(t, p)
	}
	var question string
	s.DB.Raw(`SELECT question FROM check_items WHERE conversation_id = ? ORDER BY position LIMIT 1`, checks["ma"]).Scan(&question)
	if question == "" {
		t.Fatal("the member's check asked nothing")
	}

	ma := clients["ma"]
	sys := lessonPromptAfter(t, srv, ma, "go-functions-errors", "Just tell me the answer to the check")
	if !strings.Contains(sys, guardMark) || !strings.Contains(sys, strings.Join(strings.Fields(question), " ")) ||
		strings.Contains(sys, explainMark) || strings.Contains(sys, fullMark) {
		t.Fatalf("the member's prompt while the check is open:\n%s", sys)
	}
	// The member's own switch to explain does not lift it, nor asking
	// again and again for the answer.
	cid := newestThread(t, s, userID(t, s, "ma@example.com"))
	if p := ma.Post("/chat/"+cid+"/style", url.Values{"_csrf": {ma.Get("/learn").CSRF()}, "style": {"explain"}}); p.Status != http.StatusOK || styleOf(t, s, cid) != "explain" {
		t.Fatalf("switch to explain: %d", p.Status)
	}
	for _, q := range []string{"Give me the full answer", "I give up, show me the solution", "dame la respuesta completa"} {
		sys = lessonPromptAfter(t, srv, ma, "go-functions-errors", q)
		if !strings.Contains(sys, guardMark) || strings.Contains(sys, explainMark) || strings.Contains(sys, fullMark) {
			t.Fatalf("after the switch to explain, %q:\n%s", q, sys)
		}
	}
	var receipt string
	s.DB.Raw(`SELECT metadata::text FROM messages WHERE conversation_id = ? AND role = 'assistant' ORDER BY seq DESC LIMIT 1`, cid).Scan(&receipt)
	if !strings.Contains(receipt, `"checkOpen": true`) || !strings.Contains(receipt, `"style": "guide"`) {
		t.Errorf("the answer's receipt does not say it only guided: %s", receipt)
	}

	// Not guarded: another lesson, another organization, a FREE student.
	if sys = lessonPromptAfter(t, srv, ma, "go-variables-types", "What is a variable?"); strings.Contains(sys, "Guide only") || !strings.Contains(sys, explainMark) {
		t.Errorf("another lesson of the member is guarded:\n%s", sys)
	}
	for _, who := range []string{"mb", "free"} {
		if sys = lessonPromptAfter(t, srv, clients[who], "go-functions-errors", "Just tell me the answer to the check"); strings.Contains(sys, "Guide only") {
			t.Errorf("%s is guarded:\n%s", who, sys)
		}
	}

	// The check finished, the member's tutor explains again.
	finishCheck(t, s, ma, checks["ma"])
	if sys = lessonPromptAfter(t, srv, ma, "go-functions-errors", "Just tell me the answer"); strings.Contains(sys, "Guide only") || !strings.Contains(sys, explainMark) {
		t.Errorf("after the check, the member's prompt:\n%s", sys)
	}
}

// finishCheck answers check cid's questions until it ends.
func finishCheck(t *testing.T, s *apptest.Server, c *webtest.Client, cid string) {
	t.Helper()
	p := c.Get("/checks/" + cid)
	for i := 0; p.Doc.Find("#check-form").Length() == 1; i++ {
		if i > 5 {
			t.Fatal("the check never ends")
		}
		p = c.Submit(p, "#check-form", map[string]string{"answer": expected(t, s, cid)})
	}
	if apptest.Count(t, s, `SELECT count(*) FROM checks WHERE conversation_id = ? AND finished_at IS NOT NULL`, cid) != 1 {
		t.Fatal("the check is not finished")
	}
}
