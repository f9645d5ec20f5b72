package web_test

// Browser journeys across reloads and in the lesson panel.

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

// Reload mid-answer shows the text so far and continues, nothing lost or
// doubled; switching threads mid-answer never shows its tokens elsewhere,
// and the answer is complete on returning.
func TestChatBrowserReloadAndSwitchMidAnswer(t *testing.T) {
	st := &stepper{tokens: []string{"Alpha ", "beta ", "gamma ", "delta ", "ZEBRA-TOKEN ", "omega."}, step: make(chan struct{})}
	p := &apptest.Scripted{}
	p.SetAnswer(func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		if strings.HasPrefix(req.Question, "stream") {
			return st.answer(ctx, n, req, emit)
		}
		return emit("Other thread answer.")
	})
	s := apptest.New(t, apptest.WithProvider(p))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Navigate(s.URL + "/chat")
	b.ClickAndWait("#new-conversation")
	other := strings.TrimPrefix(b.Path(), "/chat/")
	waitStatus(b, sendQ(b, "in the other thread", false), "complete")
	b.ClickAndWait("#new-conversation")
	cid := strings.TrimPrefix(b.Path(), "/chat/")
	mid := sendQ(b, "stream me", false)
	body := fmt.Sprintf(`document.getElementById('body-%s').textContent`, mid)
	st.step <- struct{}{}
	st.step <- struct{}{}
	waitFor(b, "two tokens", body+` === 'Alpha beta '`)

	b.Reload()
	waitFor(b, "the text so far after reload", body+` === 'Alpha beta '`)
	st.step <- struct{}{}
	waitFor(b, "the next token", body+` === 'Alpha beta gamma '`)
	st.step <- struct{}{}
	waitFor(b, "the next token", body+` === 'Alpha beta gamma delta '`)

	// Switch threads mid-answer; a token arrives meanwhile.
	b.ClickAndWait("#c-" + other)
	expectThread(t, s, b, other)
	sub, err := s.Tutor.Streams().Subscribe(context.Background(), u.ID, mid, len("Alpha beta gamma delta "))
	if err != nil {
		t.Fatal(err)
	}
	st.step <- struct{}{}
	if text, _, _, err := sub.Next(context.Background()); err != nil || text != "ZEBRA-TOKEN " {
		t.Fatalf("the hub got %q %v", text, err)
	}
	sub.Close()
	if strings.Contains(b.Text("body"), "ZEBRA") || b.Has("#m-"+mid) {
		b.Fatalf("the other thread shows the streaming answer's tokens")
	}
	expectThread(t, s, b, other)
	st.step <- struct{}{}
	final, err := s.Tutor.Streams().Wait(context.Background(), u.ID, mid)
	if err != nil {
		t.Fatal(err)
	}
	if final.Content != "Alpha beta gamma delta ZEBRA-TOKEN omega." {
		t.Fatalf("stored %q", final.Content)
	}
	b.ClickAndWait("#c-" + cid)
	waitStatus(b, mid, "complete")
	if got := b.Text("#m-" + mid + " .msg-body"); got != final.Content {
		b.Fatalf("returning shows %q, stored %q", got, final.Content)
	}
	expectThread(t, s, b, cid)

	// Reload during a fresh answer, then let it finish while the page is
	// live: the final text equals the stored content exactly.
	st2 := &stepper{tokens: []string{"one ", "two ", "three ", "four."}, step: make(chan struct{})}
	p.SetAnswer(func(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
		return st2.answer(ctx, n, req, emit)
	})
	mid = sendQ(b, "again", true)
	body = fmt.Sprintf(`document.getElementById('body-%s').textContent`, mid)
	st2.step <- struct{}{}
	waitFor(b, "a token", body+` === 'one '`)
	b.Reload()
	waitFor(b, "the text so far", body+` === 'one '`)
	st2.step <- struct{}{}
	st2.step <- struct{}{}
	waitFor(b, "more tokens", body+` === 'one two three '`)
	st2.step <- struct{}{}
	waitStatus(b, mid, "complete")
	stored := apptest.Message(t, s, mid)
	if got := b.Text("#m-" + mid + " .msg-body"); stored.Content != "one two three four." || got != stored.Content {
		b.Fatalf("shown %q, stored %q", got, stored.Content)
	}
}

// The lesson panel: 🤖 opens it; the welcome greets by first name; three
// suggestions ask when clicked; badge and usage bar; the history drawer
// loads sessions only when opened; an earlier session loads into the
// panel and continues; "New session".
func TestChatBrowserLessonPanel(t *testing.T) {
	p := &apptest.Scripted{Answer: echoAnswer}
	s := apptest.New(t, apptest.WithProvider(p))
	s.User(t, "lucia@example.com", "a-long-password-1", models.PlanFree)
	b := signInBrowser(t, s, "lucia@example.com", "a-long-password-1")
	lesson := "/learn/go-basics/go-variables-types"
	b.Navigate(s.URL + lesson)
	b.WaitVisible("summary.tutor-fab")
	if eval[bool](b, `document.getElementById('tutor').open`) {
		b.Fatalf("the panel starts open")
	}
	b.Click("summary.tutor-fab")
	waitFor(b, "the panel open", `document.getElementById('tutor').open`)
	b.WaitVisible("#tutor-panel [data-welcome]")
	if w := b.Text("#tutor-panel [data-welcome]"); !strings.Contains(w, "Test") {
		b.Fatalf("welcome %q does not greet by first name", w)
	}
	if b.Has("#tutor-panel [data-welcome] .rate") {
		b.Fatalf("the welcome can be rated")
	}
	if badge := b.Text("#tutor-panel #model-badge"); badge != "Offline tutor" {
		b.Fatalf("badge %q", badge)
	}
	used, _ := b.Attr("#tutor-panel #usage", "data-used")
	limit, _ := b.Attr("#tutor-panel #usage", "data-limit")
	if used != "0" || limit != "3" {
		b.Fatalf("usage bar %s/%s, want 0/3", used, limit)
	}
	suggestions := eval[[]string](b, `[...document.querySelectorAll('#suggestions button.suggestion')].map(b => b.textContent.trim())`)
	if len(suggestions) != 3 {
		b.Fatalf("suggestions %q, want 3", suggestions)
	}
	sessionsLoaded := `performance.getEntriesByType('resource').filter(e => e.name.includes('/sessions')).length`

	// A suggestion asks.
	b.Click("#suggestions button.suggestion")
	waitFor(b, "the suggestion's answer", `!!document.querySelector('#tutor-panel article[data-role=assistant][data-status=complete][id^="m-"]')`)
	if q := b.Text("#tutor-panel article.user .msg-body"); q != suggestions[0] {
		b.Fatalf("the panel asked %q, want %q", q, suggestions[0])
	}
	if reqs := p.Requests(); len(reqs) != 1 || reqs[0].Question != suggestions[0] || reqs[0].Mode != models.ModeLesson {
		b.Fatalf("provider got %+v", reqs)
	}
	waitFor(b, "the usage bar", `document.querySelector('#tutor-panel #usage').dataset.used === '1'`)
	var first string
	s.DB.Raw(`SELECT id FROM conversations WHERE mode = 'lesson' AND lesson_id = 'go-variables-types' AND next_seq > 0`).Scan(&first)

	// New session: an empty panel.
	b.ClickAndWait("#new-session")
	waitFor(b, "the panel open", `document.getElementById('tutor').open`)
	if n := eval[int](b, `document.querySelectorAll('#tutor-panel article[id^="m-"]').length`); n != 0 {
		b.Fatalf("the new session shows %d messages", n)
	}
	if n := eval[int](b, sessionsLoaded); n != 0 {
		b.Fatalf("the sessions were loaded %d times before the drawer opened", n)
	}

	// The drawer loads sessions when opened; choose the earlier one.
	b.Click("#history summary")
	waitFor(b, "the session list", `!!document.querySelector('#history-body ul.sessions')`)
	if n := eval[int](b, sessionsLoaded); n != 1 {
		b.Fatalf("sessions fragment requested %d times after opening the drawer, want 1", n)
	}
	waitFor(b, "the session link wired by HTMX", fmt.Sprintf(`!!document.querySelector('#history-body #c-%s')['htmx-internal-data']?.listenerInfos`, first))
	b.Click("#history-body #c-" + first)
	waitFor(b, "the earlier session", fmt.Sprintf(`document.querySelectorAll('#tutor-panel article[id^="m-"]').length === 2 && location.search.includes('session=%s')`, first))
	if q := b.Text("#tutor-panel article.user .msg-body"); q != suggestions[0] {
		b.Fatalf("the earlier session shows %q", q)
	}
	mid := sendQ(b, "And a follow-up?", false)
	waitStatus(b, mid, "complete")
	if m := apptest.Message(t, s, mid); m.ConversationID != first {
		b.Fatalf("the follow-up went to %s, want the earlier session %s", m.ConversationID, first)
	}
	reqs := p.Requests()
	if last := reqs[len(reqs)-1]; len(last.History) != 2 || last.History[0].Content != suggestions[0] {
		b.Fatalf("the continued session's history %+v", last.History)
	}
	waitFor(b, "the usage bar", `document.querySelector('#tutor-panel #usage').dataset.used === '2'`)
}
