package web_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/internal/imagetest"
	"aula/models"
)

// In real Chromium: the author uploads an image (a PNG named .jpg) in the
// lesson editor. With JavaScript the component swaps in with its
// Markdown, Insert writes it at the textarea's cursor, and the live
// preview shows the image loaded; without, the upload answers 303 to the
// editor, whose images box shows the Markdown to copy. Once published,
// the student's lesson shows the image, loaded, with its alt. At 1366
// and 390 px, light and dark, nothing is wider than the screen and the
// box's text reads at 4.5:1 (screenshots with AULA_SHOTS).
func TestBrowserLessonImages(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t)
			s.User(t, "author@example.com", imagesPass, models.PlanContentAdmin)
			s.User(t, "student@example.com", imagesPass, models.PlanFree)
			data := imagetest.PNG(320, 200)
			file := filepath.Join(t.TempDir(), "trunk.jpg")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			const alt = "A trunk carrying VLANs 10 and 20: one cable, two tags"
			src := "/media/" + imageSHA(data) + ".png"
			snippet := "![" + alt + "](" + src + ")"

			b := browser.New(t, tt.opts...)
			browserSignIn(b, s, "author@example.com", imagesPass)
			b.Navigate(s.URL + "/admin/content/lessons/" + imagesLesson)
			b.WaitVisible("#image-form")
			if err := chromedp.Do(b.Ctx, chromedp.SetUploadFiles(chromedp.CSS("#image-file"), []string{file})); err != nil {
				b.Fatalf("choose the file: %v", err)
			}
			b.Fill("#image-alt", alt)
			if b.NoJS {
				uploadWithoutJavaScript(b, snippet)
			} else {
				uploadAndInsert(b, snippet, src, alt)
			}
			imagesShots(b, "#lesson-images", "images-editor-"+strings.ReplaceAll(tt.name, " ", "-"))
			if !b.NoJS {
				axeHere(t, b, "the editor with an image uploaded")
			}
			b.ClickAndWait("#publish-button")
			if l, err := s.App.Content.Lesson(t.Context(), imagesLesson); err != nil || !strings.Contains(l.ContentMD, snippet) {
				b.Fatalf("published: %v, the text lacks the image", err)
			}

			st := b.Session("student")
			browserSignIn(st, s, "student@example.com", imagesPass)
			st.Navigate(s.URL + "/learn/networking/" + imagesLesson)
			img := fmt.Sprintf(`.prose img[src=%q]`, src)
			waitImageLoaded(st, img)
			if got, _ := st.Attr(img, "alt"); got != alt {
				st.Fatalf("the student's image has alt %q", got)
			}
			imagesShots(st, img, "images-lesson-"+strings.ReplaceAll(tt.name, " ", "-"))
		})
	}
}

// uploadAndInsert uploads with HTMX, puts the cursor after the lesson's
// first paragraph and inserts the image's Markdown there.
func uploadAndInsert(b *browser.Browser, snippet, src, alt string) {
	b.T.Helper()
	b.Click("#image-upload")
	b.WaitVisible("#image-uploaded .insert-image")
	if got := b.Text("#image-snippet"); got != snippet || b.Path() != "/admin/content/lessons/"+imagesLesson {
		b.Fatalf("after the upload: %q at %s, want %q", got, b.Path(), snippet)
	}
	before := eval[string](b, `document.getElementById('f-body').value`)
	at := strings.Index(before, "\n\n")
	eval[bool](b, fmt.Sprintf(`(t => (t.setSelectionRange(%d, %d), true))(document.getElementById('f-body'))`, at, at))
	b.Click("#image-uploaded .insert-image")
	want := before[:at] + snippet + before[at:]
	if got := eval[string](b, `document.getElementById('f-body').value`); got != want {
		b.Fatalf("the textarea after Insert:\n%q\nwant\n%q", got[:min(len(got), at+200)], want[:at+200])
	}
	if f := eval[string](b, `document.activeElement.id`); f != "f-body" {
		b.Fatalf("focus after Insert is on %q, not the text", f)
	}
	b.WaitFor("the preview shows the image loaded", fmt.Sprintf(
		`(i => !!i && i.complete && i.naturalWidth === 320 && i.alt === %q)(document.querySelector('#preview-body img[src=%q]'))`, alt, src))
}

// uploadWithoutJavaScript posts the form; the editor comes back with the
// Markdown to copy, which the author pastes at the end of the text.
func uploadWithoutJavaScript(b *browser.Browser, snippet string) {
	b.T.Helper()
	b.ClickAndWait("#image-upload")
	b.WaitVisible("#image-uploaded")
	if got := b.Text("#image-snippet"); got != snippet || b.Path() != "/admin/content/lessons/"+imagesLesson || b.Has("#image-uploaded .insert-image:not([hidden])") {
		b.Fatalf("after the upload: %q at %s, want %q", got, b.Path(), snippet)
	}
	eval[bool](b, fmt.Sprintf(`(t => (t.value += "\n\n" + %q + "\n", true))(document.getElementById('f-body'))`, snippet))
}

// waitImageLoaded waits until the image matched by sel has loaded (read
// through DevTools, so with JavaScript off too).
func waitImageLoaded(b *browser.Browser, sel string) {
	b.T.Helper()
	expr := fmt.Sprintf(`(i => !!i && i.complete && i.naturalWidth > 0)(document.querySelector(%q))`, sel)
	for deadline := time.Now().Add(browser.StepTimeout); ; time.Sleep(50 * time.Millisecond) {
		if eval[bool](b, expr) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("the image %s never loaded", sel)
		}
	}
}

// imagesShots checks the page with sel scrolled into view at both sizes
// and schemes: no wider than the screen, sel within it, the images box's
// text at 4.5:1; it saves a screenshot of each when AULA_SHOTS is set.
func imagesShots(b *browser.Browser, sel, name string) {
	b.T.Helper()
	for _, size := range []struct {
		name   string
		size   [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		b.Viewport(size.size, size.mobile)
		eval[bool](b, fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: "start"}), true)`, sel))
		for _, sch := range []string{"light", "dark"} {
			b.ColorScheme(sch)
			if w := eval[float64](b, `document.documentElement.scrollWidth`); w > float64(size.size[0]) {
				b.Errorf("%s at %s px is %v px wide", name, size.name, w)
			}
			if r := box(b, sel); r.Left < 0 || r.Right > float64(size.size[0]) {
				b.Errorf("%s at %s px: %s spans %v–%v", name, size.name, sel, r.Left, r.Right)
			}
			if b.Has("#lesson-images") {
				if w := worstContrast(b, "#lesson-images *"); w.Ratio < 4.5 {
					b.Errorf("%s at %s px, %s: contrast %.2f of %s", name, size.name, sch, w.Ratio, w.What)
				}
			}
			b.Shot(shotsDir(), name+"-"+size.name+"-"+sch)
		}
	}
	b.Viewport(browser.Desktop, false)
	b.ColorScheme("light")
}

// axeHere runs axe-core on the page as it is now (after a swap, say), in
// both schemes, and fails on serious or critical violations.
func axeHere(t *testing.T, b *browser.Browser, label string) {
	t.Helper()
	axe := axeSource(t)
	for _, sch := range []string{"light", "dark"} {
		b.ColorScheme(sch)
		for _, v := range runAxe(b, axe) {
			if v.Impact == "serious" || v.Impact == "critical" {
				b.Errorf("%s (%s): %s %s on %d elements: %s", label, sch, v.Impact, v.ID, v.Nodes, v.Target)
			}
		}
	}
	b.ColorScheme("light")
}
