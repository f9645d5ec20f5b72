package web_test

import (
	"fmt"
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// The Understanding page and a passage asked about (the button under the
// selection, the quote above the question), at the laptop and the phone
// size, light and dark: none is wider than the window. AULA_SHOTS=DIR
// saves them.
func TestLayoutUnderstandingAndPassage(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", "a-long-password-1", models.PlanContentAdmin)
	understandingSeed(t, s)
	b := signInBrowser(t, s, "root@example.com", "a-long-password-1")
	for _, size := range []struct {
		name   string
		vp     [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		b.Viewport(size.vp, size.mobile)
		for _, sc := range []string{"light", "dark"} {
			b.ColorScheme(sc)
			wide := func(what string) {
				if w := eval[float64](b, `document.documentElement.scrollWidth`); w > float64(size.vp[0]) {
					b.Errorf("%s is %.0f px wide in a %d px window", what, w, size.vp[0])
				}
			}
			b.Navigate(s.URL + "/admin/understanding")
			b.WaitVisible("#u-sections")
			wide("the understanding page")
			b.Shot(shotsDir(), fmt.Sprintf("understanding-%s-%s", size.name, sc))

			b.Navigate(s.URL + passageLessonURL)
			b.WaitVisible("summary.tutor-fab")
			eval[bool](b, `(() => { const r = document.createRange(); r.selectNodeContents(`+sentenceJS+`);
				`+sentenceJS+`.scrollIntoView({block: 'center'});
				getSelection().removeAllRanges(); getSelection().addRange(r); return true; })()`)
			waitFor(b, "the Ask the tutor button", `!!document.getElementById('ask-passage') && !document.getElementById('ask-passage').hidden`)
			if right := eval[float64](b, `document.getElementById('ask-passage').getBoundingClientRect().right`); right > float64(size.vp[0]) {
				b.Errorf("the button ends at %.0f px in a %d px window", right, size.vp[0])
			}
			wide("the lesson with a selection")
			b.Shot(shotsDir(), fmt.Sprintf("passage-button-%s-%s", size.name, sc))
			b.Click("#ask-passage")
			waitFor(b, "the quote", `document.getElementById('tutor').open && !document.getElementById('passage-quote').hidden`)
			wide("the panel with a quote")
			b.Shot(shotsDir(), fmt.Sprintf("passage-quote-%s-%s", size.name, sc))
		}
	}
}
