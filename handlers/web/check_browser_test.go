package web_test

// Knowledge checks in a real browser: in the lesson's panel with HTMX,
// without JavaScript, and through the fake OpenAI server.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/internal/fakellm"
	"aula/models"
	"aula/tutor"
)

// browserCheckID is the check the page shows, from its answer form.
func browserCheckID(b *browser.Browser) string {
	b.T.Helper()
	action, ok := b.Attr("#check-form", "action")
	if !ok {
		b.Fatalf("no check form on the page")
	}
	return strings.TrimSuffix(strings.TrimPrefix(action, "/checks/"), "/answer")
}

// answerInBrowser answers the check's current question, a choice by its
// radio button and a blank or open question by typing, and submits.
func answerInBrowser(b *browser.Browser, answer string) {
	b.T.Helper()
	if b.Has("#check-form input[type=radio]") {
		b.Click(fmt.Sprintf(`#check-form input[type=radio][value=%q]`, answer))
	} else {
		eval[bool](b, `(document.getElementById('check-answer').value = '') === ''`)
		if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#check-answer"), answer)); err != nil {
			b.Fatalf("type the answer: %v", err)
		}
	}
	if b.NoJS {
		b.ClickAndWait("#check-submit")
		return
	}
	// The check box is swapped whole: wait for the form to be a new one.
	eval[bool](b, `(document.getElementById('check-form').dataset.old = '1') === '1'`)
	b.Click("#check-submit")
	waitFor(b, "the feedback", `!!document.getElementById('check-last') && !document.getElementById('check-pending') &&
		document.getElementById('check-form')?.dataset.old !== '1'`)
	waitCheckReady(b)
}

// waitCheckReady waits until HTMX has taken the check's form over: before
// that, a click would post it plainly.
func waitCheckReady(b *browser.Browser) {
	b.T.Helper()
	if b.NoJS {
		return
	}
	waitFor(b, "the check's form ready", `(f => !document.querySelector('.htmx-request, .htmx-settling') &&
		(!f || !!(f['htmx-internal-data'] || {}).initHash))(document.getElementById('check-form'))`)
}

// runCheck answers every question of the check on the page, the first
// one wrongly, and returns its id; it fails on a verdict other than the
// expected one.
func runCheck(t *testing.T, s *apptest.Server, b *browser.Browser, path string) string {
	t.Helper()
	b.WaitVisible("#check-question")
	waitCheckReady(b)
	cid := browserCheckID(b)
	for i := 1; b.Has("#check-form"); i++ {
		answer, want := expected(t, s, cid), "Correct"
		if i == 1 {
			answer, want = "surely something else", "Not yet"
			if b.Has("#check-form input[type=radio]") {
				answer = b.Doc().Find("#check-form input[type=radio]").FilterFunction(func(_ int, r *goquery.Selection) bool {
					return r.AttrOr("value", "") != expected(t, s, cid)
				}).First().AttrOr("value", "")
			}
		}
		answerInBrowser(b, answer)
		if got := b.Text("#check-last .verdict-badge"); got != want || b.Path() != path {
			b.Fatalf("answer %d (%q): verdict %q at %s, want %q", i, answer, got, b.Path(), want)
		}
		if i > models.MaxCheckItems {
			b.Fatalf("the check never ends")
		}
	}
	if got := b.Text("#check-score"); !strings.HasPrefix(got, "4 of 5 correct") {
		b.Fatalf("summary %q", got)
	}
	return cid
}

// A whole check in the lesson's panel with JavaScript: HTMX swaps each
// step in place (the page never changes); a section's own button beside
// its heading starts a check of that section in the panel.
func TestCheckBrowserInPanel(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + checkLesson + "?tutor=open")
	b.WaitVisible("#check-start")
	b.Click("#check-start")
	runCheck(t, s, b, checkLesson)
	b.Click(`.prose form.section-check input[value="multiple-return-values"] ~ button`)
	waitFor(b, "the section's check", `(document.getElementById('check-title')?.textContent ?? '').includes('Multiple return values')`)
	if !b.Has("details#tutor[open] #check-question") || b.Path() != checkLesson {
		b.Fatalf("the section's check is not open in the panel")
	}
	if n := apptest.Count(t, s, `SELECT questions FROM plan_usage WHERE user_id = ?`, u.ID); n != 2 {
		t.Fatalf("two checks counted %d questions", n)
	}
}

// The same check in a browser without JavaScript: every step a form post
// and a redirect back to the panel.
func TestCheckBrowserWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := browser.New(t, browser.WithoutJavaScript())
	b.Navigate(s.URL + "/login")
	b.Fill("#email", "ana@example.com")
	b.Fill("#password", "a-long-password-1")
	b.ClickAndWait("#login-submit")
	b.Navigate(s.URL + checkLesson + "?tutor=open")
	b.ClickAndWait("#check-start")
	runCheck(t, s, b, checkLesson)
}

// Through the quiz route on the fake OpenAI server, started beside a
// section heading: the model's questions and verdicts drive the check,
// and every grading prompt holds that section's text and no other's.
func TestCheckBrowserThroughFakeOpenAI(t *testing.T) {
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Respond: func(r fakellm.Request) []string {
		if !strings.Contains(r.System, "You grade") {
			return []string{"```json\n{\"kind\": \"open\", \"question\": \"What does a function that can fail return last?\", ",
				"\"answer\": \"an error value\"}\n```"}
		}
		verdict := "not_yet"
		if strings.Contains(r.Messages[len(r.Messages)-1].Content, "error") {
			verdict = "correct"
		}
		return []string{`Verdict: {"verdict": "` + verdict + `", "feedback": "Checked against the section.", "hint": "Look again."}`}
	}})
	s := apptest.New(t, func(c *tutor.Config) {
		c.Credentials = tutor.Credentials{OpenAIKey: "k", OpenAIBaseURL: srv.URL}
	})
	if err := s.DB.Exec(`UPDATE ai_routes SET provider = 'openai', model = 'quiz-1' WHERE use_case = 'quiz'`).Error; err != nil {
		t.Fatal(err)
	}
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + checkLesson)
	b.Click(`.prose form.section-check input[value="multiple-return-values"] ~ button`)
	runCheck(t, s, b, checkLesson)
	var section, others []string
	if err := s.DB.Raw(`SELECT text FROM lesson_chunks WHERE lesson_id = 'go-functions-errors' AND anchor = 'multiple-return-values'`).
		Scan(&section).Error; err != nil || len(section) == 0 {
		t.Fatalf("section text: %v", err)
	}
	if err := s.DB.Raw(`SELECT text FROM lesson_chunks WHERE lesson_id = 'go-functions-errors' AND anchor <> 'multiple-return-values'`).
		Scan(&others).Error; err != nil {
		t.Fatal(err)
	}
	graded := 0
	for _, r := range srv.Requests() {
		if !strings.Contains(r.System, "You grade") {
			continue
		}
		graded++
		for _, txt := range section {
			if !strings.Contains(r.System, strings.TrimSpace(txt)) {
				t.Fatalf("the grading prompt lacks the section's text")
			}
		}
		for _, txt := range others {
			if strings.Contains(r.System, strings.TrimSpace(txt)) {
				t.Fatalf("the grading prompt holds another section's text: %.80q", txt)
			}
		}
	}
	if graded != models.MaxCheckItems {
		t.Fatalf("%d grading calls, want %d", graded, models.MaxCheckItems)
	}
}

// The check at the laptop and the phone size, in both colour schemes: in
// the panel (a question after a verdict), its summary, and its own page;
// none wider than its window; with AULA_SHOTS set each is saved.
func TestCheckLayout(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	for _, size := range []struct {
		name   string
		size   [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
		b.Viewport(size.size, size.mobile)
		b.Navigate(s.URL + checkLesson + "?tutor=open")
		b.WaitVisible("#check-start")
		b.Click("#check-start")
		b.WaitVisible("#check-question")
		waitCheckReady(b)
		cid := browserCheckID(b)
		answerInBrowser(b, "surely something else")
		shoot := func(name string) {
			for _, sch := range []string{"light", "dark"} {
				b.ColorScheme(sch)
				if w := eval[float64](b, `document.documentElement.scrollWidth`); w > float64(size.size[0]) {
					b.Errorf("%s is %.0f px wide in a %d px window", name, w, size.size[0])
				}
				b.Shot(shotsDir(), name+"-"+size.name+"-"+sch)
			}
		}
		shoot("check-panel") // a "not yet", then a which-of-these question
		answerInBrowser(b, expected(t, s, cid))
		b.Navigate(s.URL + "/checks/" + cid)
		b.WaitVisible("#check-question")
		waitCheckReady(b)
		shoot("check-page")
		for b.Has("#check-form") {
			answerInBrowser(b, expected(t, s, cid))
		}
		shoot("check-summary")
		b.Navigate(s.URL + checkLesson)
		shoot("check-lesson")
	}
}

// An answer to a check that has ended meanwhile (another tab, a double
// submit) is refused with 409, and with JavaScript the panel says so in
// place, keeping the typed answer, instead of drawing nothing.
func TestCheckBrowserAnswerAfterTheEnd(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + checkLesson + "?tutor=open")
	b.WaitVisible("#check-start")
	b.Click("#check-start")
	b.WaitVisible("#check-question")
	waitCheckReady(b)
	cid := browserCheckID(b)
	s.DB.Exec(`UPDATE checks SET finished_at = now() WHERE conversation_id = ?`, cid)
	answer := "my late answer"
	if b.Has("#check-form input[type=radio]") {
		answer = b.Doc().Find("#check-form input[type=radio]").First().AttrOr("value", "")
	}
	answerInBrowserRefused(b, answer)
	want := "That question was already answered, or the check has ended"
	waitFor(b, "the refusal in the panel", fmt.Sprintf(`document.getElementById('tutor').textContent.includes(%q)`, want))
	if b.Path() != checkLesson {
		b.Errorf("the refusal left the lesson for %s", b.Path())
	}
}

// answerInBrowserRefused answers like answerInBrowser but expects no feedback.
func answerInBrowserRefused(b *browser.Browser, answer string) {
	b.T.Helper()
	if b.Has("#check-form input[type=radio]") {
		b.Click(fmt.Sprintf(`#check-form input[type=radio][value=%q]`, answer))
	} else if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#check-answer"), answer)); err != nil {
		b.Fatalf("type the answer: %v", err)
	}
	b.Click("#check-submit")
}
