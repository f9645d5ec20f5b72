package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/internal/fakellm"
	"aula/models"
	"aula/tutor"
)

// passageServer is the site with the tutor answering through the fake
// OpenAI server, and a student on the lesson page.
func passageServer(t *testing.T) (*apptest.Server, *fakellm.Server, *browser.Browser) {
	t.Helper()
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: []string{"It", " declares", " and", " assigns", "."}})
	s := apptest.New(t, func(c *tutor.Config) {
		c.NewProvider = nil
		c.Credentials = tutor.Credentials{OpenAIKey: "k", OpenAIBaseURL: srv.URL}
	})
	if err := s.DB.Exec(`UPDATE ai_routes SET provider = 'openai', model = 'm1' WHERE use_case = 'tutor_chat'`).Error; err != nil {
		t.Fatal(err)
	}
	s.User(t, "lucia@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "lucia@example.com", "a-long-password-1")
	b.Navigate(s.URL + passageLessonURL)
	b.WaitVisible("summary.tutor-fab")
	waitFor(b, "passage.js", `typeof document.getElementById('passage-quote')?.dataset.askLabel === 'string'`)
	return s, srv, b
}

// sentenceJS is the lesson paragraph the tests select, as a JavaScript expression.
const sentenceJS = `[...document.querySelectorAll('#lesson .prose p')].find(p => p.textContent.startsWith('Inside functions'))`

// dragSelect selects the paragraph with the mouse, from its first
// character to its last, and returns the selection's rectangle.
func dragSelect(b *browser.Browser) [4]float64 {
	b.T.Helper()
	eval[bool](b, sentenceJS+`.scrollIntoView({block: 'center'}) === undefined`)
	pts := eval[[]float64](b, `(() => { const p = `+sentenceJS+`; const r = document.createRange(); r.selectNodeContents(p);
		const rs = r.getClientRects(); const a = rs[0], z = rs[rs.length - 1];
		return [a.left + 1, a.top + a.height / 2, z.right - 1, z.top + z.height / 2]; })()`)
	if err := chromedp.Do(b.Ctx,
		chromedp.MouseEvent("mousePressed", pts[0], pts[1], chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent("mouseMoved", (pts[0]+pts[2])/2, pts[3], chromedp.ButtonLeft, held),
		chromedp.MouseEvent("mouseMoved", pts[2], pts[3], chromedp.ButtonLeft, held),
		chromedp.MouseEvent("mouseReleased", pts[2], pts[3], chromedp.ButtonLeft, chromedp.ClickCount(1)),
	); err != nil {
		b.Fatalf("drag over the sentence: %v", err)
	}
	waitFor(b, "the Ask the tutor button", `!!document.getElementById('ask-passage') && !document.getElementById('ask-passage').hidden`)
	return selectionRect(b)
}

// held marks a mouse move made with the left button down (a drag).
func held(p *input.DispatchMouseEventParams) { p.Buttons = 1 }

func selectionRect(b *browser.Browser) [4]float64 {
	b.T.Helper()
	r := eval[[]float64](b, `(() => { const r = getSelection().getRangeAt(0).getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()`)
	return [4]float64{r[0], r[1], r[2], r[3]}
}

// Selecting a sentence of a lesson with the mouse shows "Ask the tutor"
// just under the selection; it opens the panel with the passage quoted,
// and the question reaches the model (the fake OpenAI server) with the
// passage first, the receipt citing the passage's section.
func TestPassageBrowserMouse(t *testing.T) {
	s, srv, b := passageServer(t)
	sel := dragSelect(b)
	selected := eval[string](b, `getSelection().toString().trim()`)
	if !strings.HasPrefix(selected, "Inside functions") {
		b.Fatalf("selected %q", selected)
	}
	btn := eval[[]float64](b, `(() => { const r = document.getElementById('ask-passage').getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()`)
	if btn[1] < sel[3] || btn[1]-sel[3] > 24 || btn[0] < sel[0]-1 || btn[0] > sel[2] {
		b.Fatalf("the button at %v is not just under the selection %v", btn, sel)
	}
	// Its icon is an SVG, not an emoji (an empty box without an emoji font).
	if ok := eval[bool](b, `(a => { const s = a.querySelector('svg'), r = s && s.getBoundingClientRect();
		return !!r && r.width >= 8 && r.height >= 8 && !/[\u{1F000}-\u{10FFFF}]/u.test(a.textContent); })(document.getElementById('ask-passage'))`); !ok {
		b.Errorf("the Ask the tutor button has no visible SVG icon, or shows an emoji: %q", b.Text("#ask-passage"))
	}
	if live := b.Text("#passage-status"); !strings.Contains(live, "Alt+Shift+A") {
		b.Fatalf("the selection is announced as %q", live)
	}

	b.Click("#ask-passage")
	waitFor(b, "the panel open with the quote", `document.getElementById('tutor').open && !document.getElementById('passage-quote').hidden`)
	if q := b.Text("#passage-text"); q != selected {
		b.Fatalf("the panel quotes %q, want %q", q, selected)
	}
	if v, _ := b.Attr("#passage", "value"); eval[string](b, `document.getElementById('passage').value`) != selected {
		b.Fatalf("the form field holds %q", v)
	}
	if eval[bool](b, `!document.getElementById('ask-passage').hidden`) {
		b.Fatalf("the button stays after asking")
	}
	mid := sendQ(b, "Why the colon?", false)
	waitStatus(b, mid, "complete")
	waitFor(b, "the quote cleared", `document.getElementById('passage-quote') === null || document.getElementById('passage-quote').hidden`)

	req, ok := srv.LastRequest()
	if !ok {
		b.Fatalf("the fake provider received nothing")
	}
	quoteAt, lessonAt := strings.Index(req.System, "> "+selected), strings.Index(req.System, "## Lesson:")
	if quoteAt < 0 || lessonAt < 0 || quoteAt > lessonAt {
		b.Fatalf("the passage must come first (at %d, lesson at %d):\n%s", quoteAt, lessonAt, req.System)
	}
	var anchor string
	s.DB.Raw(`SELECT anchor FROM lesson_chunks WHERE lesson_id = 'go-variables-types' AND text LIKE '%short variable declaration%' ORDER BY position LIMIT 1`).Scan(&anchor)
	if r := tutor.ParseReceipt(apptest.Message(t, s, mid).Metadata); r.Passage == nil || r.Passage.Anchor != anchor || anchor == "" {
		b.Fatalf("receipt passage %+v, want section %q", r.Passage, anchor)
	}
	if href := eval[string](b, fmt.Sprintf(`document.querySelector('#m-%s .citations.cited a')?.getAttribute('href') || ''`, mid)); href != "#"+anchor {
		b.Fatalf("the receipt cites %q first, want #%s", href, anchor)
	}
	if q := b.Text("#tutor-panel article.user blockquote.passage-text"); !strings.Contains(q, selected) {
		b.Fatalf("the question's bubble quotes %q", q)
	}
}

// A keyboard user: a selection made with the keyboard (caret browsing's
// Shift+Ctrl+→) is announced with the shortcut; Alt+Shift+A opens the
// panel with the quote and puts the cursor in the question; the button
// itself is a focusable button that Enter presses; the quote can be removed.
func TestPassageBrowserKeyboard(t *testing.T) {
	_, srv, b := passageServer(t)
	// Headless Chromium has no caret browsing: Selection.modify is the
	// primitive its keys use, with the same selection events.
	eval[bool](b, `(() => { const p = `+sentenceJS+`; p.scrollIntoView({block: 'center'});
		const s = getSelection(); s.collapse(p.firstChild, 0);
		for (let i = 0; i < 3; i++) s.modify('extend', 'forward', 'word'); return true; })()`)
	waitFor(b, "the Ask the tutor button", `!!document.getElementById('ask-passage') && !document.getElementById('ask-passage').hidden`)
	selected := eval[string](b, `getSelection().toString().trim()`)
	if !strings.HasPrefix(selected, "Inside functions") || len(selected) > 40 {
		b.Fatalf("the keyboard selected %q", selected)
	}
	if live := b.Text("#passage-status"); !strings.Contains(live, "Alt+Shift+A") {
		b.Fatalf("the selection is announced as %q", live)
	}
	if ks, _ := b.Attr("#ask-passage", "aria-keyshortcuts"); ks != "Alt+Shift+A" {
		b.Fatalf("aria-keyshortcuts %q", ks)
	}
	if err := chromedp.Do(b.Ctx, chromedp.KeyEvent("A", chromedp.KeyModifiers(chromedp.ModifierAlt, chromedp.ModifierShift))); err != nil {
		b.Fatalf("key: %v", err)
	}
	waitFor(b, "the panel open with the quote", `document.getElementById('tutor').open && !document.getElementById('passage-quote').hidden`)
	if q := b.Text("#passage-text"); q != selected {
		b.Fatalf("the panel quotes %q, want %q", q, selected)
	}
	if id := eval[string](b, `document.activeElement.id`); id != "q" {
		b.Fatalf("focus is on %q after asking, want the question input", id)
	}
	mid := sendQ(b, "What does it do?", true)
	waitStatus(b, mid, "complete")
	if req, _ := srv.LastRequest(); !strings.Contains(req.System, "> "+selected) {
		b.Fatalf("the question went without its passage:\n%s", req.System)
	}

	// The button takes focus and Enter presses it; the quote can be removed.
	eval[bool](b, `(() => { const r = document.createRange(); r.selectNodeContents(`+sentenceJS+`);
		getSelection().removeAllRanges(); getSelection().addRange(r); return true; })()`)
	waitFor(b, "the Ask the tutor button", `!document.getElementById('ask-passage').hidden`)
	eval[bool](b, `(document.getElementById('ask-passage').focus(), document.activeElement.id === 'ask-passage')`)
	if err := chromedp.Do(b.Ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		b.Fatalf("key: %v", err)
	}
	waitFor(b, "the quote", `document.getElementById('passage').value.startsWith('Inside functions, the short')`)
	b.Click("#passage-remove")
	if eval[bool](b, `!document.getElementById('passage-quote').hidden || document.getElementById('passage').value !== ''`) {
		b.Fatalf("the quote was not removed")
	}
}
