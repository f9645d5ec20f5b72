package web_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"aula/internal/browser"
	"aula/internal/fakellm"
	"aula/models"
)

// modelHolds hold the quiz model's next question call and its next
// grading call after their first piece, until the test lets each go.
type modelHolds struct {
	mu              sync.Mutex
	question, grade chan struct{}
}

func (h *modelHolds) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.question, h.grade = make(chan struct{}), make(chan struct{})
}

func (h *modelHolds) of(r fakellm.Request) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if isGrading(r) {
		return h.grade
	}
	return h.question
}

func (h *modelHolds) release(ch *chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(*ch)
	*ch = nil
}

// In Chromium, with a slow quiz model: starting a check says "Preparing
// your questions…" at once, while the model is still writing the
// question; an answer shows "Grading your answer…" at once, while the
// model is still grading, then the feedback as it is written and the
// next question. Each state at the laptop and the phone size, light and
// dark, none wider than its window (saved with AULA_SHOTS set).
func TestCheckBrowserShowsProgressAtOnce(t *testing.T) {
	holds := &modelHolds{}
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{
		Respond: func(r fakellm.Request) []string {
			if isGrading(r) {
				return []string{`{"verdict": "correct", `, `"feedback": "Right: a function that can fail`,
					` returns an error as its last result.", "hint": "Look again."}`}
			}
			return []string{`{"kind": "open", `, `"question": "What does a function that can fail return last?", "answer": "an error value"}`}
		},
		HoldOn: holds.of,
	})
	s := quizApp(t, srv)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	for _, size := range []struct {
		name   string
		size   [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		holds.reset()
		b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
		b.Viewport(size.size, size.mobile)
		shoot := func(name string) {
			for _, sch := range []string{"light", "dark"} {
				b.ColorScheme(sch)
				if w := eval[float64](b, `document.documentElement.scrollWidth`); w > float64(size.size[0]) {
					b.Errorf("%s is %.0f px wide in a %d px window", name, w, size.size[0])
				}
				b.Shot(shotsDir(), name+"-"+size.name+"-"+sch)
			}
		}
		b.Navigate(s.URL + checkLesson + "?tutor=open")
		b.WaitVisible("#check-start")
		b.Click("#check-start")
		waitFor(b, "the start's progress", `(e => !!e && e.offsetHeight > 0 && e.textContent.includes('Preparing your questions…'))(document.querySelector('#check-start ~ .check-busy'))`)
		shoot("check-starting")
		holds.release(&holds.question)
		b.WaitVisible("#check-question")
		waitCheckReady(b)
		if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#check-answer"), "an error")); err != nil {
			b.Fatalf("type the answer: %v", err)
		}
		b.Click("#check-submit")
		waitFor(b, "the grading's progress", `(e => !!e && e.offsetHeight > 0 && e.textContent.includes('Grading your answer…'))(document.querySelector('#check-pending .check-busy'))`)
		if got := b.Text("#check-pending .verdict"); got != "Your answer: an error" {
			b.Fatalf("while grading, the answer shows as %q", got)
		}
		shoot("check-grading")
		holds.release(&holds.grade)
		waitFor(b, "the feedback and the next question", `!document.getElementById('check-pending') && !!document.getElementById('check-form')`)
		if got := b.Text("#check-last"); !strings.Contains(got, "Right: a function that can fail returns an error as its last result.") ||
			b.Text("#check-last .verdict-badge") != "Correct" {
			b.Fatalf("feedback %q", got)
		}
		shoot("check-graded")
	}
}
