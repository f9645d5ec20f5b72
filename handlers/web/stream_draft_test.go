package web_test

import (
	"bytes"
	"context"
	"html"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"aula/internal/apptest"
	"aula/markdown"
	"aula/models"
	"aula/tutor"
	"aula/urls"
	"aula/views"
)

// draftTokens stream an answer whose Markdown only means something once
// several tokens are in: bold split across tokens, a list, a § link.
var draftTokens = []string{"Use **bo", "ld** here:\n\n", "- one\n- two\n\n", "See [§ VLANs](#vlans) ", "and `code`."}

// wantDraft is the `md` event an answer with text so far gets: its
// rendering without the trailing white space, which stays raw.
func wantDraft(t *testing.T, mid, text string) string {
	t.Helper()
	body := strings.TrimRightFunc(text, unicode.IsSpace)
	var buf bytes.Buffer
	if err := views.Draft(mid, strings.TrimSuffix(markdown.RenderAnswer(body), "\n"), text[len(body):]).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// With ?render=1 every token still arrives as its own `chunk`, and the
// text so far follows rendered as `md` (RenderEvery 0: after each token);
// resumed with Last-Event-ID, only the missing text is sent but the
// rendering covers it all. Without it (the API-like raw readers) no `md`.
func TestStreamRendersMarkdownAsItGrows(t *testing.T) {
	st := &stepper{tokens: draftTokens, step: make(chan struct{})}
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
	s.App.RenderEvery = 0
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "Show me"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	live := apptest.OpenSSE(t, c, mid, "", "?render=1")
	raw := apptest.OpenSSE(t, c, mid, "", "")
	text := ""
	for i, tok := range draftTokens {
		st.step <- struct{}{}
		text += tok
		if ev := live.Must(t, "chunk"); html.UnescapeString(ev.Data) != tok || ev.ID != strconv.Itoa(len(text)) {
			t.Fatalf("token %d came as %q id %s", i, ev.Data, ev.ID)
		}
		if ev := live.Must(t, "md"); ev.Data != wantDraft(t, mid, text) {
			t.Fatalf("after token %d the rendering is\n%s\nwant\n%s", i, ev.Data, wantDraft(t, mid, text))
		}
		if ev := raw.Must(t, "chunk"); html.UnescapeString(ev.Data) != tok {
			t.Fatalf("the raw reader got %q", ev.Data)
		}
		if i == 1 {
			// A reader joining now gets the rest of the text raw and all of it rendered.
			resumed := apptest.OpenSSE(t, c, mid, strconv.Itoa(len(draftTokens[0])), "?render=1")
			if ev := resumed.Must(t, "chunk"); html.UnescapeString(ev.Data) != draftTokens[1] {
				t.Fatalf("the resumed reader got %q, want only the missing %q", ev.Data, draftTokens[1])
			}
			if ev := resumed.Must(t, "md"); !strings.Contains(ev.Data, "<strong>bold</strong>") {
				t.Fatalf("the resumed reader's rendering lacks the bold: %s", ev.Data)
			}
		}
	}
	if !strings.Contains(wantDraft(t, mid, text), `<li>one</li>`) || !strings.Contains(wantDraft(t, mid, text), `href="#vlans"`) {
		t.Fatalf("the drafts do not render the list and the § link: %s", wantDraft(t, mid, text))
	}
	live.Must(t, "done")
	if ev := raw.Must(t, "done"); ev.Name != "done" {
		t.Fatalf("the raw reader ended with %q", ev.Name)
	}
}

// A lesson thread's draft points its section links into the lesson's
// page, as the finished answer does, from the first rendering that holds
// one; the renderings before it need no links.
func TestDraftSectionLinksPointIntoTheLesson(t *testing.T) {
	link := "See [§ VLANs](#how-a-switch-keeps-vlans-apart)."
	st := &stepper{tokens: []string{"No link yet. ", link}, step: make(chan struct{})}
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
	s.App.RenderEvery = 0
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	conv, err := s.App.Conversations.Create(context.Background(), u.ID, models.ModeLesson, "vlan-basics", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: conv.ID, Content: "Where are VLANs kept apart?"})
	if err != nil {
		t.Fatal(err)
	}
	live := apptest.OpenSSE(t, c, res.AssistantMessage.ID, "", "?render=1")
	defer live.Close()
	want := `href="` + urls.Lesson("networking", "vlan-basics") + `#how-a-switch-keeps-vlans-apart"`
	st.step <- struct{}{}
	live.Must(t, "chunk")
	if ev := live.Must(t, "md"); !strings.Contains(ev.Data, "No link yet.") || strings.Contains(ev.Data, "href") {
		t.Fatalf("the first draft is %s", ev.Data)
	}
	st.step <- struct{}{}
	live.Must(t, "chunk")
	if ev := live.Must(t, "md"); !strings.Contains(ev.Data, want) {
		t.Fatalf("the draft with the section link is\n%s\nwant a link with %s", ev.Data, want)
	}
	live.Must(t, "done")
}
