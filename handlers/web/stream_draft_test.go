package web_test

import (
	"context"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/markdown"
	"aula/models"
	"aula/tutor"
	"aula/urls"
)

// draftTokens stream an answer whose Markdown only means something once
// several tokens are in: bold split across tokens, a list, a § link.
var draftTokens = []string{"Use **bo", "ld** here:\n\n", "- one\n- two\n\n", "See [§ VLANs](#vlans) ", "and `code`."}

// wantBody is what a draft's body shows for the text so far: its whole
// rendering, without the trailing white space, which stays raw.
func wantBody(text string) (html, tail string) {
	body := strings.TrimRightFunc(text, unicode.IsSpace)
	return strings.TrimSuffix(markdown.RenderAnswer(body), "\n"), text[len(body):]
}

// bubble is a draft's body as the page's swaps leave it after each `md`
// event: the finished blocks (added to, or replaced), the open ones, the
// raw text.
type bubble struct{ final, open, tail string }

// mdEvent is an `md` event's HTML (views.DraftStep), read for message mid.
func mdEvent(mid string) *regexp.Regexp {
	id := regexp.QuoteMeta(mid)
	return regexp.MustCompile(`^(?s)(?:<div hx-swap-oob="(innerHTML|beforeend):#final-` + id + `">(.*?)</div>)?` +
		`<div class="md" id="open-` + id + `">(.*)</div><span class="tail" id="tail-` + id + `" hx-swap-oob="true">(.*)</span>$`)
}

// apply takes in one `md` event as the page does, and says whether it
// replaced the finished blocks.
func (b *bubble) apply(t *testing.T, mid, data string) (reset bool) {
	t.Helper()
	m := mdEvent(mid).FindStringSubmatch(data)
	if m == nil {
		t.Fatalf("an md event of another shape: %s", data)
	}
	if m[1] == "innerHTML" {
		b.final = ""
	}
	b.final += m[2]
	b.open, b.tail = m[3], html.UnescapeString(m[4])
	return m[1] == "innerHTML"
}

// matches fails unless the bubble shows the text's whole rendering.
func (b *bubble) matches(t *testing.T, text string) {
	t.Helper()
	want, tail := wantBody(text)
	if b.final+b.open != want || b.tail != tail {
		t.Fatalf("after %q the draft shows\n%s|%s|%q\nthe whole renders\n%s%q", text, b.final, b.open, b.tail, want, tail)
	}
}

// drafted is an answer being written one token a step, its stream
// rendering after each token (RenderEvery 0).
type drafted struct {
	s           *apptest.Server
	st          *stepper
	c           *webtest.Client
	userID, cid string
	mid         string
}

// askDrafted asks in a new thread of a signed-in student an answer made
// of tokens.
func askDrafted(t *testing.T, tokens []string) drafted {
	t.Helper()
	st := &stepper{tokens: tokens, step: make(chan struct{})}
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: st.answer}))
	s.App.RenderEvery = 0
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "Show me"})
	if err != nil {
		t.Fatal(err)
	}
	return drafted{s: s, st: st, c: c, userID: u.ID, cid: cid, mid: res.AssistantMessage.ID}
}

// With ?render=1 every token still arrives as its own `chunk`, and the
// text so far follows rendered as `md` (RenderEvery 0: after each token):
// each finished block once, then the open ones, which together are the
// whole text's rendering. Resumed with Last-Event-ID, only the missing
// text is sent, and the first rendering holds it all. Without it (the
// API-like raw readers) no `md`.
func TestStreamRendersMarkdownAsItGrows(t *testing.T) {
	r := askDrafted(t, draftTokens)
	st, c, mid := r.st, r.c, r.mid
	live := apptest.OpenSSE(t, c, mid, "", "?render=1")
	raw := apptest.OpenSSE(t, c, mid, "", "")
	var b bubble
	text, last := "", ""
	for i, tok := range draftTokens {
		st.step <- struct{}{}
		text += tok
		if ev := live.Must(t, "chunk"); html.UnescapeString(ev.Data) != tok || ev.ID != strconv.Itoa(len(text)) {
			t.Fatalf("token %d came as %q id %s", i, ev.Data, ev.ID)
		}
		last = live.Must(t, "md").Data
		if reset := b.apply(t, mid, last); reset != (i == 0) {
			t.Fatalf("token %d's rendering replaced the finished blocks: %v", i, reset)
		}
		b.matches(t, text)
		if ev := raw.Must(t, "chunk"); html.UnescapeString(ev.Data) != tok {
			t.Fatalf("the raw reader got %q", ev.Data)
		}
		if i == 1 {
			// A reader joining now gets the rest of the text raw and all of it rendered.
			resumed := apptest.OpenSSE(t, c, mid, strconv.Itoa(len(draftTokens[0])), "?render=1")
			if ev := resumed.Must(t, "chunk"); html.UnescapeString(ev.Data) != draftTokens[1] {
				t.Fatalf("the resumed reader got %q, want only the missing %q", ev.Data, draftTokens[1])
			}
			again := bubble{final: "<p>shown before</p>", open: "<p>old</p>"}
			if reset := again.apply(t, mid, resumed.Must(t, "md").Data); !reset {
				t.Fatal("the resumed reader's first rendering adds to the blocks shown before")
			}
			again.matches(t, text)
		}
	}
	want, _ := wantBody(text)
	if !strings.Contains(want, `<li>one</li>`) || !strings.Contains(want, `href="#vlans"`) {
		t.Fatalf("the drafts do not render the list and the § link: %s", want)
	}
	// The bold paragraph was finished once the list's first line came
	// whole: the renderings after it do not send it again (the list stays
	// open: no whole line follows it).
	if !strings.Contains(b.final, "<strong>bold</strong>") || strings.Contains(last, "bold") || !strings.Contains(last, "<li>one</li>") {
		t.Fatalf("the finished blocks are\n%s\nand the last rendering\n%s", b.final, last)
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

// blocksAnswer is an answer of several blocks: paragraphs, a list, a
// code fence holding a blank line, a table.
const blocksAnswer = "A **VLAN** splits one switch into separate networks.\n\n" +
	"- Broadcasts stay inside their VLAN.\n- Hosts in two VLANs talk through a router.\n\n" +
	"```\ninterface Gi0/1\n\n switchport access vlan 10\n```\n\n" +
	"| port | VLANs |\n| --- | --- |\n| access | one |\n| trunk | many |\n\n" +
	"Which VLAN would you give the printers?"

// Streamed in tokens of four bytes, rendering after each: a reader from
// the start and one resuming halfway (Last-Event-ID) both end with the
// whole answer's rendering; the page drawn meanwhile (without JavaScript)
// shows the text so far rendered whole; the finished bubble the stream
// sends is the one the page draws after it, byte for byte.
func TestDraftBlocksEndAsTheFinishedBubble(t *testing.T) {
	var tokens []string
	for s := blocksAnswer; s != ""; s = s[min(4, len(s)):] {
		tokens = append(tokens, s[:min(4, len(s))])
	}
	r := askDrafted(t, tokens)
	s, st, c, cid, mid := r.s, r.st, r.c, r.cid, r.mid
	live := apptest.OpenSSE(t, c, mid, "", "?render=1")
	var resumed *apptest.SSEConn
	var a, b bubble
	text, appended := "", 0
	for i, tok := range tokens {
		st.step <- struct{}{}
		text += tok
		live.Must(t, "chunk")
		ev := live.Must(t, "md")
		if strings.Contains(ev.Data, "beforeend:#final-") {
			appended++
		}
		a.apply(t, mid, ev.Data)
		if resumed != nil {
			resumed.Must(t, "chunk")
			b.apply(t, mid, resumed.Must(t, "md").Data)
		}
		if i == len(tokens)/2 {
			resumed = apptest.OpenSSE(t, c, mid, strconv.Itoa(len(text)-len(tok)), "?render=1")
			resumed.Must(t, "chunk")
			b.apply(t, mid, resumed.Must(t, "md").Data)
			// The page draws the text stored so far, rendered whole.
			m, err := s.App.Messages.Get(context.Background(), r.userID, mid)
			if err != nil {
				t.Fatal(err)
			}
			want, tail := wantBody(m.Content)
			if page := c.Get(urls.Thread(cid)).Body; !strings.Contains(page, `<div class="md-final" id="final-`+mid+`"></div><div class="md" id="open-`+mid+`">`+want+`</div><span class="tail" id="tail-`+mid+`">`+html.EscapeString(tail)+`</span>`) {
				t.Fatalf("the page drawn while the answer streams does not show %q rendered", m.Content)
			}
		}
	}
	a.matches(t, text)
	b.matches(t, text)
	// The paragraph, the list and the fence each finish once a whole line
	// of the next block came; the table's next line never ends.
	if appended != 3 {
		t.Errorf("the stream added finished blocks %d times, want 3", appended)
	}
	done := live.Must(t, "done").Data
	resumed.Must(t, "done")
	article := done[:strings.Index(done, "</article>")+len("</article>")]
	if !strings.Contains(article, a.final+a.open) {
		t.Errorf("the finished bubble\n%s\ndoes not hold the last draft\n%s", article, a.final+a.open)
	}
	if page := c.Get(urls.Thread(cid)).Body; !strings.Contains(page, article) {
		t.Errorf("the page drawn after the answer does not hold the finished bubble the stream sent\n%s", article)
	}
}
