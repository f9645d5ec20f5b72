package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
	"aula/urls"
)

// introSentence is text of go-variables-types before its first heading.
const introSentence = "Go is statically typed: every variable has a type fixed at compile time."

// askAboutIntro asks, from the panel of the lesson, about a passage of its
// intro; the tutor's answer cites the intro the way a model does, with a
// bare "#". It returns the lesson page showing the answer and its id.
func askAboutIntro(t *testing.T) (*apptest.Server, *webtest.Client, *webtest.Page, string) {
	t.Helper()
	p := &apptest.Scripted{Answer: func(_ context.Context, _ int, _ tutor.Request, emit func(string) error) error {
		return emit("Types are fixed at compile time [§ Variables and types](#); see also [§ Declaring](#declaring-variables-with-var-and).")
	}}
	s := apptest.New(t, apptest.WithProvider(p))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	lp, mid := askPassage(t, s, c, u, c.Get(passageLessonURL+"?tutor=open"), "Why fixed?", introSentence)
	return s, c, c.Get(lp.URL.RequestURI()), mid
}

// askPassage posts a question about passage from the panel on page and
// waits for its answer; it returns the page the post led to and the answer's id.
func askPassage(t *testing.T, s *apptest.Server, c *webtest.Client, u *models.User, page *webtest.Page, q, passage string) (*webtest.Page, string) {
	t.Helper()
	lp := c.Submit(page, "#ask-form", map[string]string{"content": q, "passage": passage})
	mid := strings.TrimPrefix(lp.URL.Fragment, "m-")
	if lp.URL.Path != passageLessonURL || mid == "" {
		t.Fatalf("the question led to %s (%d)", lp.URL, lp.Status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Tutor.Streams().Wait(ctx, u.ID, mid); err != nil {
		t.Fatal(err)
	}
	return lp, mid
}

// No link on a lesson page, in its panel's answers and their receipts, or
// on the thread's own page leads to a bare "#": the intro (the text
// before the first heading) is the lesson's article, #lesson.
func TestLessonIntroLinksHaveTargets(t *testing.T) {
	_, c, lp, mid := askAboutIntro(t)
	if lp.Doc.Find("article#lesson").Length() != 1 {
		t.Fatal("the lesson page has no #lesson to link the intro to")
	}
	for _, sel := range []string{"#m-" + mid + " .msg-body a", "#tutor-panel blockquote.passage-text a"} {
		if lp.Doc.Find(sel+`[href="#lesson"]`).Length() == 0 {
			t.Errorf("no %s links the intro to #lesson", sel)
		}
	}
	cid := lp.URL.Query().Get("session")
	for _, p := range []*webtest.Page{lp, c.Get(urls.Thread(cid))} {
		p.Doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
			if href := a.AttrOr("href", ""); strings.HasSuffix(href, "#") {
				h, _ := goquery.OuterHtml(a)
				t.Errorf("%s links to %q: %s", p.URL.Path, href, h)
			}
		})
	}
}

// Without JavaScript, 👍 or 👎 in a lesson's panel (no Referer sent, as
// some browsers and privacy settings do) answers 303 back to the lesson
// with its panel open on the answer, which shows the rating.
func TestPanelRatingReturnsToLesson(t *testing.T) {
	s, c, lp, mid := askAboutIntro(t)
	noFollow := *c.HTTP
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	cid := lp.URL.Query().Get("session")
	want := urls.LessonPanelMessage("go-basics", "go-variables-types", cid, mid)
	for _, tc := range []struct{ form, rating string }{
		{"#rate-" + mid + " form.inline", models.RatingUp},
		{"#rate-" + mid + " form.rate-form", models.RatingDown},
	} {
		form := lp.Doc.Find(tc.form)
		v := url.Values{"reason": {"lesson_unclear"}}
		form.Find("input[type=hidden]").Each(func(_ int, in *goquery.Selection) { v.Set(in.AttrOr("name", ""), in.AttrOr("value", "")) })
		req, _ := http.NewRequest(http.MethodPost, s.URL+form.AttrOr("action", "?"), strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
			t.Errorf("%s: %d to %q, want 303 to %q", tc.rating, resp.StatusCode, resp.Header.Get("Location"), want)
			continue
		}
		back := c.Get(want)
		pressed := map[string]string{models.RatingUp: ".rate-up", models.RatingDown: ".rate-down summary"}[tc.rating]
		if back.Doc.Find("#tutor[open] #rate-"+mid+" "+pressed).AttrOr("aria-pressed", "") != "true" {
			t.Errorf("%s: the lesson's open panel does not show the rating", tc.rating)
		}
	}
}
