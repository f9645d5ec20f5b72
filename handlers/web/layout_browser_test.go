package web_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
	"aula/tutor"
)

// The layout tests measure positions and sizes in real Chromium, at the
// laptop and phone sizes of internal/browser. Every figure is logged as
// "figure NAME = VALUE" (go test -v -run 'TestLayout' ./handlers | grep figure);
// with AULA_SHOTS=DIR they also save the screenshots a person looks at.

// figure logs one measurement for the closing note of a layout change.
func figure(t *testing.T, name string, v any) {
	t.Helper()
	t.Logf("figure %s = %v", name, v)
}

// shotsDir is where the layout tests save screenshots ("" for none).
func shotsDir() string { return os.Getenv("AULA_SHOTS") }

// rect is an element's box in viewport coordinates.
type rect struct{ Top, Bottom, Left, Right, Height float64 }

// box measures the first element matched by sel.
func box(b *browser.Browser, sel string) rect {
	b.T.Helper()
	return eval[rect](b, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect();
		return {Top: r.top, Bottom: r.bottom, Left: r.left, Right: r.right, Height: r.height}; })()`, sel))
}

// longAnswer answers with several paragraphs and a highlighted Go block,
// long enough that a thread of a few answers is taller than the screen.
func longAnswer(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
	q, _, _ := strings.Cut(req.Question, "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "About **%s**:\n\n", q)
	for i := range 6 {
		fmt.Fprintf(&b, "Paragraph %d explains one more detail of the question, in a sentence long enough to wrap on a phone.\n\n", i)
	}
	b.WriteString("```go\nfunc main() {\n\tvar names = []string{\"a\", \"b\"} // a comment that makes this line long enough to scroll on a phone screen\n\tfmt.Println(len(names), 42, \"text\")\n}\n```\n\nThe end.")
	return apptest.EmitAll(emit, strings.SplitAfter(b.String(), " ")...)
}

// seedThread makes a tutor thread of u with n answered questions and returns its id.
func seedThread(t *testing.T, s *apptest.Server, u *models.User, n int) string {
	t.Helper()
	return seedConversation(t, s, u, models.ModeTutor, "", n)
}

// seedConversation makes a conversation of u in mode (on lesson, for a
// lesson session) with n answered questions and returns its id.
func seedConversation(t *testing.T, s *apptest.Server, u *models.User, mode, lesson string, n int) string {
	t.Helper()
	ctx := context.Background()
	conv, err := s.App.Conversations.Create(ctx, u.ID, mode, lesson, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		res, err := s.Tutor.Ask(ctx, tutor.AskInput{UserID: u.ID, ConversationID: conv.ID, Content: fmt.Sprintf("Question %d about slices", i+1)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Tutor.Streams().Wait(ctx, u.ID, res.AssistantMessage.ID); err != nil {
			t.Fatal(err)
		}
	}
	return conv.ID
}

// pressKey sends one key to the focused element.
func pressKey(b *browser.Browser, key string) {
	b.T.Helper()
	if err := chromedp.Do(b.Ctx, chromedp.KeyEvent(key)); err != nil {
		b.Fatalf("press %q: %v", key, err)
	}
}

// openPanel opens the lesson's tutor panel with its 🤖 button.
func openPanel(b *browser.Browser) {
	b.T.Helper()
	b.WaitVisible("summary.tutor-fab")
	b.Click("summary.tutor-fab")
	waitFor(b, "the panel open", `document.getElementById('tutor').open`)
	b.WaitVisible("#tutor-panel #q")
}

// settle polls expr until it holds or a step's time runs out, and says
// nothing either way: the assertion after it decides, and reports what it saw.
func settle(b *browser.Browser, expr string) {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, browser.StepTimeout)
	defer cancel()
	_, _ = chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(20*time.Millisecond),
		chromedp.WithPollingTimeout(browser.StepTimeout)))
}

// At 1366×900 the open panel stays beside the lesson, full height, while
// the lesson scrolls; focus goes to its input; the messages get the room;
// a § citation scrolls the lesson to its section and marks it while the
// panel stays open; Escape closes the panel.
func TestLayoutPanelStaysBesideLesson(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: longAnswer}))
	// A free student: the panel shows suggestions and the usage line too.
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Viewport(browser.Desktop, false)
	b.Navigate(s.URL + "/learn/networking/vlan-basics")
	openPanel(b)
	// The panel's toggle event, which moves the focus, is dispatched as a
	// task after the panel opens: give it its time before judging.
	settle(b, `document.activeElement.id === 'q'`)
	focused := eval[string](b, `document.activeElement.id`)
	figure(t, "panel.focus_on_open", focused)
	if focused != "q" {
		b.Errorf("focus on %q after opening the panel, want the question input #q", focused)
	}
	mid := sendQ(b, "What is a VLAN?", true)
	waitStatus(b, mid, "complete")
	// The live region reads the rendered answer, not its Markdown; it is
	// filled out of band after the bubble, so it may come a moment later.
	settle(b, `document.getElementById('announce').textContent.includes('About What is a VLAN?:')`)
	said := eval[string](b, `document.getElementById('announce').textContent`)
	if !strings.Contains(said, "About What is a VLAN?:") || strings.ContainsAny(said, "*`") {
		b.Errorf("the live region announces %q, want the answer's text without Markdown", said)
	}
	if cur := eval[[]string](b, `[...document.querySelectorAll('nav [aria-current="page"]')].map(a => a.getAttribute('href'))`); len(cur) != 1 || cur[0] != "/learn" {
		b.Errorf("navigation marks %v as the current page, want /learn", cur)
	}
	msgs := box(b, "#tutor-panel #messages")
	figure(t, "panel.messages_height_px", msgs.Height)
	if msgs.Height < 520 {
		b.Errorf("the panel's messages get %.0f px at 1366×900, want at least 520", msgs.Height)
	}
	b.Shot(shotsDir(), "lesson-panel-1366-"+scheme(b))

	eval[bool](b, `window.scrollBy({top: 1500, behavior: 'instant'}), true`)
	panel, q := box(b, "#tutor-panel"), box(b, "#tutor-panel #q")
	vh := eval[float64](b, `innerHeight`)
	figure(t, "panel.top_after_scroll_px", panel.Top)
	figure(t, "panel.input_bottom_after_scroll_px", fmt.Sprintf("%.0f of %.0f", q.Bottom, vh))
	if panel.Top < 0 || panel.Bottom > vh || q.Top < 0 || q.Bottom > vh || panel.Height < vh-120 {
		b.Errorf("after scrolling 1500 px the panel is at %.0f…%.0f and its input at %.0f…%.0f of a %.0f px window",
			panel.Top, panel.Bottom, q.Top, q.Bottom, vh)
	}
	b.Shot(shotsDir(), "lesson-panel-scrolled-1366-"+scheme(b))
	panelCitation(t, b)

	b.Click("#tutor-panel #q")
	pressKey(b, kb.Escape)
	waitFor(b, "Escape closes the panel", `!document.getElementById('tutor').open`)
}

// panelCitation clicks the last answer's first § citation in the panel.
func panelCitation(t *testing.T, b *browser.Browser) {
	t.Helper()
	b.Click("#tutor-panel .receipt summary")
	link := `#tutor-panel .citations a[href^="#"]`
	b.WaitVisible(link)
	href, _ := b.Attr(link, "href")
	b.Click(link)
	waitFor(b, "the lesson scrolled to "+href, settled(fmt.Sprintf(`document.getElementById(%q)`, href[1:])))
	head, panel := box(b, href), box(b, "#tutor-panel")
	figure(t, "citation.section_top_px", head.Top)
	figure(t, "citation.panel_top_px", panel.Top)
	if head.Top < 56 || head.Top > 140 {
		b.Errorf("the cited section's heading is at %.0f px, want it just below the top bar", head.Top)
	}
	open := eval[bool](b, `document.getElementById('tutor').open`)
	marked := eval[bool](b, fmt.Sprintf(`document.getElementById(%q).matches('.cited, :target')`, href[1:]))
	if !open || panel.Top < 0 || !marked {
		b.Errorf("after the citation: panel open %v at %.0f, section marked %v", open, panel.Top, marked)
	}
}

// settled is a predicate that holds once the element el (an expression) is
// in the upper half of the window and has not moved for 300 ms: the smooth
// scroll to it has ended. (Two equal polls were not enough on a loaded
// machine: both could fall between two frames of the scroll.)
func settled(el string) string {
	return fmt.Sprintf(`(() => { const t = %s.getBoundingClientRect().top, now = performance.now();
		if (window.__top !== t) { window.__top = t; window.__since = now; return false; }
		return now - window.__since >= 300 && t >= 0 && t < innerHeight / 2; })()`, el)
}

// scheme names the colour scheme the page is shown in.
func scheme(b *browser.Browser) string {
	if eval[bool](b, `matchMedia('(prefers-color-scheme: dark)').matches`) {
		return "dark"
	}
	return "light"
}

// On a 390×844 phone no page is wider than the screen, and the 🤖 button is on it.
func TestLayoutPhoneWidth(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: longAnswer}))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	cid := seedThread(t, s, u, 2)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Viewport(browser.Phone, true)
	var pages []string
	s.DB.Raw(`SELECT '/learn/' || p.slug || '/' || l.id FROM lessons l JOIN modules m ON m.id = l.module_id
		JOIN paths p ON p.id = m.path_id ORDER BY p.slug, l.position`).Scan(&pages)
	pages = append(pages, "/learn", "/learn/networking", "/chat/"+cid, "/dashboard", "/settings")
	worst, worstPage := 0.0, ""
	for _, p := range pages {
		b.Navigate(s.URL + p)
		w := eval[float64](b, `document.documentElement.scrollWidth`)
		if w > worst {
			worst, worstPage = w, p
		}
		if w > float64(browser.Phone[0]) {
			b.Errorf("%s is %.0f px wide on a %d px phone", p, w, browser.Phone[0])
		}
		if strings.Count(p, "/") == 3 && strings.HasPrefix(p, "/learn/") {
			if fab := box(b, "summary.tutor-fab"); fab.Right > float64(browser.Phone[0]) {
				b.Errorf("%s: the 🤖 button ends at x=%.0f", p, fab.Right)
			}
		}
	}
	figure(t, "phone.widest_page_px", fmt.Sprintf("%.0f (%s)", worst, worstPage))
}

// On a phone the tutor is a full-screen sheet with its input at the bottom;
// closing it returns to the same place in the lesson.
func TestLayoutPhonePanelSheet(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: longAnswer}))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Viewport(browser.Phone, true)
	b.Navigate(s.URL + "/learn/networking/vlan-basics")
	b.Shot(shotsDir(), "lesson-390-"+scheme(b))
	y := eval[float64](b, `window.scrollTo({top: 1200, behavior: 'instant'}), scrollY`)
	openPanel(b)
	mid := sendQ(b, "What is a VLAN?", false)
	waitStatus(b, mid, "complete")
	panel, q := box(b, "#tutor-panel"), box(b, "#tutor-panel #q")
	figure(t, "phone.panel_box_px", fmt.Sprintf("%.0f,%.0f → %.0f,%.0f", panel.Left, panel.Top, panel.Right, panel.Bottom))
	figure(t, "phone.panel_input_bottom_px", fmt.Sprintf("%.0f of %d", q.Bottom, browser.Phone[1]))
	if panel.Top != 0 || panel.Left != 0 || panel.Right != float64(browser.Phone[0]) || panel.Bottom != float64(browser.Phone[1]) {
		b.Errorf("the phone's panel covers %.0f,%.0f → %.0f,%.0f, want the whole 390×844 screen", panel.Left, panel.Top, panel.Right, panel.Bottom)
	}
	if q.Bottom > float64(browser.Phone[1]) || q.Bottom < float64(browser.Phone[1])-120 {
		b.Errorf("the phone's panel input ends at %.0f, want it at the bottom of the %d px screen", q.Bottom, browser.Phone[1])
	}
	b.Shot(shotsDir(), "lesson-panel-390-"+scheme(b))
	b.Click("summary.tutor-fab")
	waitFor(b, "the panel closed", `!document.getElementById('tutor').open`)
	after := eval[float64](b, `scrollY`)
	figure(t, "phone.scroll_before_after_px", fmt.Sprintf("%.0f → %.0f", y, after))
	if after != y {
		b.Errorf("closing the panel moved the lesson from %.0f to %.0f", y, after)
	}
}

// The panel's list follows a streaming answer while the student is at its
// bottom; scrolled up, it stays put and offers "↓ latest".
func TestLayoutPanelFollows(t *testing.T) {
	st := streamLines(40)
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Viewport(browser.Desktop, false)
	b.Navigate(s.URL + "/learn/networking/vlan-basics")
	openPanel(b)
	chatStreamFollows(t, b, st, "panel")
}
