package web_test

import (
	"fmt"
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// formView is the 👎 reason form of an answer against the visible part
// of the message list, and whether the focus is in it.
type formView struct {
	Top, Bottom, ListTop, ListBottom float64
	Focused                          bool
}

// formJS measures the reason form of answer %s.
const formJS = `(() => { const f = document.querySelector('#m-%s .rate-form').getBoundingClientRect();
	const w = document.querySelector('.messages-wrap').getBoundingClientRect();
	return {Top: f.top, Bottom: f.bottom, ListTop: Math.max(w.top, 0), ListBottom: Math.min(w.bottom, innerHeight),
		Focused: !!(document.activeElement && document.activeElement.closest('#m-%s .rate-form'))}; })()`

// formStill holds once the reason form of answer %s is shown inside the
// list and has not moved for 300 ms: a smooth scroll to it has ended (it
// may start a few frames after the click).
const formStill = `(() => { const f = document.querySelector('#m-%s .rate-form');
	if (!f || !f.offsetParent) return false;
	const r = f.getBoundingClientRect(), w = document.querySelector('.messages-wrap').getBoundingClientRect(), now = performance.now();
	if (r.top < w.top - 1 || r.bottom > Math.min(w.bottom, innerHeight) + 1) return false;
	if (window.__formTop !== r.top) { window.__formTop = r.top; window.__formSince = now; return false; }
	return now - window.__formSince >= 300; })()`

// Pressing 👎 on the newest answer, in /chat and in the lesson panel, at
// both sizes, with JavaScript and without, shows its whole reason form in
// the list; with JavaScript the focus moves to the form's first choice.
func TestLayoutRateFormOpensInView(t *testing.T) {
	for _, js := range []bool{true, false} {
		t.Run(fmt.Sprintf("javascript=%v", js), func(t *testing.T) {
			s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: longAnswer}))
			u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
			pages := threadPages(t, s, u)
			var b *browser.Browser
			if js {
				b = signInBrowser(t, s, "ana@example.com", "a-long-password-1")
			} else {
				b = browser.New(t, browser.WithoutJavaScript())
				signIn(b, s, "ana@example.com", "a-long-password-1")
			}
			for _, where := range []string{"chat", "panel"} {
				for _, sc := range screens() {
					b.Viewport(sc.size, sc.mobile)
					b.Navigate(s.URL + pages[where])
					label := fmt.Sprintf("rate_form.%s.%s.js=%v", where, sc.name, js)
					mid := eval[string](b, `[...document.querySelectorAll('#messages > article[data-role=assistant][id^="m-"]')].pop().id.slice(2)`)
					if js {
						waitFor(b, "the list at its newest", `(l => l.scrollHeight - l.scrollTop - l.clientHeight < 24)(document.getElementById('messages'))`)
					}
					b.Click("#m-" + mid + " .rate-down > summary")
					if js {
						settle(b, fmt.Sprintf(formStill, mid))
					}
					v := eval[formView](b, fmt.Sprintf(formJS, mid, mid))
					figure(t, label, fmt.Sprintf("form %.0f…%.0f in the list's %.0f…%.0f, focused %v", v.Top, v.Bottom, v.ListTop, v.ListBottom, v.Focused))
					if v.Top < v.ListTop-1 || v.Bottom > v.ListBottom+1 {
						b.Errorf("%s: the reason form spans %.0f…%.0f, the list shows %.0f…%.0f: it opened out of view",
							label, v.Top, v.Bottom, v.ListTop, v.ListBottom)
					}
					if js && !v.Focused {
						b.Errorf("%s: the focus is not in the reason form", label)
					}
					shotSchemes(b, fmt.Sprintf("rate-form-%s-%s-js-%v", where, sc.name, js))
				}
			}
		})
	}
}
