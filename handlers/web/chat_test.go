package web_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// askPlain asks in a thread the way a browser without JavaScript does and
// returns the page it lands on and the answer's id.
func askPlain(t testing.TB, c *webtest.Client, cid, question string) (*webtest.Page, string) {
	t.Helper()
	p := c.Submit(c.Get("/chat/"+cid), "#ask-form", map[string]string{"content": question})
	mid, ok := strings.CutPrefix(p.URL.Fragment, "m-")
	if p.Status != http.StatusOK || p.URL.Path != "/chat/"+cid || !ok {
		t.Fatalf("ask %q: status %d at %s, want /chat/%s#m-{mid}", question, p.Status, p.URL, cid)
	}
	return p, mid
}

// csrfOf is the signed-in client's CSRF token.
func csrfOf(t testing.TB, c *webtest.Client) string {
	t.Helper()
	tok := c.Get("/chat").CSRF()
	if tok == "" {
		t.Fatal("no CSRF token on /chat")
	}
	return tok
}

// Without JavaScript: a question posts, waits and lands on the finished
// answer; threads keep their own messages; a thread is deleted through its
// confirmation page; ratings post; the panel opens with ?tutor=open.
func TestChatWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")

	if p := c.Get("/chat"); p.Status != http.StatusOK || p.Doc.Find("#thread .empty-state").Length() != 1 {
		t.Fatalf("empty /chat: status %d, thread pane %q", p.Status, p.Text("#thread"))
	}

	// Three threads, two questions in the first.
	questions := [][]string{{"What is a goroutine?", "And a channel?"}, {"What is a VLAN?"}, {"How do I sign up?"}}
	var cids []string
	for _, qs := range questions {
		cid := apptest.NewThread(t, c)
		if n := apptest.Count(t, s, `SELECT count(*) FROM conversations WHERE id = ? AND next_seq = 0`, cid); n != 1 {
			t.Fatalf("a new thread is not an empty conversation row")
		}
		if c.Get("/chat/"+cid).Doc.Find("#c-"+cid).Length() != 0 {
			t.Errorf("an empty thread is listed before its first message")
		}
		for _, q := range qs {
			p, mid := askPlain(t, c, cid, q)
			m := apptest.Message(t, s, mid)
			if m.Status != models.StatusComplete || m.Content == "" || m.ConversationID != cid {
				t.Fatalf("answer %s: status %s, %d bytes, thread %s", mid, m.Status, len(m.Content), m.ConversationID)
			}
			bubble := p.Doc.Find("#m-" + mid)
			if bubble.AttrOr("data-status", "") != "complete" || bubble.AttrOr("data-role", "") != "assistant" ||
				strings.TrimSpace(bubble.Find(".msg-body").Text()) == "" {
				t.Fatalf("the page after asking does not show the finished answer #m-%s", mid)
			}
			if strings.Contains(p.Body, `http-equiv="refresh"`) {
				t.Errorf("a page with every answer finished refreshes itself")
			}
		}
		cids = append(cids, cid)
	}
	for i, cid := range cids {
		p := c.Get("/chat/" + cid)
		if cur := p.Doc.Find(`#threads a[aria-current="true"]`); cur.Length() != 1 || cur.AttrOr("id", "") != "c-"+cid {
			t.Errorf("thread %d: the active thread in the list is %q", i, cur.AttrOr("id", ""))
		}
		stored := apptest.ThreadMessages(t, s, cid)
		shown := p.Doc.Find("#messages article[id^=m-]")
		if shown.Length() != len(stored) || len(stored) != 2*len(questions[i]) {
			t.Fatalf("thread %d shows %d messages, stores %d, want %d", i, shown.Length(), len(stored), 2*len(questions[i]))
		}
		for j, m := range stored {
			if got := shown.Eq(j).AttrOr("id", ""); got != "m-"+m.ID {
				t.Errorf("thread %d message %d is %s, want m-%s (seq order)", i, j, got, m.ID)
			}
		}
		if got := p.Text("#thread-title"); got != questions[i][0] {
			t.Errorf("thread %d title %q, want the first question", i, got)
		}
	}
	// Most recent activity first.
	p := c.Get("/chat/" + cids[0])
	var order []string
	p.Doc.Find("#threads a[id^=c-]").Each(func(_ int, a *goquery.Selection) { order = append(order, a.AttrOr("id", "")) })
	if want := []string{"c-" + cids[2], "c-" + cids[1], "c-" + cids[0]}; strings.Join(order, ",") != strings.Join(want, ",") {
		t.Errorf("thread list order %v, want %v", order, want)
	}

	// /chat reopens the active thread.
	c.Get("/chat/" + cids[1])
	if p := c.Get("/chat"); p.URL.Path != "/chat/"+cids[1] {
		t.Errorf("/chat opened %s, want the active thread %s", p.URL.Path, cids[1])
	}

	// Rating: up, then down with a reason and a comment, through the forms.
	answer := apptest.ThreadMessages(t, s, cids[0])[1]
	p = c.Get("/chat/" + cids[0])
	p = c.Submit(p, `#rate-`+answer.ID+` form:has(input[value="up"])`, nil)
	if p.URL.Path != "/chat/"+cids[0] || p.URL.Fragment != "m-"+answer.ID {
		t.Errorf("rating went to %s", p.URL)
	}
	if m := apptest.Message(t, s, answer.ID); m.Rating == nil || *m.Rating != "up" {
		t.Fatalf("rating after 👍: %v", m.Rating)
	}
	if p.Doc.Find(`#rate-`+answer.ID+` .rate-up[aria-pressed="true"]`).Length() != 1 {
		t.Errorf("the page does not show the 👍 pressed")
	}
	c.Submit(p, `#rate-`+answer.ID+` form.rate-form`, map[string]string{"reason": "answer_wrong", "comment": "It is not."})
	if m := apptest.Message(t, s, answer.ID); m.Rating == nil || *m.Rating != "down" || m.RatingReason == nil ||
		*m.RatingReason != "answer_wrong" || m.RatingComment != "It is not." {
		t.Fatalf("rating after 👎: %v %v %q", m.Rating, m.RatingReason, m.RatingComment)
	}

	// Delete the middle thread through the confirmation page.
	c.Get("/chat/" + cids[1])
	confirm := c.Get("/chat/" + cids[1] + "/delete")
	if confirm.Status != http.StatusOK || confirm.Doc.Find("#confirm-delete").Length() != 1 {
		t.Fatalf("confirmation page: %d", confirm.Status)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM conversations WHERE id = ? AND deleted_at IS NULL`, cids[1]); n != 1 {
		t.Fatal("the confirmation page deleted the thread")
	}
	gone := apptest.ThreadMessages(t, s, cids[1])
	p = c.Submit(confirm, `form[action="/chat/`+cids[1]+`/delete"]`, nil)
	if p.URL.Path != "/chat/"+cids[2] {
		t.Errorf("after deleting the active thread: at %s, want the most recent other %s", p.URL.Path, cids[2])
	}
	if p.Doc.Find("#c-"+cids[1]).Length() != 0 || p.Doc.Find("#c-"+cids[0]).Length() != 1 {
		t.Errorf("the list after deleting still shows it, or lost another")
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM conversations WHERE id = ? AND deleted_at IS NOT NULL`, cids[1]); n != 1 {
		t.Errorf("deleted_at not set")
	}
	if p := c.Get("/chat/" + cids[1]); p.Status != http.StatusNotFound {
		t.Errorf("the deleted thread answers %d", p.Status)
	}
	for _, m := range gone {
		if p := c.Get("/messages/" + m.ID + "/stream"); p.Status != http.StatusNotFound {
			t.Errorf("a message of the deleted thread streams: %d", p.Status)
		}
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE conversation_id IN (?, ?)`, cids[0], cids[2]); n != 6 {
		t.Errorf("the other threads have %d messages, want 6", n)
	}
}

// The lesson panel without JavaScript: ?tutor=open opens it with the
// welcome, suggestions and the form; a question posts back to the lesson.
func TestChatLessonPanelWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	lesson := "/learn/go-basics/go-variables-types"
	if p := c.Get(lesson); p.Doc.Find("details#tutor[open]").Length() != 0 {
		t.Errorf("the panel is open before asking for it")
	}
	p := c.Get(lesson + "?tutor=open")
	if p.Doc.Find("details#tutor[open]").Length() != 1 {
		t.Fatal("?tutor=open does not open the panel")
	}
	if w := p.Text("[data-welcome]"); !strings.Contains(w, "Test") {
		t.Errorf("welcome %q does not greet the student by first name", w)
	}
	if n := p.Doc.Find("#suggestions button.suggestion").Length(); n != 3 {
		t.Errorf("%d suggestions, want 3", n)
	}
	if u := p.Doc.Find("#usage"); u.AttrOr("data-used", "") != "0" || u.AttrOr("data-limit", "") != "3" {
		t.Errorf("usage bar used=%q limit=%q", u.AttrOr("data-used", ""), u.AttrOr("data-limit", ""))
	}
	// A suggestion asks.
	sugg := p.Doc.Find("#suggestions button.suggestion").First().Text()
	p = c.Submit(p, "#suggestions form", nil)
	if p.URL.Path != lesson || p.Doc.Find("details#tutor[open]").Length() != 1 {
		t.Fatalf("after a suggestion: at %s", p.URL)
	}
	mid := strings.TrimPrefix(p.URL.Fragment, "m-")
	if m := apptest.Message(t, s, mid); m.Status != models.StatusComplete {
		t.Fatalf("suggestion answer %s", m.Status)
	}
	if !strings.Contains(p.Text("#messages article.user"), sugg) || p.Doc.Find("#m-"+mid+"[data-status=complete]").Length() != 1 {
		t.Errorf("the panel does not show the suggestion and its answer")
	}
	var mode, lessonID string
	s.DB.Raw(`SELECT c.mode, c.lesson_id FROM conversations c JOIN messages m ON m.conversation_id = c.id WHERE m.id = ?`, mid).Row().Scan(&mode, &lessonID)
	if mode != models.ModeLesson || lessonID != "go-variables-types" {
		t.Errorf("the panel's question is in a %s thread on %q", mode, lessonID)
	}
	if u := p.Doc.Find("#usage"); u.AttrOr("data-used", "") != "1" {
		t.Errorf("usage bar after a question: used=%q", u.AttrOr("data-used", ""))
	}
}

// A page with an answer still being written refreshes itself without JavaScript.
func TestChatUnfinishedAnswerRefreshes(t *testing.T) {
	release := make(chan struct{})
	p := &apptest.Scripted{Answer: func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		if err := emit("Half "); err != nil {
			return err
		}
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		return emit("and the rest.")
	}}
	s := apptest.New(t, apptest.WithProvider(p))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "Explain slices"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	page := c.Get("/chat/" + cid)
	if page.Doc.Find(`noscript meta[http-equiv="refresh"]`).Length() != 1 && !strings.Contains(page.Body, `<noscript><meta http-equiv="refresh"`) {
		t.Errorf("a page with an unfinished answer has no <noscript> refresh")
	}
	if page.Doc.Find("#m-"+mid).AttrOr("data-status", "") != "streaming" {
		t.Errorf("the unfinished answer is not shown as streaming")
	}
	close(release)
	if _, err := s.Tutor.Streams().Wait(context.Background(), u.ID, mid); err != nil {
		t.Fatal(err)
	}
	page = c.Get("/chat/" + cid)
	if strings.Contains(page.Body, `http-equiv="refresh"`) {
		t.Errorf("the page still refreshes after the answer finished")
	}
	if got := page.Text("#m-" + mid + " .msg-body"); got != "Half and the rest." {
		t.Errorf("finished answer shows %q", got)
	}
}

// Bad input is refused with a clear message and status, and nothing is
// stored: no message, no attachment, no question counted, no rating lost.
func TestChatBadInput(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanStarter)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	_, mid := askPlain(t, c, cid, "What is a goroutine?")
	tok := csrfOf(t, c)
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0}, 64)...)
	big := bytes.Repeat([]byte("a line of text\n"), (5<<20)/15+10)
	huge := bytes.Repeat([]byte("x"), 7<<20)
	cases := []struct {
		name    string
		content string
		file    string
		data    []byte
		status  int
		message string
	}{
		{"empty", "", "", nil, http.StatusUnprocessableEntity, "Write a question first."},
		{"whitespace", " \n\t  ", "", nil, http.StatusUnprocessableEntity, "Write a question first."},
		{"too long", strings.Repeat("é", 4001), "", nil, http.StatusUnprocessableEntity, "at most 4,000 characters (this one has 4001)"},
		{"file over 5 MB", "Read this", "notes.txt", big, http.StatusRequestEntityTooLarge, "larger than 5 MB"},
		{"body over the limit", "Read this", "notes.txt", huge, http.StatusRequestEntityTooLarge, ""},
		{"png named .txt", "Read this", "notes.txt", png, http.StatusUnprocessableEntity, "That kind of file is not accepted"},
	}
	for _, tc := range cases {
		for _, hx := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/htmx=%v", tc.name, hx), func(t *testing.T) {
				msgs := apptest.Count(t, s, `SELECT count(*) FROM messages`)
				files := apptest.Count(t, s, `SELECT count(*) FROM attachments`)
				used := apptest.Count(t, s, `SELECT coalesce(sum(questions), 0) FROM plan_usage`)
				p := apptest.PostMultipart(t, c, "/chat/"+cid+"/messages", map[string]string{"_csrf": tok, "content": tc.content}, tc.file, tc.data, hx)
				if p.Status != tc.status {
					t.Fatalf("status %d, want %d; body %.300s", p.Status, tc.status, p.Body)
				}
				if tc.message != "" && !strings.Contains(p.Body, tc.message) {
					t.Errorf("the answer does not say %q: %.400s", tc.message, p.Body)
				}
				if !hx && tc.message != "" && !strings.Contains(p.Text("#ask-error"), tc.message) {
					t.Errorf("the page does not show the message under the input: %q", p.Text("#ask-error"))
				}
				if !hx && tc.message != "" && tc.content != "" && strings.TrimSpace(tc.content) != "" &&
					p.Doc.Find("#q").Text() != tc.content {
					t.Errorf("the typed question is not kept in the input")
				}
				if n := apptest.Count(t, s, `SELECT count(*) FROM messages`); n != msgs {
					t.Errorf("messages %d → %d", msgs, n)
				}
				if n := apptest.Count(t, s, `SELECT count(*) FROM attachments`); n != files {
					t.Errorf("attachments %d → %d", files, n)
				}
				if n := apptest.Count(t, s, `SELECT coalesce(sum(questions), 0) FROM plan_usage`); n != used {
					t.Errorf("questions counted %d → %d", used, n)
				}
			})
		}
	}

	// Ratings that are not up or down change nothing, not even clear an existing one.
	if p := c.Post("/messages/"+mid+"/rate", url.Values{"_csrf": {tok}, "rating": {"up"}}); p.Status != http.StatusOK {
		t.Fatalf("rate up: %d", p.Status)
	}
	for _, v := range []string{"sideways", "", "UP", "down "} {
		t.Run("rating "+strconvQuote(v), func(t *testing.T) {
			p := c.Post("/messages/"+mid+"/rate", url.Values{"_csrf": {tok}, "rating": {v}})
			if p.Status != http.StatusUnprocessableEntity {
				t.Errorf("status %d, want 422", p.Status)
			}
			if m := apptest.Message(t, s, mid); m.Rating == nil || *m.Rating != "up" {
				t.Errorf("the refused rating changed the stored one to %v", m.Rating)
			}
		})
	}
	// The user's own question cannot be rated.
	q := apptest.ThreadMessages(t, s, cid)[0]
	if p := c.Post("/messages/"+q.ID+"/rate", url.Values{"_csrf": {tok}, "rating": {"up"}}); p.Status != http.StatusUnprocessableEntity {
		t.Errorf("rating a question: %d", p.Status)
	}
	if m := apptest.Message(t, s, q.ID); m.Rating != nil {
		t.Errorf("a question got a rating")
	}
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }
