package web_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// isGrading tells the quiz model's grading calls from its question calls.
func isGrading(r fakellm.Request) bool { return strings.Contains(r.System, "You grade") }

// quizModel is a fake OpenAI quiz model that asks one open question and
// grades with feedback written in three pieces; grading waits after its
// first piece until hold is closed.
func quizModel(t *testing.T, hold chan struct{}) *fakellm.Server {
	t.Helper()
	return fakellm.Start(t, fakellm.OpenAI, fakellm.Options{
		Respond: func(r fakellm.Request) []string {
			if isGrading(r) {
				return []string{`{"verdict": "correct", "feedback": "Right: a function`, ` that can fail`,
					` returns an error last.", "hint": "Look again."}`}
			}
			return []string{`{"kind": "open", "question": "What does a function that can fail return last?", "answer": "an error value"}`}
		},
		HoldOn: func(r fakellm.Request) <-chan struct{} {
			if isGrading(r) {
				return hold
			}
			return nil
		},
	})
}

// quizServer starts aula with the quiz route on the fake model at srv.
func quizApp(t *testing.T, srv *fakellm.Server) *apptest.Server {
	t.Helper()
	s := apptest.New(t, func(c *tutor.Config) {
		c.Credentials = tutor.Credentials{OpenAIKey: "k", OpenAIBaseURL: srv.URL}
	})
	if err := s.DB.Exec(`UPDATE ai_routes SET provider = 'openai', model = 'quiz-1' WHERE use_case = 'quiz'`).Error; err != nil {
		t.Fatal(err)
	}
	return s
}

// htmxPost posts a form the way HTMX does and parses the fragment.
func htmxPost(t *testing.T, c *webtest.Client, csrf, path string, form url.Values) *webtest.Page {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.Base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", csrf)
	return c.Do(req)
}

// With JavaScript, an answer's post comes back while the model is still
// grading (it holds after its first piece): the box shows the answer and
// "Grading your answer…" and connects to the grading's stream, which
// carries the feedback in pieces as the model writes them, then the box
// at its next step with the verdict stored.
func TestCheckFeedbackStreamsAsWritten(t *testing.T) {
	hold := make(chan struct{})
	srv := quizModel(t, hold)
	s := quizApp(t, srv)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	lesson := c.Get(checkLesson + "?tutor=open")
	p := c.Submit(lesson, ".check-offer form", nil)
	cid := checkID(t, p)
	box := htmxPost(t, c, p.CSRF(), "/checks/"+cid+"/answer", url.Values{"answer": {"an error"}, "question": {"1"}})
	if box.Status != http.StatusOK || box.Doc.Find("#check-pending").Length() != 1 {
		t.Fatalf("the answer's post: %d\n%s", box.Status, box.Body)
	}
	if got := box.Text("#check-busy"); !strings.Contains(got, "Grading your answer…") {
		t.Fatalf("progress %q", got)
	}
	if got := box.Text("#check-pending .verdict"); got != "Your answer: an error" {
		t.Fatalf("the answer shown: %q", got)
	}
	streamURL, _ := box.Doc.Find("#check-pending").Attr("sse-connect")
	resp, err := c.HTTP.Get(c.Base + streamURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream %s: %d %s", streamURL, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	r := webtest.NewSSEReader(resp.Body)
	first := nextEvent(t, r)
	if first.Type != "chunk" || first.Data != "Right: a function" || first.ID == "" {
		t.Fatalf("first event while the model holds: %+v", first)
	}
	close(hold)
	var rest strings.Builder
	var done webtest.SSEEvent
	for done.Type == "" {
		switch ev := nextEvent(t, r); ev.Type {
		case "chunk":
			rest.WriteString(ev.Data)
		case "done":
			done = ev
		default:
			t.Fatalf("unexpected event %+v", ev)
		}
	}
	if rest.String() != " that can fail returns an error last." {
		t.Fatalf("the rest of the feedback: %q", rest.String())
	}
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(done.Data))
	if got := doc.Find("#check-last .verdict-badge").Text(); got != "Correct" || doc.Find("#check-form").Length() != 1 ||
		!strings.Contains(doc.Find("#check-last").Text(), "Right: a function that can fail returns an error last.") {
		t.Fatalf("done box: verdict %q\n%s", got, done.Data)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM check_items WHERE conversation_id = ? AND verdict = 'correct'`, cid); n != 1 {
		t.Fatalf("%d correct verdicts stored", n)
	}
}

// nextEvent reads the stream's next event, skipping comments and retry-only blocks.
func nextEvent(t *testing.T, r *webtest.SSEReader) webtest.SSEEvent {
	t.Helper()
	ev, err := r.Next()
	if err != nil && err != io.EOF {
		t.Fatalf("read the stream: %v", err)
	}
	return ev
}

// When the quiz route's model fails, the check asks from the lesson's
// text instead and says so beside the question, in the student's
// language; the question is stored as such.
func TestCheckSaysTheModelFailed(t *testing.T) {
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Status: http.StatusInternalServerError})
	s := quizApp(t, srv)
	for _, tt := range []struct{ lang, email, want string }{
		{"en", "ana@example.com", "could not write this question"},
		{"es", "eva@example.com", "no pudo escribir esta pregunta"},
	} {
		u := s.User(t, tt.email, "a-long-password-1", models.PlanPro)
		s.DB.Exec(`UPDATE users SET locale = ? WHERE id = ?`, tt.lang, u.ID)
		c := s.SignIn(t, tt.email, "a-long-password-1")
		c.Lang = tt.lang
		p := c.Submit(c.Get(checkLesson+"?tutor=open"), ".check-offer form", nil)
		cid := checkID(t, p)
		if got := p.Text("#check-fallback"); !strings.Contains(got, tt.want) {
			t.Fatalf("%s: notice %q beside %q", tt.lang, got, p.Text("#check-question"))
		}
		if !strings.Contains(p.Text("#check-question"), "_____") {
			t.Fatalf("%s: not a question from the lesson's text: %q", tt.lang, p.Text("#check-question"))
		}
		if n := apptest.Count(t, s, `SELECT count(*) FROM check_items WHERE conversation_id = ? AND fallback AND kind = 'blank'`, cid); n != 1 {
			t.Fatalf("%s: %d offline questions marked", tt.lang, n)
		}
		// Answered through the stream, the next question (offline again) says so too.
		box := htmxPost(t, c, p.CSRF(), "/checks/"+cid+"/answer", url.Values{"answer": {expected(t, s, cid)}, "question": {"1"}})
		streamURL, _ := box.Doc.Find("#check-pending").Attr("sse-connect")
		resp, err := c.HTTP.Get(c.Base + streamURL)
		if err != nil {
			t.Fatal(err)
		}
		r := webtest.NewSSEReader(resp.Body)
		ev := nextEvent(t, r)
		for ev.Type == "chunk" {
			ev = nextEvent(t, r)
		}
		resp.Body.Close()
		if ev.Type != "done" || !strings.Contains(ev.Data, tt.want) || !strings.Contains(ev.Data, `id="check-form"`) {
			t.Fatalf("%s: done %+v", tt.lang, ev)
		}
	}
}

// No model at all (the offline tutor) is no failure: nothing is said.
func TestCheckOfflineSaysNothing(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	p := c.Submit(c.Get(checkLesson+"?tutor=open"), ".check-offer form", nil)
	checkID(t, p)
	if p.Doc.Find("#check-fallback").Length() != 0 {
		t.Fatalf("offline checks say the model failed: %q", p.Text("#check-fallback"))
	}
}

// A stream asked with no question number or a wrong one is a clear 400;
// someone else's check is 404.
func TestCheckStreamBadRequests(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	s.User(t, "eva@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := checkID(t, c.Submit(c.Get(checkLesson+"?tutor=open"), ".check-offer form", nil))
	for _, q := range []string{"", "?question=x&try=0", "?question=0&try=0", "?question=1&try=-1", "?question=99999999999999999999&try=0"} {
		if p := c.Get("/checks/" + cid + "/stream" + q); p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "question number") {
			t.Errorf("stream%s: %d %.200s", q, p.Status, p.Body)
		}
	}
	other := s.SignIn(t, "eva@example.com", "a-long-password-1")
	if p := other.Get("/checks/" + cid + "/stream?question=1&try=0"); p.Status != http.StatusNotFound {
		t.Errorf("someone else's stream: %d", p.Status)
	}
}
