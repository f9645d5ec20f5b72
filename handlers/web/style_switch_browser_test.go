package web_test

import (
	"fmt"
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// switchView is the Explain / Guide switch against the message list: its
// box, its own background's opacity, the list's visible box, and the
// bubbles' text lines drawn inside the switch.
type switchView struct {
	Top, Bottom, Left, Right float64
	Alpha                    float64
	ListTop, ListBottom      float64
	Covered                  int
	CoveredText              string
}

// switchJS measures the switch with the list scrolled to scrollTop
// (%s: a JavaScript expression of the list l).
const switchJS = `(() => {
	const sw = document.querySelector('.style-switch'), r = sw.getBoundingClientRect();
	const l = document.getElementById('messages');
	l.scrollTop = %s;
	const w = document.querySelector('.messages-wrap').getBoundingClientRect();
	const bg = (getComputedStyle(sw).backgroundColor.match(/[\d.]+/g) || []).map(Number);
	const v = {Top: r.top, Bottom: r.bottom, Left: r.left, Right: r.right, Alpha: bg.length === 3 ? 1 : (bg[3] || 0),
		ListTop: Math.max(w.top, 0), ListBottom: Math.min(w.bottom, innerHeight), Covered: 0, CoveredText: ''};
	const walk = document.createTreeWalker(l, NodeFilter.SHOW_TEXT);
	for (let n; (n = walk.nextNode());) {
		if (!n.textContent.trim()) continue;
		const range = document.createRange();
		range.selectNodeContents(n);
		for (const line of range.getClientRects()) {
			// Only the part of a line the list shows is drawn.
			const top = Math.max(line.top, v.ListTop), bottom = Math.min(line.bottom, v.ListBottom);
			if (bottom - top < 1) continue;
			if (top < r.bottom && bottom > r.top && line.left < r.right && line.right > r.left) {
				v.Covered++;
				v.CoveredText = n.textContent.trim().slice(0, 40);
			}
		}
	}
	return v;
})()`

// The Explain / Guide switch, in /chat and in the lesson panel, at both
// sizes, light and dark: it has an opaque background of its own, its
// labels read at 4.5:1 or better, it lies outside the message list, no
// line of an answer is drawn under it wherever the list is scrolled, and
// the last message is whole in the list below it.
func TestLayoutStyleSwitchHasItsOwnBand(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: longAnswer}))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	pages := threadPages(t, s, u)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	for _, where := range []string{"chat", "panel"} {
		for _, sc := range screens() {
			b.Viewport(sc.size, sc.mobile)
			b.Navigate(s.URL + pages[where])
			b.WaitVisible(".style-switch")
			for _, sch := range []string{"light", "dark"} {
				b.ColorScheme(sch)
				label := where + "." + sc.name + "." + sch
				for _, at := range []string{"l.scrollHeight / 2", "l.scrollHeight / 3 + 7", "l.scrollHeight"} {
					expectSwitchClear(t, b, label+" (list at "+at+")", eval[switchView](b, fmt.Sprintf(switchJS, at)))
				}
				expectNewest(t, b, "style_switch."+label+".end")
				c := worstContrast(b, ".style-switch button, .style-switch .style-status")
				figure(t, "style_switch.contrast."+label, fmt.Sprintf("%.2f:1 (%s)", c.Ratio, c.What))
				if c.N == 0 || c.Ratio < 4.5 {
					b.Errorf("%s: the switch's labels read at %.2f:1 (%s), want 4.5:1", label, c.Ratio, c.What)
				}
				b.Shot(shotsDir(), "style-switch-"+where+"-"+sc.name+"-"+sch)
			}
		}
	}
}

// expectSwitchClear checks one measurement of the switch.
func expectSwitchClear(t *testing.T, b *browser.Browser, label string, v switchView) {
	t.Helper()
	figure(t, "style_switch."+label, fmt.Sprintf("%.0f…%.0f, background alpha %.2f, list from %.0f, %d lines under it",
		v.Top, v.Bottom, v.Alpha, v.ListTop, v.Covered))
	if v.Alpha < 1 {
		b.Errorf("%s: the switch has no background of its own (alpha %.2f): the answer shows through it", label, v.Alpha)
	}
	if v.Bottom > v.ListTop+0.5 && v.Top < v.ListBottom {
		b.Errorf("%s: the switch (%.0f…%.0f) lies over the message list (%.0f…%.0f)", label, v.Top, v.Bottom, v.ListTop, v.ListBottom)
	}
	if v.Covered > 0 {
		b.Errorf("%s: %d lines of the answers are drawn under the switch (%q)", label, v.Covered, v.CoveredText)
	}
}
