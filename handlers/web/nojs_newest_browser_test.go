package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
	"aula/tutor"
	"aula/urls"
)

// screen is one window size the layout is checked at.
type screen struct {
	name   string
	size   [2]int64
	mobile bool
}

// screens are the laptop and the phone of internal/browser.
func screens() []screen {
	return []screen{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}}
}

// heldLong answers like longAnswer, except that an answer to a question
// starting "hold" stops after its first paragraph until release is closed.
func heldLong(release chan struct{}) *apptest.Scripted {
	return &apptest.Scripted{Answer: func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		if !strings.HasPrefix(req.Question, "hold") {
			return longAnswer(ctx, n, req, emit)
		}
		if err := emit("The first paragraph of an answer still being written.\n\n"); err != nil {
			return err
		}
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		return emit("And its end.")
	}}
}

// threadPages seeds, for the student u, a /chat thread and a lesson
// session of three long answers each, and returns the page of each:
// "chat" and "panel".
func threadPages(t *testing.T, s *apptest.Server, u *models.User) map[string]string {
	t.Helper()
	return map[string]string{
		"chat":  urls.Thread(seedThread(t, s, u, 3)),
		"panel": urls.LessonPanelQuery("networking", "vlan-basics", seedConversation(t, s, u, models.ModeLesson, "vlan-basics", 3)),
	}
}

// listView is where the newest message is against the visible part of
// the message list (the list's box within the window).
type listView struct{ Top, Bottom, ListTop, ListBottom float64 }

// newestInView measures the thread's newest message against the list.
func newestInView(b *browser.Browser) listView {
	b.T.Helper()
	return eval[listView](b, `(() => { const w = document.querySelector('.messages-wrap').getBoundingClientRect();
		const m = [...document.querySelectorAll('#messages > article')].pop().getBoundingClientRect();
		return {Top: m.top, Bottom: m.bottom, ListTop: Math.max(w.top, 0), ListBottom: Math.min(w.bottom, innerHeight)}; })()`)
}

// expectNewest fails unless the end of the newest message (its newest
// text) is on screen inside the list, with at least 40 px of it shown.
func expectNewest(t *testing.T, b *browser.Browser, label string) {
	t.Helper()
	v := newestInView(b)
	figure(t, label+".newest_bottom_px", fmt.Sprintf("%.0f in the list's %.0f…%.0f", v.Bottom, v.ListTop, v.ListBottom))
	if v.Bottom > v.ListBottom+1 || v.Bottom-max(v.Top, v.ListTop) < 40 {
		b.Errorf("%s: the newest message spans %.0f…%.0f, the list shows %.0f…%.0f: it is not in view",
			label, v.Top, v.Bottom, v.ListTop, v.ListBottom)
	}
}

// waitRefreshed waits, without JavaScript in the page, until the page's
// own refresh has replaced the document marked by markDocument.
func waitRefreshed(b *browser.Browser, what string) {
	b.T.Helper()
	for deadline := time.Now().Add(browser.StepTimeout); ; time.Sleep(50 * time.Millisecond) {
		if v, err := browser.Evaluate[bool](b, `window.__aulaMark === undefined && document.readyState === 'complete'`); err == nil && v {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s: the page did not refresh itself", what)
		}
	}
}

// shotSchemes saves the window in dark and in light (AULA_SHOTS), and
// leaves the page light.
func shotSchemes(b *browser.Browser, name string) {
	b.T.Helper()
	if shotsDir() == "" {
		return
	}
	for _, sch := range []string{"dark", "light"} {
		b.ColorScheme(sch)
		b.Shot(shotsDir(), name+"-"+sch)
	}
}

// markDocument marks the document shown, so waitRefreshed sees it go.
func markDocument(b *browser.Browser) {
	b.T.Helper()
	eval[bool](b, `(window.__aulaMark = true)`)
}

// Without JavaScript a thread, in /chat and in the lesson panel, opens at
// its newest message, and so does every refresh of the page while an
// answer is written and the last one, with the answer whole: at 1366×900
// and 390×844.
func TestLayoutNoJSThreadOpensAtNewest(t *testing.T) {
	for _, where := range []string{"chat", "panel"} {
		t.Run(where, func(t *testing.T) {
			release := make(chan struct{})
			s := apptest.New(t, apptest.WithProvider(heldLong(release)))
			u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
			page := threadPages(t, s, u)[where]
			cid := strings.TrimPrefix(page, "/chat/")
			if where == "panel" {
				_, cid, _ = strings.Cut(page, "session=")
			}
			res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "hold: and trunks?"})
			if err != nil {
				t.Fatal(err)
			}
			b := browser.New(t, browser.WithoutJavaScript())
			signIn(b, s, "ana@example.com", "a-long-password-1")
			for _, sc := range screens() {
				b.Viewport(sc.size, sc.mobile)
				b.Navigate(s.URL + page)
				expectNewest(t, b, where+"."+sc.name+".load")
				markDocument(b)
				waitRefreshed(b, where)
				expectNewest(t, b, where+"."+sc.name+".refresh")
				shotSchemes(b, "nojs-newest-"+where+"-"+sc.name)
			}
			close(release)
			if _, err := s.Tutor.Streams().Wait(context.Background(), u.ID, res.AssistantMessage.ID); err != nil {
				t.Fatal(err)
			}
			done := `#m-` + res.AssistantMessage.ID + `[data-status="complete"]`
			for deadline := time.Now().Add(browser.StepTimeout); !b.Has(done); time.Sleep(100 * time.Millisecond) {
				if time.Now().After(deadline) {
					b.Fatalf("%s: the page did not refresh to the finished answer", where)
				}
			}
			expectNewest(t, b, where+".finished")
		})
	}
}
