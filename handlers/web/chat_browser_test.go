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

// echoAnswer answers "Answer to: Q" and names each earlier user turn it was given.
func echoAnswer(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
	q, _, _ := strings.Cut(req.Question, "\n")
	var prior []string
	for _, h := range req.History {
		if h.Role == models.RoleUser {
			prior = append(prior, h.Content)
		}
	}
	return apptest.EmitAll(emit, "Answer to: ", q, ". Earlier: ", strings.Join(prior, " | "), ".")
}

// signInBrowser opens a browser (JavaScript on) signed in as email.
func signInBrowser(t *testing.T, s *apptest.Server, email, password string) *browser.Browser {
	t.Helper()
	b := browser.New(t)
	b.Navigate(s.URL + "/login")
	b.WaitVisible("#login-submit")
	b.Fill("#email", email)
	b.Fill("#password", password)
	b.ClickAndWait("#login-submit")
	if p := b.Path(); p != "/learn" {
		b.Fatalf("signed in at %s", p)
	}
	return b
}

// waitFor polls a JavaScript predicate in the page until it is true.
func waitFor(b *browser.Browser, what, expr string) {
	b.T.Helper()
	b.WaitFor(what, expr)
}

// eval runs a JavaScript expression and returns its value.
func eval[T any](b *browser.Browser, expr string) T {
	b.T.Helper()
	v, err := browser.Evaluate[T](b, expr)
	if err != nil {
		b.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// sendQ types a question into #q and sends it (Enter, or the Send button)
// and returns the id of the new answer, once its bubble is in the page.
func sendQ(b *browser.Browser, question string, enter bool) string {
	b.T.Helper()
	before := eval[int](b, `document.querySelectorAll('#messages article[data-role=assistant][id^="m-"]').length`)
	// browser.Fill's Clear fails on an empty textarea: empty it, then type.
	eval[bool](b, `(document.getElementById('q').value = '') === ''`)
	if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#q"), question)); err != nil {
		b.Fatalf("type the question: %v", err)
	}
	if enter {
		b.Click("#q")
		if err := chromedp.Do(b.Ctx, chromedp.SendKeys(chromedp.CSS("#q"), kb.Enter)); err != nil {
			b.Fatalf("press Enter: %v", err)
		}
	} else {
		b.Click("#send")
	}
	waitFor(b, "the answer bubble", fmt.Sprintf(`document.querySelectorAll('#messages article[data-role=assistant][id^="m-"]').length > %d`, before))
	id := eval[string](b, `[...document.querySelectorAll('#messages article[data-role=assistant][id^="m-"]')].pop().id`)
	return strings.TrimPrefix(id, "m-")
}

// waitStatus waits until the answer's bubble has the status.
func waitStatus(b *browser.Browser, mid, status string) {
	b.T.Helper()
	waitFor(b, "answer "+status, fmt.Sprintf(`(document.getElementById('m-%s')||{}).dataset?.status === %q`, mid, status))
}

// shownIDs is the ids of the bubbles in #messages, in page order.
func shownIDs(b *browser.Browser) []string {
	b.T.Helper()
	return eval[[]string](b, `[...document.querySelectorAll('#messages article[id^="m-"]')].map(e => e.id.slice(2) + ':' + e.dataset.role)`)
}

// expectThread checks the page shows exactly the thread's stored messages in seq order, active in the list.
func expectThread(t *testing.T, s *apptest.Server, b *browser.Browser, cid string) {
	t.Helper()
	var want []string
	for _, m := range apptest.ThreadMessages(t, s, cid) {
		want = append(want, m.ID+":"+m.Role)
	}
	if got := shownIDs(b); strings.Join(got, ",") != strings.Join(want, ",") {
		b.Fatalf("thread %s shows %v, want %v (its messages in seq order)", cid, got, want)
	}
	active := eval[[]string](b, `[...document.querySelectorAll('#threads a[aria-current="true"]')].map(a => a.id)`)
	if len(active) != 1 || active[0] != "c-"+cid {
		b.Fatalf("active in the list: %v, want c-%s", active, cid)
	}
}

// Three threads made with "New conversation" and alternated: each shows only
// its own messages in order, a follow-up is answered from its own thread's
// history; reload and signing out and in reopen the active thread; deleting
// one of three removes it and opens the most recent other.
func TestChatBrowserThreads(t *testing.T) {
	p := &apptest.Scripted{Answer: echoAnswer}
	s := apptest.New(t, apptest.WithProvider(p))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + "/chat")
	b.WaitVisible(".empty-state")

	topics := []string{"alpha goroutines", "beta channels", "gamma interfaces"}
	var cids []string
	for i, topic := range topics {
		b.ClickAndWait("#new-conversation")
		cid := strings.TrimPrefix(b.Path(), "/chat/")
		if b.Has("#c-" + cid) {
			b.Fatalf("the empty thread is listed before its first message")
		}
		mid := sendQ(b, "First about "+topic, i%2 == 0)
		waitStatus(b, mid, "complete")
		if got := b.Text("#m-" + mid + " .msg-body"); got != "Answer to: First about "+topic+". Earlier: ." {
			b.Fatalf("answer shows %q", got)
		}
		cids = append(cids, cid)
	}
	b.Reload()
	// Alternate: each thread, then a follow-up in it.
	for _, i := range []int{0, 2, 1, 0} {
		b.ClickAndWait("#c-" + cids[i])
		if b.Path() != "/chat/"+cids[i] {
			b.Fatalf("clicked thread %d, at %s", i, b.Path())
		}
		expectThread(t, s, b, cids[i])
		if got := b.Text("#thread-title"); got != "First about "+topics[i] {
			b.Fatalf("thread title %q", got)
		}
		if i == 2 || (i == 0 && len(apptest.ThreadMessages(t, s, cids[0])) == 4) {
			continue
		}
		follow := fmt.Sprintf("Follow-up %d on %s", len(p.Requests()), topics[i])
		mid := sendQ(b, follow, false)
		waitStatus(b, mid, "complete")
		// The provider got this thread's turns and no other's.
		var req tutor.Request
		for _, r := range p.Requests() {
			if r.Question == follow {
				req = r
			}
		}
		var hist []string
		for _, h := range req.History {
			hist = append(hist, h.Role+": "+h.Content)
		}
		want := []string{"user: First about " + topics[i], "assistant: Answer to: First about " + topics[i] + ". Earlier: ."}
		if strings.Join(hist, "\n") != strings.Join(want, "\n") {
			b.Fatalf("the follow-up in thread %d got history %q, want only its own turns %q", i, hist, want)
		}
		if got := b.Text("#m-" + mid + " .msg-body"); !strings.Contains(got, "Earlier: First about "+topics[i]+".") {
			b.Fatalf("the follow-up's answer %q is not from its thread", got)
		}
		expectThread(t, s, b, cids[i])
	}

	// Reload restores the active thread.
	b.ClickAndWait("#c-" + cids[1])
	b.Reload()
	expectThread(t, s, b, cids[1])
	b.Navigate(s.URL + "/chat")
	if b.Path() != "/chat/"+cids[1] {
		b.Fatalf("/chat opened %s, want the active %s", b.Path(), cids[1])
	}
	// Sign out and in: /chat opens the thread that was active.
	b.ClickAndWait("#signout")
	b.Navigate(s.URL + "/chat")
	b.Fill("#email", "ana@example.com")
	b.Fill("#password", "a-long-password-1")
	b.ClickAndWait("#login-submit")
	if b.Path() != "/chat/"+cids[1] {
		b.Navigate(s.URL + "/chat")
	}
	if b.Path() != "/chat/"+cids[1] {
		b.Fatalf("after signing in again /chat opened %s, want %s", b.Path(), cids[1])
	}
	expectThread(t, s, b, cids[1])

	// Delete the active thread (confirmation page, then POST).
	gone := apptest.ThreadMessages(t, s, cids[1])
	b.ClickAndWait("#delete-thread")
	b.WaitVisible("#confirm-delete")
	b.ClickAndWait("#confirm-delete")
	// The most recent other thread opens: thread 0 had the last follow-up.
	if b.Path() != "/chat/"+cids[0] {
		b.Fatalf("after deleting: at %s, want the most recent other thread %s", b.Path(), cids[0])
	}
	expectThread(t, s, b, cids[0])
	if b.Has("#c-"+cids[1]) || !b.Has("#c-"+cids[2]) {
		b.Fatalf("the list after deleting: deleted still shown, or the other lost")
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM conversations WHERE id = ? AND deleted_at IS NOT NULL`, cids[1]); n != 1 {
		b.Fatalf("deleted_at not set")
	}
	wc := s.SignIn(t, "ana@example.com", "a-long-password-1")
	for _, m := range gone {
		if p := wc.Get("/messages/" + m.ID + "/stream"); p.Status != 404 {
			b.Errorf("message %s of the deleted thread: %d, want 404", m.ID, p.Status)
		}
	}
	if p := wc.Get("/chat/" + cids[1]); p.Status != 404 {
		b.Errorf("the deleted thread: %d", p.Status)
	}
	for _, cid := range []string{cids[0], cids[2]} {
		if n := len(apptest.ThreadMessages(t, s, cid)); n == 0 {
			b.Errorf("thread %s lost its messages", cid)
		}
	}
}

// Text and a Markdown attachment in one thread: the bubble shows the file,
// which its owner can download and no one else; the file's text reaches
// that turn's prompt and a follow-up's.
func TestChatBrowserAttachment(t *testing.T) {
	p := &apptest.Scripted{Answer: echoAnswer}
	s := apptest.New(t, apptest.WithProvider(p))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	s.User(t, "bob@example.com", "a-long-password-2", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	file := filepath.Join(t.TempDir(), "field-notes.md")
	body := "# Field notes\n\nThe codeword is PAPAYA-42.\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Navigate(s.URL + "/chat")
	b.ClickAndWait("#new-conversation")
	cid := strings.TrimPrefix(b.Path(), "/chat/")
	mid := sendQ(b, "Hello first", false)
	waitStatus(b, mid, "complete")

	if err := chromedp.Do(b.Ctx, chromedp.SetUploadFiles(chromedp.CSS("#attachment"), []string{file})); err != nil {
		b.Fatalf("choose the file: %v", err)
	}
	mid = sendQ(b, "Summarise my notes", false)
	waitStatus(b, mid, "complete")
	msgs := apptest.ThreadMessages(t, s, cid)
	q := msgs[len(msgs)-2]
	var aid, filename, text string
	s.DB.Raw(`SELECT id, filename, extracted_text FROM attachments WHERE message_id = ?`, q.ID).Row().Scan(&aid, &filename, &text)
	if filename != "field-notes.md" || !strings.Contains(text, "PAPAYA-42") {
		b.Fatalf("stored attachment %q %q", filename, text)
	}
	if got := b.Text("#m-" + q.ID + " .attachment a"); got != "field-notes.md" {
		b.Fatalf("the question's bubble shows the file as %q", got)
	}
	href, _ := b.Attr("#m-"+q.ID+" .attachment a", "href")
	if href != "/attachments/"+aid {
		b.Fatalf("download link %q", href)
	}
	if v := eval[string](b, `document.getElementById('attachment').value`); v != "" {
		b.Errorf("the file input keeps %q after sending", v)
	}
	owner := s.SignIn(t, "ana@example.com", "a-long-password-1")
	if dl := owner.Get(href); dl.Status != 200 || dl.Body != body || !strings.Contains(dl.Header.Get("Content-Disposition"), "field-notes.md") {
		b.Errorf("owner download: %d %q %q", dl.Status, dl.Body, dl.Header.Get("Content-Disposition"))
	}
	if dl := s.SignIn(t, "bob@example.com", "a-long-password-2").Get(href); dl.Status != 404 || strings.Contains(dl.Body, "PAPAYA") {
		b.Errorf("another user's download: %d", dl.Status)
	}
	reqs := p.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(last.Question, "PAPAYA-42") || !strings.Contains(last.Question, "field-notes.md") {
		b.Fatalf("the file's text did not reach the prompt: %q", last.Question)
	}
	// A follow-up can still use it.
	mid = sendQ(b, "What was the codeword?", true)
	waitStatus(b, mid, "complete")
	reqs = p.Requests()
	follow := reqs[len(reqs)-1]
	seen := false
	for _, h := range follow.History {
		seen = seen || strings.Contains(h.Content, "PAPAYA-42")
	}
	if !seen {
		b.Fatalf("the follow-up's history does not carry the attachment's text: %+v", follow.History)
	}
	expectThread(t, s, b, cid)
}

// The slow notice appears while the provider holds the first token and
// goes when tokens flow; a failed answer shows Retry, which regenerates it
// in place; Stop (button or Escape) keeps the partial answer.
func TestChatBrowserSlowRetryStop(t *testing.T) {
	release := make(chan struct{})
	p := &apptest.Scripted{}
	p.SetAnswer(func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		switch {
		case strings.HasPrefix(req.Question, "slow"):
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
			return apptest.EmitAll(emit, "At last ", "here.")
		case strings.HasPrefix(req.Question, "break"):
			if n == 1 {
				return fmt.Errorf("upstream broke")
			}
			return apptest.EmitAll(emit, "Recovered answer.")
		case strings.HasPrefix(req.Question, "long"):
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
		}
		return emit("ok")
	})
	s := apptest.New(t, apptest.WithProvider(p))
	s.App.SlowAfter = 100 * time.Millisecond
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + "/chat")
	b.ClickAndWait("#new-conversation")

	// Slow.
	mid := sendQ(b, "slow question", false)
	waitFor(b, "the slow notice", fmt.Sprintf(`document.getElementById('slow-%s').textContent.includes('This is taking longer than usual…')`, mid))
	close(release)
	waitStatus(b, mid, "complete")
	if b.Has("#slow-"+mid) || strings.Contains(b.Text("#m-"+mid), "longer than usual") {
		b.Fatalf("the slow notice stays after the answer")
	}
	if got := b.Text("#m-" + mid + " .msg-body"); got != "At last here." {
		b.Fatalf("slow answer %q", got)
	}

	// Error, then Retry in place.
	mid = sendQ(b, "break please", false)
	waitStatus(b, mid, "failed")
	b.WaitVisible("#m-" + mid + " .answer-error button.retry")
	if m := apptest.Message(t, s, mid); m.Status != models.StatusFailed {
		b.Fatalf("stored %s", m.Status)
	}
	// Click once HTMX has wired the swapped-in form (a click in the few
	// milliseconds before that is a plain post, which lands on the page).
	waitFor(b, "the Retry form wired by HTMX", fmt.Sprintf(`!!document.querySelector('#m-%s .answer-error form')['htmx-internal-data']?.listenerInfos`, mid))
	b.Click("#m-" + mid + " .answer-error button.retry")
	waitStatus(b, mid, "complete")
	if got := b.Text("#m-" + mid + " .msg-body"); got != "Recovered answer." {
		b.Fatalf("retried answer %q", got)
	}
	if n := eval[int](b, fmt.Sprintf(`document.querySelectorAll('#m-%s').length`, mid)); n != 1 {
		b.Fatalf("%d bubbles with the retried id", n)
	}
	if m := apptest.Message(t, s, mid); m.Status != models.StatusComplete || m.Content != "Recovered answer." {
		b.Fatalf("stored after retry: %s %q", m.Status, m.Content)
	}

	// Stop with the button, then with Escape.
	for _, how := range []string{"button", "escape"} {
		mid = sendQ(b, "long answer please", false)
		waitFor(b, "some text", fmt.Sprintf(`(document.getElementById('body-%s')||{textContent:''}).textContent.includes('word2 ')`, mid))
		if how == "button" {
			b.Click("#m-" + mid + " button[data-stop]")
		} else {
			if err := chromedp.Do(b.Ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
				b.Fatalf("press Escape: %v", err)
			}
		}
		waitStatus(b, mid, "cancelled")
		m := apptest.Message(t, s, mid)
		if m.Status != models.StatusCancelled || !strings.HasPrefix(m.Content, "word0 word1 word2 ") {
			b.Fatalf("stopped with %s: stored %s %q", how, m.Status, m.Content)
		}
		shown := b.Text("#m-" + mid + " .msg-body")
		if shown != strings.TrimSpace(m.Content) {
			b.Fatalf("stopped with %s: shows %q, stored %q", how, shown, m.Content)
		}
		// No further tokens: the stored text is final and the page does not grow.
		later := apptest.Message(t, s, mid)
		if later.Content != m.Content || b.Text("#m-"+mid+" .msg-body") != shown {
			b.Fatalf("text grew after stopping")
		}
	}
}
