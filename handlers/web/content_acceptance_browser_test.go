package web_test

// The acceptance journey of writing lessons in the browser (issue 28,
// "How we will know"), the author and the student each in a session of
// their own.

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
	"aula/tutor"
)

// The lesson the journey writes, and its text before and after the edit
// of one section.
const (
	journeyLesson = "/learn/routing-lab/static-routes"
	journeyBody   = "A static route tells a router where to send packets for a network no routing protocol taught it.\n\n" +
		"## Next hop\n\nA static route names the next hop: the address of the neighbouring router that forwards the packets onwards.\n\n" +
		"## Administrative distance\n\nThe administrative distance ranks routes from different sources; a static route has a distance of 1, so it wins over a route learnt by OSPF.\n"
	journeyOld = "the address of the neighbouring router that forwards the packets onwards."
	journeyNew = "the neighbour's address, or the exit interface on a point-to-point link."
)

// citeNextHop answers every question citing the lesson's "Next hop" section.
func citeNextHop(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
	return apptest.EmitAll(emit, "A static route names the next hop ", "[§ Next hop](#next-hop).")
}

// authorJourney is the journey's server, the author's browser and the student's.
type authorJourney struct {
	t       *testing.T
	s       *apptest.Server
	b, stud *browser.Browser
	shots   bool
}

// In real Chromium, with JavaScript on and off (the author writing in
// Spanish when it is off): a content admin creates a path, a module and a
// lesson; uploads an image; writes two sections with the image, previews
// and publishes; a student asks the lesson's tutor, whose answer cites the
// new "Next hop" section; the author edits that section alone and
// publishes, and the student's receipt flags only it as changed; the
// author restores the first published version, and the flag goes. Every
// screen of the author's fits 1366×900 and 390×844, light and dark.
func TestBrowserAuthoringAcceptance(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: citeNextHop}))
			author := s.User(t, "carmen@example.com", orgPass, models.PlanContentAdmin)
			s.User(t, "lucia@example.com", orgPass, models.PlanPro)
			b := browser.New(t, append(tt.opts, browser.WithTimeout(10*time.Minute))...)
			if b.NoJS {
				s.DB.Exec(`UPDATE users SET locale = 'es' WHERE id = ?`, author.ID)
			}
			j := &authorJourney{t: t, s: s, b: b, shots: true}
			browserSignIn(b, s, "carmen@example.com", orgPass)
			j.createLesson()
			j.uploadImage()
			j.writeAndPublish()
			j.stud = b.Session("student")
			browserSignIn(j.stud, s, "lucia@example.com", orgPass)
			cid := j.ask()
			j.expectReceipt(cid, "")
			j.editAndPublish()
			j.expectReceipt(cid, "Next hop")
			j.restoreFirstPublished()
			j.expectReceipt(cid, "")
		})
	}
}

// createLesson creates the path routing-lab, its module basics and the
// draft lesson static-routes from Admin → Content, landing in the editor.
func (j *authorJourney) createLesson() {
	b := j.b
	b.Navigate(j.s.URL + "/admin/content")
	b.WaitVisible("#new-path")
	b.Click("#new-path summary")
	b.Fill("#new-path-slug", "routing-lab")
	b.Fill("#new-path-title", "Routing lab")
	b.ClickAndWait("#new-path-submit")
	if !b.Has("#new-module-routing-lab") {
		b.Fatalf("the new path has no module form: %q", b.Text("main"))
	}
	b.Click("#new-module-routing-lab summary")
	b.Fill("#nm-slug-routing-lab", "basics")
	b.Fill("#nm-title-routing-lab", "Basics")
	b.ClickAndWait("#new-module-routing-lab button[type=submit]")
	var module int64
	j.s.DB.Raw(`SELECT m.id FROM modules m JOIN paths p ON p.id = m.path_id WHERE p.slug = 'routing-lab' AND m.slug = 'basics'`).Scan(&module)
	if module == 0 {
		b.Fatalf("the module was not created: %q", b.Text("main"))
	}
	key := fmt.Sprint(module)
	b.Click("#new-lesson-" + key + " summary")
	b.Fill("#nl-id-"+key, "static-routes")
	b.Fill("#nl-title-"+key, "Static routes")
	b.ClickAndWait("#new-lesson-" + key + " button[type=submit]")
	if p := b.Path(); p != "/admin/content/lessons/static-routes" {
		b.Fatalf("after creating the lesson: at %s, want its editor", p)
	}
	if n := apptest.Count(j.t, j.s, `SELECT count(*) FROM lessons WHERE id = 'static-routes' AND status = 'draft'`); n != 1 {
		b.Fatalf("the new lesson is not a draft (%d rows)", n)
	}
	orgShots(b, j.shots, "authoring-new-lesson-"+modeName(b))
}

// uploadImage uploads a PNG with its alt text from the editor and returns
// nothing: the image's Markdown is read back when the body is written.
func (j *authorJourney) uploadImage() {
	b := j.b
	file := filepath.Join(j.t.TempDir(), "topology.png")
	img := image.NewRGBA(image.Rect(0, 0, 48, 32))
	for x := range 48 {
		img.Set(x, 16, color.RGBA{R: 200, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		j.t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		j.t.Fatal(err)
	}
	if err := chromedp.Do(b.Ctx, chromedp.SetUploadFiles(chromedp.CSS("#image-file"), []string{file})); err != nil {
		b.Fatalf("choose the image: %v", err)
	}
	b.Fill("#image-alt", "Two routers joined by a serial link")
	if b.NoJS {
		b.ClickAndWait("#image-upload")
	} else {
		b.Click("#image-upload")
	}
	waitFor(b, "the image's snippet", `[...document.querySelectorAll('#lesson-images code')].some(c => c.textContent.includes('/media/'))`)
	if n := apptest.Count(j.t, j.s, `SELECT count(*) FROM content_images WHERE lesson_id = 'static-routes' AND content_type = 'image/png'`); n != 1 {
		b.Fatalf("%d images stored for the lesson, want 1", n)
	}
}

// imageMarkdown is the uploaded image's Markdown as the editor shows it.
func (j *authorJourney) imageMarkdown() string {
	return eval[string](j.b, `[...document.querySelectorAll('#lesson-images code')].map(c => c.textContent).find(t => t.includes('/media/'))`)
}

// writeAndPublish writes the body with the image, previews it (live with
// JavaScript, with the Preview button without) and publishes.
func (j *authorJourney) writeAndPublish() {
	b := j.b
	body := journeyBody + "\n" + j.imageMarkdown() + "\n"
	setTextarea(b, "#f-body", body)
	b.Fill("#f-suggestion1", "What does a static route name?")
	if b.NoJS {
		b.ClickAndWait("#preview-button")
	}
	waitFor(b, "the preview's sections", `[...document.querySelectorAll('#preview-body h2')].map(h => h.id).join() === 'next-hop,administrative-distance'`)
	waitFor(b, "the preview's image loaded", `(document.querySelector('#preview-body img[alt="Two routers joined by a serial link"]')||{}).naturalWidth === 48`)
	outline := eval[string](b, `document.getElementById('editor-outline').textContent`)
	if !strings.Contains(outline, "Next hop") || !strings.Contains(outline, "Administrative distance") {
		b.Fatalf("the outline lists %q", outline)
	}
	orgShots(b, j.shots, "authoring-editor-"+modeName(b))
	b.ClickAndWait("#publish-button")
	if n := apptest.Count(j.t, j.s, `SELECT count(*) FROM lessons WHERE id = 'static-routes' AND status = 'published' AND content_md LIKE '%Next hop%'`); n != 1 {
		b.Fatalf("the lesson is not published: %q", b.Text("main"))
	}
}

// setTextarea replaces a textarea's text (browser.Fill types, which is
// slow for a lesson, and its Clear fails on an empty textarea) and tells
// the page it changed, as typing would.
func setTextarea(b *browser.Browser, sel, text string) {
	b.T.Helper()
	eval[bool](b, fmt.Sprintf(`(() => { const t = document.querySelector(%q); t.value = %s;
		t.dispatchEvent(new Event('input', {bubbles: true})); return true })()`, sel, strconvQuote(text)))
}

// ask opens the published lesson as the student, sees the image, asks
// its tutor and returns the conversation, once the answer is stored.
func (j *authorJourney) ask() string {
	b := j.stud
	b.Navigate(j.s.URL + "/learn")
	if !b.Has("#p-routing-lab") {
		b.Fatalf("the student's catalog does not list the published path")
	}
	b.Navigate(j.s.URL + journeyLesson)
	b.WaitVisible("#lesson h1")
	waitFor(b, "the lesson's image loaded", `(document.querySelector('#lesson img[alt="Two routers joined by a serial link"]')||{}).naturalWidth === 48`)
	b.Click("summary.tutor-fab")
	b.WaitVisible("#q")
	if b.NoJS {
		setTextarea(b, "#q", "What does a static route name?")
		b.ClickAndWait("#send")
	} else {
		sendQ(b, "What does a static route name?", false)
	}
	var cid string
	for deadline := time.Now().Add(browser.StepTimeout); cid == ""; time.Sleep(100 * time.Millisecond) {
		j.s.DB.Raw(`SELECT m.conversation_id FROM messages m JOIN conversations c ON c.id = m.conversation_id
			WHERE c.lesson_id = 'static-routes' AND m.role = 'assistant' AND m.status = 'complete'`).Scan(&cid)
		if time.Now().After(deadline) {
			b.Fatalf("the tutor's answer was not stored")
		}
	}
	return cid
}

// expectReceipt opens the student's thread and checks its receipt cites
// "Next hop" and flags as changed exactly the section changed ("" none).
func (j *authorJourney) expectReceipt(cid, changed string) {
	b := j.stud
	b.Navigate(j.s.URL + "/chat/" + cid)
	b.WaitVisible("#messages")
	type cit struct {
		Heading string
		Changed bool
	}
	cits := eval[[]cit](b, `[...document.querySelectorAll('#messages article[data-role=assistant] details li')]
		.filter(li => li.textContent.includes('§'))
		.map(li => ({Heading: (li.querySelector('a,span')||li).textContent.replace('§', '').trim(), Changed: !!li.querySelector('.badge.warn')}))`)
	cited := false
	for _, c := range cits {
		cited = cited || c.Heading == "Next hop"
		if c.Changed != (c.Heading == changed) {
			b.Errorf("receipt: section %q flagged changed = %v, want only %q flagged (%+v)", c.Heading, c.Changed, changed, cits)
		}
	}
	if !cited {
		b.Fatalf("the receipt does not cite the new section: %+v", cits)
	}
}

// editAndPublish changes one sentence of "Next hop" and publishes.
func (j *authorJourney) editAndPublish() {
	b := j.b
	b.Navigate(j.s.URL + "/admin/content/lessons/static-routes")
	b.WaitVisible("#f-body")
	body := eval[string](b, `document.getElementById('f-body').value`)
	if !strings.Contains(body, journeyOld) {
		b.Fatalf("the editor opens on %q", body)
	}
	setTextarea(b, "#f-body", strings.Replace(body, journeyOld, journeyNew, 1))
	b.Fill("#f-note", "Next hop: the exit interface too")
	b.ClickAndWait("#publish-button")
	if n := apptest.Count(j.t, j.s, `SELECT count(*) FROM lessons WHERE id = 'static-routes' AND content_md LIKE ?`, "%"+journeyNew+"%"); n != 1 {
		b.Fatalf("the edit was not published: %q", b.Text("main"))
	}
}

// restoreFirstPublished restores, from the history, the version first
// published, which republishes its text.
func (j *authorJourney) restoreFirstPublished() {
	b := j.b
	var first int
	j.s.DB.Raw(`SELECT min(number) FROM lesson_versions WHERE lesson_id = 'static-routes' AND content_md LIKE ?`, "%"+journeyOld+"%").Scan(&first)
	b.Navigate(j.s.URL + "/admin/content/lessons/static-routes/history")
	button := fmt.Sprintf(`button[form="restore-%d"]`, first)
	b.WaitVisible(button)
	orgShots(b, j.shots, "authoring-history-"+modeName(b))
	b.ClickAndWait(button)
	if n := apptest.Count(j.t, j.s, `SELECT count(*) FROM lessons WHERE id = 'static-routes' AND status = 'published' AND content_md LIKE ?`, "%"+journeyOld+"%"); n != 1 {
		b.Fatalf("the first version is not what students see after restoring it: %q", b.Text("main"))
	}
	if n := apptest.Count(j.t, j.s, `SELECT count(*) FROM content_audit WHERE action = 'restore' AND subject = 'static-routes'`); n != 1 {
		b.Fatalf("%d restore entries in the audit log, want 1", n)
	}
}
