package web_test

import (
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

const passageLessonURL = "/learn/go-basics/go-variables-types"

// passageSentence is text of the lesson as its page shows it (the
// Markdown has **bold** and `code` in it).
const passageSentence = "Inside functions, the short variable declaration := declares and initialises in one step, inferring the type:"

// The question form's passage field is a real form field: a plain post
// with it asks about the passage, the question keeps it, and its bubble
// quotes it linked to its section. A bad passage is a clear 4xx in the
// student's language with what was typed kept.
func TestAskAboutPassageFormPost(t *testing.T) {
	p := &apptest.Scripted{}
	s := apptest.New(t, apptest.WithProvider(p))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")

	page := c.Get(passageLessonURL + "?tutor=open")
	if page.Doc.Find(`#ask-form input[name="passage"]`).Length() != 1 {
		t.Fatalf("the panel's form has no passage field")
	}
	lp, mid := askPassage(t, s, c, u, page, "Why the colon?", passageSentence)
	req := p.Requests()[0]
	if !strings.Contains(req.System, "> "+passageSentence) || len(req.Sources) == 0 || req.Sources[0].Anchor != "declaring-variables-with-var-and" {
		t.Fatalf("the tutor got sources %+v and prompt:\n%s", req.Sources, req.System)
	}
	lp = c.Get(lp.URL.RequestURI())
	quote := lp.Doc.Find("#tutor-panel article.user blockquote.passage-text")
	if !strings.Contains(quote.Text(), passageSentence) || quote.Find(`a[href="#declaring-variables-with-var-and"]`).Length() != 1 {
		t.Fatalf("the question's bubble quotes %q", quote.Text())
	}
	answer := apptest.Message(t, s, mid)
	if r := tutor.ParseReceipt(answer.Metadata); r.Passage == nil || r.Passage.Anchor != "declaring-variables-with-var-and" {
		t.Fatalf("receipt %s", answer.Metadata)
	}
	if lp.Doc.Find("#m-"+mid+" .citations.cited a").First().AttrOr("href", "") != "#declaring-variables-with-var-and" {
		t.Fatalf("the receipt does not cite the passage's section first")
	}

	cases := []struct {
		name, lang, passage string
		status              int
		says                string
	}{
		{"not in the lesson", "en", "A goroutine is a lightweight thread", 422, "not part of this lesson"},
		{"not in the lesson, in Spanish", "es", "A goroutine is a lightweight thread", 422, "no forma parte de esta lección"},
		{"too long", "en", strings.Repeat("Go is statically typed. ", 90), 422, "at most 2,000 characters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.Lang = tc.lang
			page := c.Get(passageLessonURL + "?tutor=open")
			r := c.Submit(page, "#ask-form", map[string]string{"content": "Kept question", "passage": tc.passage})
			if r.Status != tc.status || !strings.Contains(r.Text("#ask-error"), tc.says) {
				t.Fatalf("status %d, error %q; want %d saying %q", r.Status, r.Text("#ask-error"), tc.status, tc.says)
			}
			if r.Text("#q") != "Kept question" || r.Doc.Find(`#ask-form input[name="passage"]`).AttrOr("value", "") != strings.TrimSpace(tc.passage) && tc.name != "too long" {
				t.Fatalf("the refused form lost what was typed")
			}
		})
	}
	c.Lang = "en"
	for name, bad := range map[string]string{"NUL": "Go is\x00 statically typed", "invalid UTF-8": "Go is \xff statically"} {
		page := c.Get(passageLessonURL + "?tutor=open")
		form := url.Values{"_csrf": {page.CSRF()}, "content": {"Why?"}, "passage": {bad}, "path": {"go-basics"}}
		cid := page.Doc.Find(`#ask-form`).AttrOr("action", "")
		if r := c.Post(cid, form); r.Status != 400 {
			t.Errorf("%s passage: status %d, want 400", name, r.Status)
		}
	}
	var n int
	s.DB.Raw(`SELECT count(*) FROM messages WHERE user_id = ?`, u.ID).Scan(&n)
	if n != 2 {
		t.Fatalf("%d messages stored, want the one question and its answer", n)
	}
}
