package web_test

import (
	"fmt"
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
)

// bubblesShown counts the landing example's bubbles and those drawn whole
// inside its message list.
const bubblesShown = `(() => {
	const w = document.querySelector('#landing-demo .messages-wrap').getBoundingClientRect();
	const all = [...document.querySelectorAll('#landing-demo .msg')];
	const whole = all.filter(m => { const r = m.getBoundingClientRect();
		return r.height > 20 && r.top >= w.top - 1 && r.bottom <= w.bottom + 1; });
	return [all.length, whole.length];
})()`

// A visitor sees the landing page's example whole, at both sizes, with
// JavaScript and without: the welcome, the question and the answer, none
// cut by the still panel (its list had been 0 px tall).
func TestLayoutLandingShowsItsExample(t *testing.T) {
	s := apptest.New(t)
	for _, js := range []bool{true, false} {
		var opts []browser.Option
		if !js {
			opts = append(opts, browser.WithoutJavaScript())
		}
		b := browser.New(t, opts...)
		for _, sc := range screens() {
			b.Viewport(sc.size, sc.mobile)
			b.Navigate(s.URL + "/")
			n := eval[[]int](b, bubblesShown)
			figure(t, fmt.Sprintf("landing.%s.js=%v.bubbles_whole", sc.name, js), fmt.Sprintf("%d of %d", n[1], n[0]))
			if n[0] != 3 || n[1] != n[0] {
				b.Errorf("landing at %s (javascript %v): %d of the example's %d bubbles are shown whole, want all 3", sc.name, js, n[1], n[0])
			}
			if js {
				shotSchemes(b, "landing-"+sc.name)
			}
		}
	}
}
