package handlers_test

// Attacks. Covered elsewhere and not repeated here: another user's ids on
// every route (authz_test.go), missing and wrong CSRF tokens, session
// fixation, a stolen cookie after logout, open redirects through next and
// brute-force sign-in (auth_test.go), path traversal in static files
// (errors_test.go). This file: XSS everywhere a student or a provider
// writes text; attacks_requests_test.go: the shape of requests.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// xss is one payload with every trick at once; "XSS" marks it.
const xss = `<script>alert("XSS")</script><img src=x onerror=alert("XSS")> "><svg/onload=alert("XSS")> ` +
	`[click](javascript:alert("XSS")) <a href="javascript:alert('XSS')">x</a> ` +
	`<div hx-get="/xss-hx-probe" hx-trigger="load">XSS</div><iframe src="javascript:alert('XSS')"></iframe>`

// xssAnswer is a provider's answer in Markdown with raw HTML and hostile links.
const xssAnswer = "Here is **bold** and `code`.\n\n" +
	"<script>alert(\"XSS\")</script>\n\n<img src=x onerror=alert(\"XSS\")>\n\n" +
	"[click me](javascript:alert(\"XSS\")) and ![pic](javascript:alert(\"XSS\"))\n\n" +
	"<a href=\"javascript:alert('XSS')\">raw link</a>\n\n<div hx-get=\"/xss-hx-probe\" hx-trigger=\"load\">XSS div</div>\n\n" +
	"<iframe src=\"javascript:alert('XSS')\"></iframe><svg onload=alert(\"XSS\")></svg>\n\n" +
	"<p style=\"background:url(javascript:alert('XSS'))\" onclick=\"alert('XSS')\">styled</p>\n"

// assertInert fails when the HTML, parsed the way a browser parses it,
// holds anything that runs script: a script that is not aula's own, an
// event handler, a javascript: URL, an embedded frame, or an HTMX or SSE
// attribute the payload brought in.
func assertInert(t *testing.T, where, doc string, fragment bool) {
	t.Helper()
	for _, p := range activeContent(doc, fragment) {
		t.Errorf("%s: %s", where, p)
	}
}

// activeContent lists what in doc would run script.
func activeContent(doc string, fragment bool) []string {
	var problems []string
	var nodes []*html.Node
	var err error
	if fragment {
		nodes, err = html.ParseFragment(strings.NewReader(doc), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	} else {
		var n *html.Node
		n, err = html.Parse(strings.NewReader(doc))
		nodes = []*html.Node{n}
	}
	if err != nil {
		return []string{"parse: " + err.Error()}
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script":
				src := ""
				for _, a := range n.Attr {
					if a.Key == "src" {
						src = a.Val
					}
				}
				if !strings.HasPrefix(src, "/static/") {
					problems = append(problems, "a script that is not aula's: "+render(n))
				}
			case "iframe", "object", "embed", "base", "frame":
				problems = append(problems, fmt.Sprintf("<%s> came through: %s", n.Data, render(n)))
			}
			for _, a := range n.Attr {
				key, val := strings.ToLower(a.Key), strings.ToLower(strings.TrimSpace(a.Val))
				switch {
				case strings.HasPrefix(key, "on") || strings.HasPrefix(key, "hx-on"):
					problems = append(problems, fmt.Sprintf("event handler %s=%q on <%s>", a.Key, a.Val, n.Data))
				case (strings.HasPrefix(key, "hx-") || strings.HasPrefix(key, "sse-")) && strings.Contains(val, "xss"):
					problems = append(problems, fmt.Sprintf("injected HTMX attribute %s=%q", a.Key, a.Val))
				case strings.Contains(val, "javascript:") && (key == "href" || key == "src" || key == "action" ||
					key == "formaction" || key == "style" || key == "srcdoc" || strings.HasSuffix(key, "href")):
					problems = append(problems, fmt.Sprintf("javascript: URL in %s=%q", a.Key, a.Val))
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return problems
}

// The inertness check itself catches each trick the payloads use.
func TestActiveContentCatchesEachTrick(t *testing.T) {
	for _, bad := range []string{`<script>alert(1)</script>`, `<img src=x onerror=alert(1)>`, `<svg/onload=alert(1)>`,
		`<a href=" JavaScript:alert(1)">x</a>`, `<div hx-get="/xss-hx-probe" hx-trigger="load">x</div>`,
		`<div hx-on:click="alert(1)">x</div>`, `<iframe src="/x"></iframe>`, `<p style="background:url(javascript:x)">x</p>`} {
		if len(activeContent(bad, true)) == 0 {
			t.Errorf("%s passes as inert", bad)
		}
	}
	if p := activeContent(`<p>&lt;script&gt; <a href="/learn">ok</a> <script src="/static/vendor/htmx.min.js"></script></p>`, true); len(p) != 0 {
		t.Errorf("harmless HTML flagged: %v", p)
	}
}

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func render(n *html.Node) string {
	var b bytes.Buffer
	_ = html.Render(&b, n)
	return b.String()
}

// assertPlainText fails when a chunk event's data would become an element
// once htmx swaps it in.
func assertPlainText(t *testing.T, where, data string) {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(data), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Type != html.TextNode {
			t.Fatalf("%s: chunk %q makes a <%s> element", where, data, n.Data)
		}
	}
}

// XSS payloads in a question, a thread title, an attachment's name, a
// rating comment and the provider's own answer render inert on the chat
// screen, in the lesson panel and in the SSE events, while the student
// still sees what was typed.
func TestAttackXSSRendersInert(t *testing.T) {
	p := &apptest.Scripted{Answer: func(_ context.Context, _ int, _ tutor.Request, emit func(string) error) error {
		for rest := xssAnswer; rest != ""; {
			n := min(7, len(rest)) // small tokens: tags split across chunks
			if err := emit(rest[:n]); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	}}
	s := apptest.New(t, apptest.WithProvider(p))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	st := signInStudent(t, s.URL, "ana@example.com", "a-long-password-1", nil)
	c := st.web
	ctx := context.Background()

	// A question (which also becomes the thread's title), streamed.
	cid := apptest.NewThread(t, c)
	mid, status, err := st.ask(ctx, cid, xss)
	if err != nil || status != http.StatusOK {
		t.Fatalf("ask: %d %v", status, err)
	}
	var text strings.Builder
	final, err := st.stream(ctx, mid, func(ev webtest.SSEEvent, _ time.Time) bool {
		if ev.Type == "chunk" {
			assertPlainText(t, "chunk event", ev.Data)
			text.WriteString(html.UnescapeString(ev.Data))
		}
		return true
	})
	if err != nil || final.Type != "done" || text.String() != xssAnswer {
		t.Fatalf("stream: %q %v; text %q", final.Type, err, text.String())
	}
	assertInert(t, "done event", final.Data, true)
	if !strings.Contains(final.Data, "<strong>bold</strong>") {
		t.Errorf("the answer's harmless Markdown is lost: %.300s", final.Data)
	}

	// An attachment whose name is the payload.
	name := `"><img src=x onerror=alert("XSS")>.txt`
	up := apptest.PostMultipart(t, c, "/chat/"+cid+"/messages", map[string]string{"content": "See my notes", "_csrf": st.csrf},
		name, []byte("notes about VLANs"), true)
	if up.Status != http.StatusOK {
		t.Fatalf("ask with a file: %d %.300s", up.Status, up.Body)
	}
	assertInert(t, "ask fragment with a file", up.Body, true)

	// A rating comment.
	if status, body, err := st.do(ctx, http.MethodPost, "/messages/"+mid+"/rate",
		url.Values{"rating": {"down"}, "reason": {"other"}, "comment": {xss}}, true); err != nil || status != http.StatusOK {
		t.Fatalf("rate: %d %v %.300s", status, err, body)
	}
	// Let the second answer finish before looking at the page.
	for _, m := range apptest.ThreadMessages(t, s, cid) {
		if m.Role == models.RoleAssistant {
			if _, err := s.Tutor.Streams().Wait(ctx, m.UserID, m.ID); err != nil {
				t.Fatal(err)
			}
		}
	}

	page := c.Get("/chat/" + cid)
	assertInert(t, "chat screen", page.Body, false)
	if got := page.Doc.Find("#m-" + apptest.ThreadMessages(t, s, cid)[0].ID + " .msg-body").Text(); strings.TrimSpace(got) != strings.TrimSpace(xss) {
		t.Errorf("the question shows as %q, want the text typed", got)
	}
	if got := page.Doc.Find("#c-" + cid).Text(); !strings.Contains(got, `<script>alert("XSS")`) {
		t.Errorf("the thread title shows as %q, want the typed text as text", strings.TrimSpace(got))
	}
	if got := page.Doc.Find("#comment-" + mid).Text(); got != xss {
		t.Errorf("the rating comment shows as %q", got)
	}
	if got := page.Doc.Find(".attachment a").Text(); !strings.Contains(got, "onerror") {
		t.Errorf("the attachment's name shows as %q", got)
	}
	// The replayed stream of a finished answer.
	replay := apptest.OpenSSE(t, c, mid, "", "")
	if _, end := replay.Rest(t); end.Name == "done" {
		assertInert(t, "replayed done event", end.Data, true)
	}

	// The lesson panel: a question asked from the lesson page, without JavaScript.
	const lesson = "/learn/networking/vlan-basics"
	panel := c.Submit(c.Get(lesson+"?tutor=open"), `#tutor form[action="/chat"]`, map[string]string{"content": xss})
	if panel.Status != http.StatusOK || panel.URL.Path != lesson {
		t.Fatalf("ask in the panel: %d at %s", panel.Status, panel.URL)
	}
	assertInert(t, "lesson panel", panel.Body, false)
	pmid := strings.TrimPrefix(panel.URL.Fragment, "m-")
	if panel.Doc.Find("#m-"+pmid).AttrOr("data-status", "") != models.StatusComplete {
		t.Fatalf("panel answer %q not shown complete:\n%.500s", pmid, panel.Doc.Find("#tutor").Text())
	}
	pr := apptest.OpenSSE(t, c, pmid, "", "?panel=1")
	if _, end := pr.Rest(t); end.Name != "done" {
		t.Fatalf("panel replay ended %q", end.Name)
	} else {
		assertInert(t, "panel done event", end.Data, true)
	}
}
