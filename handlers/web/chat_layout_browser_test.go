package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
	"aula/tutor"
)

// streamLines is a stepper of many short lines, so a streaming answer
// grows taller than the list while the test watches.
func streamLines(n int) *stepper {
	st := &stepper{step: make(chan struct{})}
	for i := range n {
		st.tokens = append(st.tokens, fmt.Sprintf("Line %d of the streamed answer.\n\n", i))
	}
	return st
}

// newestGap is how far the newest message's bottom is below the visible
// part of the message list (≤ 0: it is in view).
func newestGap(b *browser.Browser) float64 {
	b.T.Helper()
	return eval[float64](b, `(() => { const l = document.getElementById('messages').getBoundingClientRect();
		const m = [...document.querySelectorAll('#messages > article')].pop().getBoundingClientRect();
		return m.bottom - Math.min(l.bottom, innerHeight); })()`)
}

// expectInputInView fails unless the question input is wholly on screen.
func expectInputInView(t *testing.T, b *browser.Browser, label string) {
	t.Helper()
	q, vh := box(b, "#q"), eval[float64](b, `innerHeight`)
	figure(t, label+".input_bottom_px", fmt.Sprintf("%.0f of %.0f", q.Bottom, vh))
	if q.Top < 0 || q.Bottom > vh {
		b.Errorf("%s: the input is at %.0f…%.0f of a %.0f px window", label, q.Top, q.Bottom, vh)
	}
}

// /chat behaves like a chat at both sizes, light and dark: a thread
// opens at its newest message with the input in view; a sent question
// and its streaming answer stay in view as they grow; scrolled up, the
// list stays put and offers "↓ latest"; switching the style keeps the
// draft and the scroll.
func TestLayoutChatFollows(t *testing.T) {
	for _, tt := range []struct {
		name   string
		size   [2]int64
		mobile bool
		scheme string
	}{{"1366-light", browser.Desktop, false, "light"}, {"390-light", browser.Phone, true, "light"},
		{"1366-dark", browser.Desktop, false, "dark"}, {"390-dark", browser.Phone, true, "dark"}} {
		t.Run(tt.name, func(t *testing.T) {
			st := streamLines(40)
			s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
				if strings.HasPrefix(req.Question, "stream") {
					return st.answer(ctx, n, req, emit)
				}
				return longAnswer(ctx, n, req, emit)
			}}))
			u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
			cid := seedThread(t, s, u, 3)
			b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
			b.Viewport(tt.size, tt.mobile)
			b.ColorScheme(tt.scheme)
			b.Navigate(s.URL + "/chat/" + cid)
			b.WaitVisible("#q")
			gap := newestGap(b)
			figure(t, "chat"+tt.name+".newest_gap_px", gap)
			if gap > 1 {
				b.Errorf("the newest message ends %.0f px below the visible list", gap)
			}
			expectInputInView(t, b, "chat"+tt.name)
			b.Shot(shotsDir(), "chat-"+tt.name)
			chatStreamFollows(t, b, st, tt.name)
			chatStyleSwitch(t, b)
		})
	}
}

// chatStreamFollows sends a question answered line by line: followed at
// the bottom, left alone when scrolled up, "↓ latest" brings it back.
func chatStreamFollows(t *testing.T, b *browser.Browser, st *stepper, size string) {
	t.Helper()
	// Keep the answer's event source, to deliver one event at a chosen moment.
	eval[bool](b, `(() => { const make = htmx.createEventSource; htmx.createEventSource = url => (window.__es = make(url)); return true; })()`)
	mid := sendQ(b, "stream please", false)
	if role := eval[string](b, fmt.Sprintf(`document.getElementById('slow-%s').getAttribute('role')`, mid)); role != "status" {
		b.Errorf("the slow-answer notice has role %q, want status (a live region)", role)
	}
	for range 12 {
		st.step <- struct{}{}
	}
	waitFor(b, "twelve lines", fmt.Sprintf(`document.getElementById('body-%s').textContent.includes('Line 11 ')`, mid))
	waitFor(b, "the list following", `(() => { const l = document.getElementById('messages'); return l.scrollHeight - l.scrollTop - l.clientHeight < 24; })()`)
	gap := newestGap(b)
	figure(t, "chat"+size+".streaming_gap_px", gap)
	if gap > 1 {
		b.Errorf("while streaming, the answer ends %.0f px below the visible list", gap)
	}
	// Scroll up to reread: new lines must not move the list, not even a
	// chunk that lands before the scroll's own event (a frame later, later
	// still on a busy machine): one is delivered in the same task.
	top := eval[float64](b, `(() => { const l = document.getElementById('messages'); l.scrollTop = l.scrollHeight - l.clientHeight - 400;
		window.__es.dispatchEvent(new MessageEvent('chunk', {data: ' '})); return l.scrollTop; })()`)
	waitFor(b, "↓ latest offered", `!document.getElementById('jump-latest').hidden`)
	for range 6 {
		st.step <- struct{}{}
	}
	waitFor(b, "more lines", fmt.Sprintf(`document.getElementById('body-%s').textContent.includes('Line 17 ')`, mid))
	// Let any scroll the new lines started come to rest before measuring.
	waitFor(b, "the list at rest", `(() => { const t = document.getElementById('messages').scrollTop; const same = window.__st === t; window.__st = t; return same; })()`)
	after := eval[float64](b, `document.getElementById('messages').scrollTop`)
	figure(t, "chat"+size+".scrolled_up_moved_px", after-top)
	if after != top {
		b.Errorf("scrolled up, the list moved from %.0f to %.0f while the answer grew", top, after)
	}
	b.Shot(shotsDir(), "chat-latest-"+size)
	b.Click("#jump-latest")
	waitFor(b, "back at the newest", `(() => { const l = document.getElementById('messages'); return l.scrollHeight - l.scrollTop - l.clientHeight < 24; })()`)
	for range 22 {
		st.step <- struct{}{}
	}
	waitStatus(b, mid, "complete")
}

// chatStyleSwitch switches to guide with a draft typed: no reload, the
// draft and the list's scroll stay, and the change is announced.
func chatStyleSwitch(t *testing.T, b *browser.Browser) {
	t.Helper()
	eval[bool](b, `(window.__samePage = true)`)
	if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#q"), "a draft I keep")); err != nil {
		b.Fatalf("type: %v", err)
	}
	top := eval[float64](b, `(() => { const l = document.getElementById('messages'); l.scrollTop = 200; return l.scrollTop; })()`)
	b.Click(`button[data-style="guide"]`)
	waitFor(b, "guide pressed", `document.querySelector('button[data-style="guide"]').getAttribute('aria-pressed') === 'true'`)
	waitFor(b, "the change announced", `document.getElementById('style-status').textContent.includes('Guide me')`)
	draft, same := eval[string](b, `document.getElementById('q').value`), eval[bool](b, `window.__samePage === true`)
	after := eval[float64](b, `document.getElementById('messages').scrollTop`)
	if draft != "a draft I keep" || !same || after != top {
		b.Errorf("after switching style: draft %q, same page %v, scroll %.0f → %.0f", draft, same, top, after)
	}
}

// On a phone the thread list is a drawer: closed, the thread fills the
// screen; ☰ opens it over the thread, ✕ closes it.
func TestLayoutChatPhoneDrawer(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: longAnswer}))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	seedThread(t, s, u, 1)
	cid := seedThread(t, s, u, 2)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Viewport(browser.Phone, true)
	b.Navigate(s.URL + "/chat/" + cid)
	pane, thread := box(b, "#threads-pane"), box(b, "#thread")
	figure(t, "phone.chat_thread_height_px", thread.Height)
	if pane.Right > 0 || thread.Height < 700 {
		b.Errorf("closed drawer at %.0f…%.0f, thread %.0f px tall on an 844 px phone", pane.Left, pane.Right, thread.Height)
	}
	b.Click(".threads-toggle")
	waitFor(b, "the drawer open", `document.getElementById('threads-pane').getBoundingClientRect().left === 0`)
	b.Shot(shotsDir(), "chat-drawer-390-"+scheme(b))
	b.Click(".threads-close")
	waitFor(b, "the drawer closed", `document.getElementById('threads-pane').getBoundingClientRect().right <= 0`)
}

// An empty /chat offers the input at once; the first question creates the
// thread and opens it with the answer; the input grows with its text.
func TestLayoutChatEmptyAsks(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: echoAnswer}))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Viewport(browser.Desktop, false)
	b.Navigate(s.URL + "/chat")
	expectInputInView(t, b, "chat_empty")
	b.Shot(shotsDir(), "chat-empty-1366-"+scheme(b))
	// Lines typed with Shift+Enter; set here as the value (Enter would send).
	lines := func(n int) float64 {
		eval[bool](b, fmt.Sprintf(`(document.getElementById('q').value = %q) !== null`, strings.Repeat("a line of my question\n", n-1)+"last"))
		return box(b, "#q").Height
	}
	one, five, many := lines(1), lines(5), lines(35)
	figure(t, "chat.input_heights_px", fmt.Sprintf("%.0f → %.0f → %.0f", one, five, many))
	if five <= one || many <= five || many > 320 {
		b.Errorf("the input is %.0f, %.0f, %.0f px tall for 1, 5 and 35 lines: want it to grow up to a limit", one, five, many)
	}
	eval[bool](b, `(document.getElementById('q').value = '') === ''`)
	if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#q"), "first question")); err != nil {
		b.Fatalf("type: %v", err)
	}
	b.ClickAndWait("#send")
	if !strings.HasPrefix(b.Path(), "/chat/") {
		b.Fatalf("the first question led to %s", b.Path())
	}
	waitFor(b, "the answer", `!!document.querySelector('#messages article[data-role=assistant][data-status=complete]')`)
	if got := b.Text("#messages article.user .msg-body"); got != "first question" {
		b.Errorf("the new thread shows the question %q", got)
	}
}

// Every screen this layout changes, at the laptop and the phone size, in
// both colour schemes: none is wider than its window, and with AULA_SHOTS
// set each is saved for a person to look at.
func TestLayoutScreens(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: longAnswer}))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	s.User(t, "new@example.com", "a-long-password-1", models.PlanFree)
	cid := seedThread(t, s, u, 2)
	lesson := "/learn/networking/vlan-basics"
	screens := []struct{ name, path, open string }{
		{"lesson", lesson, ""},
		{"lesson-panel", lesson + "?tutor=open", ""},
		{"chat", "/chat/" + cid, ""},
		{"chat-drawer", "/chat/" + cid, ".threads-toggle"},
		{"catalog", "/learn", ""},
		{"settings", "/settings", ""},
		{"upgrade", "/upgrade", ""},
		{"dashboard", "/dashboard", ""},
	}
	for _, size := range []struct {
		name   string
		size   [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
		b.Viewport(size.size, size.mobile)
		for _, sc := range screens {
			if sc.open != "" && !size.mobile {
				continue
			}
			b.Navigate(s.URL + sc.path)
			if sc.open != "" {
				b.Click(sc.open)
				waitFor(b, "the drawer open", `document.getElementById('threads-pane').getBoundingClientRect().left === 0`)
			}
			for _, sch := range []string{"light", "dark"} {
				b.ColorScheme(sch)
				if w := eval[float64](b, `document.documentElement.scrollWidth`); w > float64(size.size[0]) {
					b.Errorf("%s is %.0f px wide in a %d px window", sc.name, w, size.size[0])
				}
				b.Shot(shotsDir(), sc.name+"-"+size.name+"-"+sch)
			}
		}
	}
}

// Without JavaScript on a phone: the empty /chat's input asks and opens the
// new thread with its answer, the style switch is a post that comes back,
// and ☰ opens the thread list (a :target drawer).
func TestLayoutChatWithoutJavaScript(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: echoAnswer}))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := browser.New(t, browser.WithoutJavaScript())
	b.Viewport(browser.Phone, true)
	signIn(b, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + "/chat")
	if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#q"), "first question")); err != nil {
		b.Fatalf("type: %v", err)
	}
	b.ClickAndWait("#send")
	if !strings.HasPrefix(b.Path(), "/chat/") || b.Text("#messages article.user .msg-body") != "first question" {
		b.Fatalf("the first question led to %s showing %q", b.Path(), b.Text("#messages article.user .msg-body"))
	}
	if got := b.Text("#messages article[data-role=assistant] .msg-body"); got != "Answer to: first question. Earlier: ." {
		b.Errorf("the new thread's answer shows %q", got)
	}
	b.ClickAndWait(`button[data-style="guide"]`)
	if p, _ := b.Attr(`button[data-style="guide"]`, "aria-pressed"); p != "true" {
		b.Errorf("after switching without JavaScript guide is aria-pressed=%q", p)
	}
	b.Click(".threads-toggle")
	// Without JavaScript chromedp cannot poll inside the page: poll from here.
	for deadline := time.Now().Add(browser.StepTimeout); eval[float64](b, `document.getElementById('threads-pane').getBoundingClientRect().left`) != 0; {
		if time.Now().After(deadline) {
			b.Fatalf("☰ did not open the thread list without JavaScript")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
