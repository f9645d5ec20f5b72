package web_test

import (
	"fmt"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// fbEditor and fbPage are the editor and the feedback page the browser test opens.
const (
	fbEditor = "/admin/content/lessons/" + fbLesson
	fbPage   = fbEditor + "/feedback"
)

// In real Chromium, with JavaScript on and off, at 1366×900 and 390×844,
// light and dark: the 👎 count and the check figures stand inside the
// outline item of the section they are about, legible and never wider
// than the screen; "Suggest questions" then "Use these" fills the three
// suggestion fields (in place with JavaScript, by a round trip without)
// and nothing is saved; "Preview a check" lists the section's questions.
func TestBrowserContentFeedbackBesideItsSection(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t, fastTutor)
			anchors, hash := fbSections(t, s)
			first := anchors[1]
			ann := s.User(t, "ann@example.com", fbPass, models.PlanPro).ID
			bob := s.User(t, "bob@example.com", fbPass, models.PlanPro).ID
			fbRateDown(t, s, ann, first, "What is a broadcast domain?", "lesson_unclear", "Where does a broadcast domain end? The text never says.")
			fbRateDown(t, s, bob, first, "what is a broadcast domain", "answer_wrong", "")
			fbGraded(t, s, ann, first, hash[first], models.VerdictNotYet, "a router")
			fbGraded(t, s, bob, first, hash[first], models.VerdictCorrect, "broadcast domain")
			s.User(t, "author@example.com", fbPass, models.PlanContentAdmin)
			before := fbRows(t, s)

			b := browser.New(t, tt.opts...)
			browserSignIn(b, s, "author@example.com", fbPass)
			for name, path := range map[string]string{"content-editor": fbEditor, "content-feedback": fbPage} {
				b.Navigate(s.URL + path + "#section-" + first)
				b.WaitVisible("#section-" + first + " .feedback-down")
				if got := b.Text("#section-" + first + " .feedback-down"); got != "2 answers rated down" {
					b.Fatalf("%s: the 👎 beside the section: %q", path, got)
				}
				if got := b.Text("#section-" + first + " .feedback-tried"); got != "2 students tried a check" {
					b.Fatalf("%s: the checks beside the section: %q", path, got)
				}
				fbGeometry(b, first, !b.NoJS, name)
				if !b.NoJS {
					axeEach(t, b, s.URL, path)
				}
			}
			for _, fill := range []struct{ path, field string }{{fbEditor, "#f-suggestion1"}, {fbPage, "#assist-s1"}} {
				b.Navigate(s.URL + fill.path)
				fbSuggestAndUse(b, fill.field)
				fbPreview(b, first)
			}
			if after := fbRows(t, s); after != before {
				t.Errorf("rows changed without a save: %v → %v", before, after)
			}
		})
	}
}

// fbGeometry checks, at each size and scheme, that the section's 👎 and
// check figures lie inside its outline item, that the page is no wider
// than the screen and that the panel's text reads at 4.5:1; it saves
// screenshots named name when shots.
func fbGeometry(b *browser.Browser, anchor string, shots bool, name string) {
	b.T.Helper()
	item := "#section-" + anchor
	for _, size := range []struct {
		name   string
		size   [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		b.Viewport(size.size, size.mobile)
		eval[bool](b, fmt.Sprintf(`document.querySelector(%q).scrollIntoView(), true`, item))
		for _, sch := range []string{"light", "dark"} {
			b.ColorScheme(sch)
			li := box(b, item)
			for _, fig := range []string{item + " .feedback-down", item + " .feedback-tried", item + " .feedback-not-yet"} {
				r := box(b, fig)
				if r.Top < li.Top || r.Bottom > li.Bottom || r.Left < li.Left || r.Right > li.Right || r.Height == 0 {
					b.Errorf("%s at %s px, %s: %+v is not inside its section's item %+v", fig, size.name, sch, r, li)
				}
			}
			if w := eval[float64](b, `document.documentElement.scrollWidth`); w > float64(size.size[0]) {
				b.Errorf("the feedback page at %s px is %v px wide", size.name, w)
			}
			if low := worstContrast(b, ".section-feedback *, .feedback-heading, .feedback-heading *"); low.Ratio < 4.5 {
				b.Errorf("at %s px, %s: text at %.2f:1 (%s)", size.name, sch, low.Ratio, low.What)
			}
			if shots {
				b.Shot(shotsDir(), name+"-"+size.name+"-"+sch)
			}
		}
	}
	b.Viewport(browser.Desktop, false)
	b.ColorScheme("light")
}

// fbSuggestAndUse asks for three suggestions and uses them: the fields
// (the first is field) hold the proposals, shown as unsaved.
func fbSuggestAndUse(b *browser.Browser, field string) {
	b.T.Helper()
	if b.NoJS {
		b.ClickAndWait("#suggest-button")
	} else {
		b.Click("#suggest-button")
	}
	b.WaitVisible("#use-suggestions")
	proposed := strings.TrimSpace(b.Doc().Find("#assist-proposals .assist-questions li").First().Text())
	if proposed == "" || !strings.Contains(b.Text(".assist-by"), "offline tutor") {
		b.Fatalf("the proposals: %q / %q", b.Text("#assist-proposals"), b.Text(".assist-by"))
	}
	eval[bool](b, `document.querySelector('#assist-proposals').scrollIntoView(), true`)
	if shotsDir() != "" && !b.NoJS {
		for _, size := range []struct {
			name string
			size [2]int64
		}{{"1366", browser.Desktop}, {"390", browser.Phone}} {
			b.Viewport(size.size, size.name == "390")
			eval[bool](b, `document.querySelector('#assist-proposals').scrollIntoView(), true`)
			b.Shot(shotsDir(), "content-assist-suggest-"+strings.TrimPrefix(field, "#")+"-"+size.name)
		}
		b.Viewport(browser.Desktop, false)
	}
	if b.NoJS {
		b.ClickAndWait("#use-suggestions")
		b.WaitVisible("#assist-used")
	} else {
		b.Click("#use-suggestions")
		b.WaitVisible("#assist-filled")
	}
	if got := eval[string](b, fmt.Sprintf(`document.querySelector(%q).value`, field)); got != proposed {
		b.Fatalf("Use these left s1 = %q, want %q", got, proposed)
	}
	if b.NoJS != strings.HasSuffix(b.Path(), "/suggest") {
		b.Errorf("at %s after Use these (JavaScript %v)", b.Path(), !b.NoJS)
	}
}

// fbPreview previews a check on anchor and finds its questions listed.
func fbPreview(b *browser.Browser, anchor string) {
	b.T.Helper()
	eval[bool](b, fmt.Sprintf(`document.querySelector('#assist-anchor').value = %q, true`, anchor))
	if b.NoJS {
		b.ClickAndWait("#preview-check-button")
	} else {
		b.Click("#preview-check-button")
	}
	b.WaitVisible("#assist-preview .preview-questions")
	if n := b.Doc().Find("#assist-preview .preview-questions > li").Length(); n == 0 {
		b.Fatalf("the preview lists no question: %q", b.Text("#assist-preview"))
	}
	eval[bool](b, `document.querySelector('#assist-preview').scrollIntoView(), true`)
	if shotsDir() != "" && !b.NoJS {
		b.Viewport(browser.Phone, true)
		eval[bool](b, `document.querySelector('#assist-preview').scrollIntoView(), true`)
		b.Shot(shotsDir(), "content-assist-preview-390"+strings.ReplaceAll(strings.TrimPrefix(b.Path(), "/admin/content/lessons/"+fbLesson), "/", "-"))
		b.ColorScheme("dark")
		b.Shot(shotsDir(), "content-assist-preview-390-dark"+strings.ReplaceAll(strings.TrimPrefix(b.Path(), "/admin/content/lessons/"+fbLesson), "/", "-"))
		b.ColorScheme("light")
		b.Viewport(browser.Desktop, false)
	}
}
