package web_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"aula/internal/browser"
	"aula/models"
)

// progressShots is where the matrix's screenshots go: $AULA_SHOTS, else /tmp/shots-matrix.
func progressShots() string {
	if d := shotsDir(); d != "" {
		return d
	}
	return os.TempDir() + "/shots-matrix"
}

// In real Chromium at 1366×900 and 390×844, light and dark, with
// JavaScript on and off: the matrix of 63 members × 7 lessons is visible,
// the page is never wider than the screen (the table scrolls inside its
// own box on a phone), and each state reads in words at WCAG AA contrast;
// the group filter works from the select; the member report fits too.
func TestBrowserOrgProgress(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s, _, ids := progressOrg(t)
			m1 := ids["m1@example.com"]
			masterVLAN(t, s, m1)
			var orgA string
			s.DB.Raw(`SELECT organization_id FROM organization_members WHERE user_id = ?`, m1).Scan(&orgA)
			if err := models.NewScaleData(s.DB.DB).InsertOrg(context.Background(), orgA, models.OrgScale{Members: 60, Lessons: 2, Now: time.Now()}); err != nil {
				t.Fatal(err)
			}
			b := browser.New(t, tt.opts...)
			browserSignIn(b, s, "a@example.com", orgPass)
			b.Navigate(s.URL + "/org")
			b.ClickAndWait("#org-tab-progress")
			b.WaitVisible("#matrix")
			matrixFits(b, "progress-"+modeName(b))
			b.Navigate(s.URL + "/org/progress?sort=done&dir=desc")
			b.WaitVisible("#matrix")
			if ok := eval[bool](b, `[...document.querySelectorAll('#matrix tbody tr')].map(r => +r.dataset.done)
				.every((d, i, all) => i === 0 || all[i-1] >= d)`); !ok {
				b.Errorf("most done first: the rows are not in order")
			}
			eval[bool](b, `(() => { const s = document.querySelector('#matrix-group');
				s.value = [...s.options].find(o => o.text === 'Red').value; return true; })()`)
			b.ClickAndWait("#matrix-show")
			if n := eval[float64](b, `document.querySelectorAll('#matrix tbody tr').length`); n != 1 || !strings.Contains(b.Location(), "sort=done") {
				b.Errorf("filtered to Red: %v rows at %s", n, b.Location())
			}
			b.Navigate(s.URL + "/org/members/" + m1)
			b.WaitVisible("#report-figures")
			matrixFits(b, "report-"+modeName(b))
			b.Navigate(s.URL + "/org/progress")
			b.ClickAndWait("#lang-switch")
			b.Navigate(s.URL + "/org/progress")
			b.WaitVisible("#matrix")
			if b.Text("h1") != "Progreso" || !strings.Contains(b.Text("#matrix .cell-mastered .cell-text"), "dominada") {
				b.Errorf("in Spanish: %q", b.Text("h1"))
			}
			matrixFits(b, "progress-es-"+modeName(b))
		})
	}
}

func modeName(b *browser.Browser) string {
	if b.NoJS {
		return "nojs"
	}
	return "js"
}

// matrixFits checks the page at both sizes and in both schemes: no wider
// than the viewport, the matrix (when there) in view with its state text
// at 4.5:1; it saves a screenshot of each.
func matrixFits(b *browser.Browser, name string) {
	b.T.Helper()
	for _, size := range []struct {
		name   string
		size   [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		b.Viewport(size.size, size.mobile)
		for _, sch := range []string{"light", "dark"} {
			b.ColorScheme(sch)
			if w := eval[float64](b, `document.documentElement.scrollWidth`); w > float64(size.size[0]) {
				b.Errorf("%s at %s px is %v px wide", name, size.name, w)
			}
			if b.Has("#matrix") {
				if r := box(b, "#matrix-wrap"); r.Height < 100 || r.Left < 0 || r.Right > float64(size.size[0]) {
					b.Errorf("%s at %s: the matrix's box is %+v", name, size.name, r)
				}
				if c := worstContrast(b, "#matrix td span, #matrix th a, .matrix-legend li"); c.N == 0 || c.Ratio < 4.5 {
					b.Errorf("%s at %s, %s: %+v", name, size.name, sch, c)
				}
			}
			b.Shot(progressShots(), name+"-"+size.name+"-"+sch)
		}
	}
	b.Viewport(browser.Desktop, false)
	b.ColorScheme("light")
}
