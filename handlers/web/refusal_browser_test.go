package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// typeQ puts text into the question input without sending it.
func typeQ(b *browser.Browser, text string) {
	b.T.Helper()
	eval[bool](b, fmt.Sprintf(`(document.getElementById('q').value = %q) !== null`, text))
}

// expectKept checks that a refused question is explained under the input
// and that its text (and its file, when one was chosen) are still there.
func expectKept(b *browser.Browser, what, wantError, wantText string, files int) {
	b.T.Helper()
	waitFor(b, what+": the refusal under the input", fmt.Sprintf(`document.getElementById('ask-error').textContent.includes(%q)`, wantError))
	if got := eval[string](b, `document.getElementById('q').value`); got != wantText {
		b.Fatalf("%s: the input holds %q, want %q", what, got, wantText)
	}
	if n := eval[int](b, `(document.getElementById('attachment')||{files:[]}).files.length`); n != files {
		b.Fatalf("%s: %d files chosen after the refusal, want %d", what, n, files)
	}
	if n := eval[int](b, `document.querySelectorAll('#messages .error-page').length`); n != 0 {
		b.Fatalf("%s: an error page was drawn into the messages", what)
	}
}

// Every refusal of a question is shown under the input in the user's
// language, keeping the text and the file: a binary file named .txt, a
// body over the server's limit (its error page), an empty question, one
// over the length limit, and the service shutting down (503); Retry says
// it is working, then that it failed again.
func TestBrowserRefusalsKeepTheQuestion(t *testing.T) {
	p := &apptest.Scripted{}
	p.SetAnswer(func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		if strings.HasPrefix(req.Question, "break") {
			return fmt.Errorf("upstream broke")
		}
		return emit("ok")
	})
	s := apptest.New(t, apptest.WithProvider(p))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	u := s.User(t, "eva@example.com", "a-long-password-2", models.PlanPro)
	s.DB.Exec(`UPDATE users SET locale = 'es' WHERE id = ?`, u.ID)
	huge := filepath.Join(t.TempDir(), "huge.txt")
	if err := os.WriteFile(huge, []byte(strings.Repeat("x", 7<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(binary, []byte{0x7f, 'E', 'L', 'F', 0, 0, 1, 2, 0xff, 0xfe, 0}, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		lang, email, password, fileErr, hugeErr, emptyErr, longErr string
	}{
		{"en", "ana@example.com", "a-long-password-1", "That kind of file is not accepted", "That is too large", "Write a question first.", "at most 4,000 characters"},
		{"es", "eva@example.com", "a-long-password-2", "Ese tipo de archivo no se acepta", "Es demasiado grande", "Escribe primero una pregunta.", "como máximo 4.000 caracteres"},
	} {
		b := signInBrowser(t, s, tc.email, tc.password)
		b.Navigate(s.URL + "/chat")
		b.ClickAndWait("#new-conversation")
		if ph, _ := b.Attr("#q", "placeholder"); !strings.Contains(ph, "Enter") {
			b.Fatalf("%s: with JavaScript the placeholder %q does not say what Enter does", tc.lang, ph)
		}

		if err := chromedp.Do(b.Ctx, chromedp.SetUploadFiles(chromedp.CSS("#attachment"), []string{binary})); err != nil {
			b.Fatalf("choose the file: %v", err)
		}
		typeQ(b, "What is in my notes?")
		b.Click("#send")
		expectKept(b, tc.lang+" binary .txt", tc.fileErr, "What is in my notes?", 1)
		// Past the server's body limit the answer is its error page, not
		// drawn into the messages but explained under the input.
		if err := chromedp.Do(b.Ctx, chromedp.SetUploadFiles(chromedp.CSS("#attachment"), []string{huge})); err != nil {
			b.Fatalf("choose the file: %v", err)
		}
		b.Click("#send")
		expectKept(b, tc.lang+" body limit", tc.hugeErr, "What is in my notes?", 1)
		eval[bool](b, `(document.getElementById('attachment').value = '') === ''`)

		typeQ(b, "   ")
		b.Click("#send")
		expectKept(b, tc.lang+" empty", tc.emptyErr, "   ", 0)

		long := strings.Repeat("a", 4001)
		typeQ(b, long)
		b.Click("#send")
		expectKept(b, tc.lang+" too long", tc.longErr, long, 0)

		// Sent again, it goes, and the error goes with the text.
		mid := sendQ(b, "A fine question", false)
		waitStatus(b, mid, "complete")
		if got := b.Text("#ask-error"); got != "" {
			b.Fatalf("%s: the old refusal %q stays after a good send", tc.lang, got)
		}
	}

	// Retry shows it is working; failing again, it says so.
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + "/chat")
	b.ClickAndWait("#new-conversation")
	mid := sendQ(b, "break please", false)
	waitStatus(b, mid, "failed")
	waitFor(b, "the Retry form wired by HTMX", fmt.Sprintf(`!!(document.querySelector('#m-%s .answer-error form')||{})['htmx-internal-data']?.listenerInfos`, mid))
	// Record what the Retry button says while its request is out.
	eval[bool](b, fmt.Sprintf(`(window.__busy = [], new MutationObserver(() => { const r = document.querySelector('#m-%s button.retry'); if (r) window.__busy.push(r.textContent + '|' + r.disabled) }).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true}), true)`, mid))
	b.Click("#m-" + mid + " .answer-error button.retry")
	waitStatus(b, mid, "failed")
	waitFor(b, "the failed-again note", fmt.Sprintf(`(document.querySelector('#m-%s .retry-again:not([hidden])')||{textContent:''}).textContent === 'It failed again.'`, mid))
	if busy := eval[[]string](b, `window.__busy`); len(busy) == 0 || busy[0] != "Retrying…|true" {
		b.Fatalf("while retrying the button showed %q", busy)
	}

	// The service going away: the question and the retry are refused with
	// 503, explained in the user's language, and the question is kept.
	waitFor(b, "the Retry form wired again", fmt.Sprintf(`!!(document.querySelector('#m-%s .answer-error form')||{})['htmx-internal-data']?.listenerInfos`, mid))
	es := signInBrowser(t, s, "eva@example.com", "a-long-password-2")
	es.Navigate(s.URL + "/chat")
	es.ClickAndWait("#new-conversation")
	s.Tutor.Close()
	typeQ(b, "Are you there?")
	b.Click("#send")
	expectKept(b, "503", "aula is restarting; try again in a moment.", "Are you there?", 0)
	b.Click("#m-" + mid + " .answer-error button.retry")
	waitFor(b, "the retry refusal", fmt.Sprintf(`(document.querySelector('#m-%s .retry-again')||{textContent:''}).textContent.startsWith('The retry failed again.')`, mid))
	if got := b.Text("#m-" + mid + " button.retry"); !strings.Contains(got, "Retry") {
		b.Fatalf("after the refusal the button reads %q", got)
	}
	typeQ(es, "¿Estás ahí?")
	es.Click("#send")
	expectKept(es, "503 es", "aula se está reiniciando; inténtalo en un momento.", "¿Estás ahí?", 0)
}

// While an answer is written Send is Stop (and stops it); a question sent
// meanwhile with Enter waits and goes once the answer has ended.
func TestBrowserSendBecomesStop(t *testing.T) {
	p := &apptest.Scripted{}
	p.SetAnswer(func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		if !strings.HasPrefix(req.Question, "long") {
			return emit("short answer")
		}
		for i := 0; ; i++ {
			if err := emit(fmt.Sprintf("word%d ", i)); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	s := apptest.New(t, apptest.WithProvider(p))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + "/chat")
	b.ClickAndWait("#new-conversation")
	cid := strings.TrimPrefix(b.Path(), "/chat/")

	first := sendQ(b, "long one", false)
	waitFor(b, "Send to become Stop", `document.getElementById('send').dataset.mode === 'stop' && document.getElementById('send').textContent === '■ Stop'`)
	// Stop reads at WCAG AA in both schemes (it was red on lavender in dark).
	for _, scheme := range []string{"dark", "light"} {
		b.ColorScheme(scheme)
		if c := worstContrast(b, "#send"); c.N != 1 || c.Ratio < 4.5 {
			b.Errorf("Stop in %s: contrast %.2f:1 (%s), want at least 4.5:1", scheme, c.Ratio, c.What)
		}
	}
	// A second question with Enter waits for the first answer.
	if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#q"), "and then?"+kb.Enter)); err != nil {
		b.Fatalf("type and Enter: %v", err)
	}
	waitFor(b, "the queued note", `document.getElementById('ask-error').textContent.includes('will be sent when this answer ends')`)
	if n := len(apptest.ThreadMessages(t, s, cid)); n != 2 {
		b.Fatalf("%d messages stored while the first answer streams, want 2", n)
	}
	waitFor(b, "the answer's Stop wired by HTMX", fmt.Sprintf(`!!(document.querySelector('#m-%s form.stop-form')||{})['htmx-internal-data']?.listenerInfos`, first))
	b.Click("#send") // Stop
	waitStatus(b, first, "cancelled")
	waitFor(b, "the queued question to go", `document.querySelectorAll('#messages article[data-role=assistant][id^="m-"]').length === 2`)
	second := strings.TrimPrefix(eval[string](b, `[...document.querySelectorAll('#messages article[data-role=assistant][id^="m-"]')].pop().id`), "m-")
	waitStatus(b, second, "complete")
	waitFor(b, "Send again", `document.getElementById('send').dataset.mode === undefined && document.getElementById('send').textContent === 'Send'`)
	msgs := apptest.ThreadMessages(t, s, cid)
	if len(msgs) != 4 || msgs[2].Content != "and then?" || msgs[1].Status != models.StatusCancelled {
		b.Fatalf("stored thread %+v", msgs)
	}
}
