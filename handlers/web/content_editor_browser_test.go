package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// In real Chromium, with JavaScript on and off: the author opens the
// editor, adds a section at the end of the text and sees it in the
// preview and the outline (typing, after the pause; or the Preview
// button), saves a draft, opens the history and compares the two
// versions. The editor fits 1366 px as two columns (the form | the
// preview and outline) and 390 px as one, light and dark, English and
// Spanish, with no horizontal scroll and the text and the preview in
// view; axe finds nothing serious (screenshots with AULA_SHOTS).
func TestBrowserLessonEditor(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t)
			s.User(t, "author@example.com", editorPass, models.PlanContentAdmin)
			b := browser.New(t, tt.opts...)
			mode := strings.ReplaceAll(tt.name, " ", "-")
			browserSignIn(b, s, "author@example.com", editorPass)
			b.Navigate(s.URL + vlanEditor)
			b.WaitVisible("#f-body")
			editorShots(b, "editor-"+mode)

			eval[bool](b, `(t => (t.value += "\n## Typed section\n\nTyped words", true))(document.getElementById('f-body'))`)
			if b.NoJS {
				b.ClickAndWait("#preview-button")
			} else {
				// A real keystroke: the live preview follows input events.
				if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#f-body"), ".")); err != nil {
					b.Fatalf("type: %v", err)
				}
			}
			b.WaitFor("the preview shows the new section", `!!document.querySelector('#preview-body h2#typed-section') && !!document.querySelector('#editor-outline li#section-typed-section')`)
			if got := eval[string](b, `document.getElementById('f-body').value`); !strings.HasSuffix(strings.TrimSpace(got), "Typed words.") && !strings.HasSuffix(strings.TrimSpace(got), "Typed words") {
				b.Fatalf("the text was not kept: %q", got[max(0, len(got)-80):])
			}
			if b.Text("#editor-outline li#section-typed-section a") != "Typed section" {
				b.Fatalf("outline: %q", b.Text("#editor-outline"))
			}
			eval[bool](b, `(document.getElementById('typed-section').scrollIntoView({block: "center"}), true)`)
			editorShots(b, "editor-preview-"+mode)
			b.ClickAndWait("#save-button")
			if !strings.HasPrefix(b.Text("#admin-flash"), "Saved version 2 as a draft.") {
				b.Fatalf("after saving: %q %q", b.Text("#admin-flash"), b.Text("#admin-error"))
			}
			b.ClickAndWait("#editor-history")
			b.WaitVisible("#compare")
			pageShots(b, "#history", "editor-history-"+mode)
			b.ClickAndWait("#compare")
			b.WaitVisible(`#diff-sections li#section-typed-section[data-change="added"]`)
			pageShots(b, "#diff-sections", "editor-diff-"+mode)

			b.Navigate(s.URL + vlanEditor)
			b.ClickAndWait("#lang-switch")
			b.WaitVisible("#f-body")
			if !strings.HasPrefix(b.Text("#editor-title"), "Editar «") || b.Text("#publish-button") != "Publicar" {
				b.Fatalf("in Spanish: %q %q", b.Text("#editor-title"), b.Text("#publish-button"))
			}
			editorShots(b, "editor-es-"+mode)
			if !b.NoJS {
				axeEach(t, b, s.URL, vlanEditor, vlanEditor+"/history", vlanEditor+"/diff?from=1&to=2")
			}
			b.ClickAndWait("#lang-switch")
		})
	}
}

// editorShots checks the editor at 1366 and 390 px, light and dark: no
// horizontal scroll; at 1366 the form and the preview side by side, the
// text box and the preview both in view; at 390 one column, the text box
// and then the preview each in view once scrolled to; its text at 4.5:1.
func editorShots(b *browser.Browser, name string) {
	b.T.Helper()
	for _, size := range []struct {
		name   string
		size   [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		b.Viewport(size.size, size.mobile)
		w, h := float64(size.size[0]), float64(size.size[1])
		for _, sch := range []string{"light", "dark"} {
			b.ColorScheme(sch)
			if sw := eval[float64](b, `document.documentElement.scrollWidth`); sw > w {
				b.Errorf("%s at %s px is %v px wide", name, size.name, sw)
			}
			bar := scrollBelowBar(b, "#f-body")
			body, side := box(b, "#f-body"), box(b, "#editor-preview")
			inView := func(r rect) bool { return r.Left >= 0 && r.Right <= w && r.Top >= bar-1 && r.Top < h-40 }
			if !inView(body) {
				b.Errorf("%s at %s px: the text box is out of view: %+v", name, size.name, body)
			}
			if size.name == "1366" && (!inView(side) || side.Left < body.Right) {
				b.Errorf("%s at 1366 px: the preview is not beside the text: text %+v, preview %+v", name, body, side)
			}
			if size.name == "390" {
				form, sideBox := box(b, "#editor-form"), box(b, "#editor-side")
				if sideBox.Top < form.Bottom || sideBox.Right > w {
					b.Errorf("%s at 390 px: not one column: form %+v, side %+v", name, form, sideBox)
				}
			}
			if c := worstContrast(b, ".editor-head *, #editor-form *, #editor-side *"); c.Ratio < 4.5 {
				b.Errorf("%s at %s px, %s: contrast %.2f of %s", name, size.name, sch, c.Ratio, c.What)
			}
			b.Shot(shotsDir(), fmt.Sprintf("%s-%s-%s", name, size.name, sch))
			if size.name == "390" {
				scrollBelowBar(b, "#editor-preview")
				if r := box(b, "#editor-preview"); !inView(r) {
					b.Errorf("%s at 390 px: the preview is out of view once scrolled to: %+v", name, r)
				}
				b.Shot(shotsDir(), fmt.Sprintf("%s-%s-%s-preview", name, size.name, sch))
			}
		}
	}
	b.Viewport(browser.Desktop, false)
	b.ColorScheme("light")
}

// pageShots checks a page with sel in view at both sizes and schemes: no
// wider than the screen, sel within it, its text at 4.5:1.
func pageShots(b *browser.Browser, sel, name string) {
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
			if r := box(b, sel); r.Left < 0 || r.Right > float64(size.size[0]) {
				b.Errorf("%s at %s px: %s spans %v–%v", name, size.name, sel, r.Left, r.Right)
			}
			if c := worstContrast(b, sel+", "+sel+" *"); c.Ratio < 4.5 {
				b.Errorf("%s at %s px, %s: contrast %.2f of %s", name, size.name, sch, c.Ratio, c.What)
			}
			b.Shot(shotsDir(), fmt.Sprintf("%s-%s-%s", name, size.name, sch))
		}
	}
	b.Viewport(browser.Desktop, false)
	b.ColorScheme("light")
}

// scrollBelowBar scrolls the page so that sel's top sits just below the
// sticky top bar, and returns the bar's height.
func scrollBelowBar(b *browser.Browser, sel string) float64 {
	b.T.Helper()
	return eval[float64](b, fmt.Sprintf(`(e => { const bar = document.querySelector('.topbar').getBoundingClientRect().height;
		window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - bar - 8); return bar })(document.querySelector(%q))`, sel))
}
