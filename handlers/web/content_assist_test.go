package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// fbRows is what the assist routes must never write: the lesson's
// versions, its suggestions, checks and the plan usage.
func fbRows(t *testing.T, s *apptest.Server) [4]int64 {
	t.Helper()
	return [4]int64{
		apptest.Count(t, s, `SELECT count(*) FROM lesson_versions WHERE lesson_id = ?`, fbLesson),
		apptest.Count(t, s, `SELECT count(*) FROM lesson_suggestions WHERE lesson_id = ? AND text NOT LIKE 'Proposed%'`, fbLesson),
		apptest.Count(t, s, `SELECT count(*) FROM checks`),
		apptest.Count(t, s, `SELECT coalesce(sum(questions), 0) FROM plan_usage`),
	}
}

// fbAssist posts the feedback page's assist form to path, as a browser
// would (hx adds the HTMX headers), with values on top.
func fbAssist(c *webtest.Client, p *webtest.Page, path string, values map[string]string, hx bool) *webtest.Page {
	c.T.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.Base+"/admin/content/lessons/"+fbLesson+path,
		strings.NewReader(fbForm(p, values).Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if hx {
		req.Header.Set("HX-Request", "true")
	}
	return c.Do(req)
}

// Without a model the tutor proposes three questions from the lesson's
// headings and terms and previews the offline check, saying so; "Use
// these" without JavaScript fills the fields; nothing is saved or
// charged, and with HTMX each answers its fragment alone.
func TestContentAssistOffline(t *testing.T) {
	s := apptest.New(t)
	c := fbAdmin(t, s)
	before := fbRows(t, s)
	page := c.Get("/admin/content/lessons/" + fbLesson + "/feedback")
	typed := page.Doc.Find("#assist-body").Text() + "\n## Unsaved section\n\nA **trunk** carries frames of many VLANs on one link between two switches.\n"
	p := fbAssist(c, page, "/suggest", map[string]string{"body": typed}, false)
	if p.Status != http.StatusOK || p.Doc.Find("#assist-proposals .assist-questions li").Length() != 3 ||
		p.Doc.Find(`#assist-proposals [data-by="offline"]`).Length() != 1 {
		t.Fatalf("offline suggestions: %d\n%s", p.Status, p.Text("#assist-proposals"))
	}
	if p.Doc.Find("#assist-body").Text() != typed || p.Doc.Find("#section-"+fbLessonFirstAnchor(t, s)).Length() != 1 {
		t.Error("the page lost the text as typed or the feedback outline")
	}
	proposed := p.Doc.Find("#assist-proposals .assist-questions li").First().Text()
	if !strings.Contains(proposed, "?") {
		t.Errorf("an offline proposal is not a question: %q", proposed)
	}
	used := fbAssist(c, p, "/suggest", map[string]string{"use": "1"}, false)
	if used.Status != http.StatusOK || used.Doc.Find("#assist-s1").AttrOr("value", "") != strings.TrimSpace(proposed) ||
		used.Doc.Find("#assist-used").Length() != 1 || used.Doc.Find("#assist-body").Text() != typed {
		t.Errorf("Use these without JavaScript: %d, s1 %q", used.Status, used.Doc.Find("#assist-s1").AttrOr("value", ""))
	}

	frag := fbAssist(c, page, "/suggest", nil, true)
	if frag.Status != http.StatusOK || strings.Contains(frag.Body, "<html") || frag.Doc.Find("#assist-proposals #use-suggestions").Length() != 1 {
		t.Errorf("HTMX suggestions: %d %s", frag.Status, frag.Body)
	}
	anchor := fbLessonFirstAnchor(t, s)
	prev := fbAssist(c, page, "/preview-check", map[string]string{"anchor": anchor}, true)
	if prev.Status != http.StatusOK || prev.Doc.Find("#assist-preview .preview-questions > li").Length() == 0 ||
		prev.Doc.Find(`#assist-preview [data-by="offline"]`).Length() != 1 || strings.Contains(prev.Body, "<html") {
		t.Errorf("offline preview: %d %s", prev.Status, prev.Body)
	}
	full := fbAssist(c, page, "/preview-check", map[string]string{"anchor": "unsaved-section", "body": typed}, false)
	if full.Status != http.StatusOK || full.Doc.Find("#assist-preview .preview-questions > li").Length() == 0 ||
		!strings.Contains(full.Text("#assist-preview"), "trunk") {
		t.Errorf("a preview of an unsaved section without JavaScript: %d\n%s", full.Status, full.Text("#assist-preview"))
	}
	if after := fbRows(t, s); after != before {
		t.Errorf("rows changed without a save: %v → %v", before, after)
	}
}

// fbLessonFirstAnchor is the anchor of vlan-basics's first heading.
func fbLessonFirstAnchor(t *testing.T, s *apptest.Server) string {
	t.Helper()
	anchors, _ := fbSections(t, s)
	return anchors[1]
}

// A Spanish lesson gets Spanish offline suggestions.
func TestContentAssistOfflineInTheLessonsLanguage(t *testing.T) {
	s := apptest.New(t)
	c := fbAdmin(t, s)
	page := c.Get("/admin/content/lessons/vlans-que-son/feedback")
	req := fbForm(page, nil)
	p := c.Post("/admin/content/lessons/vlans-que-son/suggest", req)
	q := p.Doc.Find("#assist-proposals .assist-questions li").First().Text()
	if p.Status != http.StatusOK || !strings.Contains(q, "¿") {
		t.Errorf("Spanish lesson's suggestion: %d %q", p.Status, q)
	}
}

// quizWith starts a fake OpenAI server answering reply and routes the
// quiz use case to it.
func quizWith(t *testing.T, opts fakellm.Options) *apptest.Server {
	t.Helper()
	srv := fakellm.Start(t, fakellm.OpenAI, opts)
	s := apptest.New(t, func(c *tutor.Config) {
		c.Credentials = tutor.Credentials{OpenAIKey: "k", OpenAIBaseURL: srv.URL}
	})
	if err := s.DB.Exec(`UPDATE ai_routes SET provider = 'openai', model = 'quiz-1' WHERE use_case = 'quiz'`).Error; err != nil {
		t.Fatal(err)
	}
	return s
}

// With a model, the three questions and the check's questions are the
// model's, and the page says so; nothing is saved or charged.
func TestContentAssistWithAModel(t *testing.T) {
	s := quizWith(t, fakellm.Options{Respond: func(r fakellm.Request) []string {
		if strings.Contains(r.System, "exactly three short questions") {
			return []string{"```json\n", `{"questions": ["Why use VLANs?", "What is a trunk port?", "How do VLANs talk?"]}`, "\n```"}
		}
		return []string{`{"kind": "choice", "question": "What separates broadcast domains?", "choices": ["A VLAN", "A cable"], "answer": "A VLAN"}`}
	}})
	c := fbAdmin(t, s)
	before := fbRows(t, s)
	page := c.Get("/admin/content/lessons/" + fbLesson + "/feedback")
	p := fbAssist(c, page, "/suggest", nil, true)
	if got := p.Text("#assist-proposals .assist-questions"); !strings.Contains(got, "What is a trunk port?") ||
		p.Doc.Find(`[data-by="model"]`).Length() != 1 || !strings.Contains(p.Text(".assist-by"), "quiz-1") {
		t.Errorf("the model's suggestions: %q / %q", got, p.Text(".assist-by"))
	}
	prev := fbAssist(c, page, "/preview-check", map[string]string{"anchor": fbLessonFirstAnchor(t, s)}, true)
	if n := prev.Doc.Find(".preview-questions > li").Length(); n != models.MaxCheckItems ||
		!strings.Contains(prev.Text(".preview-questions"), "What separates broadcast domains?") || prev.Doc.Find(`[data-by="model"]`).Length() != 1 {
		t.Errorf("the model's preview: %d questions\n%s", n, prev.Text("#assist-preview"))
	}
	if after := fbRows(t, s); after != before {
		t.Errorf("rows changed without a save: %v → %v", before, after)
	}
}

// A model answering garbage, the wrong number of questions or an error
// gives the offline result with a note, never a 500.
func TestContentAssistModelFailureFallsBackOffline(t *testing.T) {
	for name, opts := range map[string]fakellm.Options{
		"garbage":     {Tokens: []string{"Sure! Here are some thoughts about VLANs."}},
		"four":        {Tokens: []string{`{"questions": ["One?", "Two?", "Three?", "Four?"]}`}},
		"an error":    {Status: http.StatusInternalServerError},
		"bad stream":  {Malformed: true},
		"empty items": {Tokens: []string{`{"questions": ["", "Two?", "Three?"]}`}},
	} {
		t.Run(name, func(t *testing.T) {
			s := quizWith(t, opts)
			c := fbAdmin(t, s)
			page := c.Get("/admin/content/lessons/" + fbLesson + "/feedback")
			p := fbAssist(c, page, "/suggest", nil, false)
			if p.Status != http.StatusOK || p.Doc.Find("#assist-proposals .assist-questions li").Length() != 3 ||
				p.Doc.Find(`#assist-proposals [data-by="fallback"]`).Length() != 1 {
				t.Errorf("suggest: %d\n%s", p.Status, p.Text("#assist-proposals"))
			}
			prev := fbAssist(c, page, "/preview-check", map[string]string{"anchor": fbLessonFirstAnchor(t, s)}, true)
			if prev.Status != http.StatusOK || prev.Doc.Find(".preview-questions > li").Length() == 0 ||
				prev.Doc.Find(`[data-by="fallback"]`).Length() != 1 {
				t.Errorf("preview: %d\n%s", prev.Status, prev.Text("#assist-preview"))
			}
		})
	}
}

// Bad input is a 422 in the author's language with the text kept; a
// post without its CSRF token is refused.
func TestContentAssistBadInputAndCSRF(t *testing.T) {
	s := apptest.New(t)
	c := fbAdmin(t, s)
	page := c.Get("/admin/content/lessons/" + fbLesson + "/feedback")
	body := page.Doc.Find("#assist-body").Text()
	for name, tc := range map[string]struct {
		path, sel, want string
		values          map[string]string
	}{
		"no title":   {"/suggest", "#suggest-error", "needs a title", map[string]string{"title": " "}},
		"a language": {"/suggest", "#suggest-error", "language", map[string]string{"language": "fr"}},
		"too long":   {"/preview-check", "#preview-error", "over 200 KB", map[string]string{"body": strings.Repeat("a", models.MaxLessonBody+1)}},
		"a section":  {"/preview-check", "#preview-error", "no section “nope”", map[string]string{"anchor": "nope"}},
		"a proposal": {"/suggest", "#suggest-error", "", map[string]string{"use": "1", "p1": ""}},
	} {
		p := fbAssist(c, page, tc.path, tc.values, false)
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text(tc.sel), tc.want) || p.Text(tc.sel) == "" {
			t.Errorf("%s: %d %q", name, p.Status, p.Text(tc.sel))
		}
		if kept := p.Doc.Find("#assist-body").Text(); name != "too long" && kept != body {
			t.Errorf("%s: the text was not kept", name)
		}
	}
	c.Lang = "es"
	if p := fbAssist(c, page, "/suggest", map[string]string{"title": ""}, true); !strings.Contains(p.Text("#suggest-error"), "necesita un título") {
		t.Errorf("Spanish refusal: %q", p.Text("#suggest-error"))
	}
	for _, path := range []string{"/suggest", "/preview-check"} {
		v := fbForm(page, nil)
		v.Del("_csrf")
		if p := c.Post("/admin/content/lessons/"+fbLesson+path, v); p.Status != http.StatusForbidden {
			t.Errorf("%s without its CSRF token: %d", path, p.Status)
		}
		v.Set("_csrf", "forged")
		if p := c.Post("/admin/content/lessons/"+fbLesson+path, url.Values(v)); p.Status != http.StatusForbidden {
			t.Errorf("%s with a forged token: %d", path, p.Status)
		}
	}
}

// From the lesson editor without JavaScript: Suggest questions shows the
// editor again with the proposals and the text as typed, Use these puts
// them in the editor's suggestion fields; nothing is saved until Save.
func TestContentAssistInTheEditorWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	c := fbAdmin(t, s)
	before := fbRows(t, s)
	editor := c.Get("/admin/content/lessons/" + fbLesson)
	v := editorValues(editor)
	v.Set("body", v.Get("body")+"\n## Typed, not saved\n\nA **trunk** carries many VLANs on one link between two switches.\n")
	p := c.Post("/admin/content/lessons/"+fbLesson+"/suggest", v)
	if p.Status != http.StatusOK || p.Doc.Find("#editor-form #assist-proposals .assist-questions li").Length() != 3 ||
		p.Doc.Find("#f-body").Text() != v.Get("body") {
		t.Fatalf("suggest from the editor: %d\n%s", p.Status, p.Text("#assist"))
	}
	if ids := p.Doc.Find("#use-suggestions").AttrOr("data-fill-ids", ""); ids != "f-suggestion1 f-suggestion2 f-suggestion3" {
		t.Errorf("Use these fills %q", ids)
	}
	proposed := strings.TrimSpace(p.Doc.Find("#assist-proposals .assist-questions li").First().Text())
	u := editorValues(p)
	u.Set("use", "1")
	used := c.Post("/admin/content/lessons/"+fbLesson+"/suggest", u)
	if used.Doc.Find("#f-suggestion1").AttrOr("value", "") != proposed || used.Doc.Find("#f-body").Text() != v.Get("body") {
		t.Errorf("Use these in the editor: %q", used.Doc.Find("#f-suggestion1").AttrOr("value", ""))
	}
	w := editorValues(used)
	w.Set("anchor", "typed-not-saved")
	prev := c.Post("/admin/content/lessons/"+fbLesson+"/preview-check", w)
	if prev.Status != http.StatusOK || !strings.Contains(prev.Text("#editor-form #assist-preview"), "trunk") {
		t.Errorf("a preview of a typed section in the editor: %d\n%s", prev.Status, prev.Text("#assist-preview"))
	}
	if after := fbRows(t, s); after != before {
		t.Errorf("rows changed without a save: %v → %v", before, after)
	}
}

// editorValues is what the editor's form on p sends.
func editorValues(p *webtest.Page) url.Values { return formValues(p, "#editor-form") }
