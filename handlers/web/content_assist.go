package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"aula/markdown"
	"aula/models"
	"aula/tutor"
	"aula/views"
)

// errAssistForm is an assist form the tutor cannot read; its message is
// already in the author's language.
type errAssistForm struct{ msg string }

func (e errAssistForm) Error() string { return e.msg }

// readAssistForm reads the lesson text and suggestion fields as typed,
// and refuses (errAssistForm) a text the tutor cannot be asked about.
func readAssistForm(c echo.Context) (views.AssistForm, error) {
	f := views.AssistForm{Title: strings.TrimSpace(c.FormValue("title")), Body: c.FormValue("body"), Language: c.FormValue("language")}
	for i, name := range views.AssistFields {
		f.Suggestions[i] = c.FormValue(name)
	}
	switch {
	case f.Title == "" || utf8.RuneCountInString(f.Title) > models.MaxLessonTitle:
		return f, errAssistForm{t(c, "cas.err_title")}
	case f.Language != "en" && f.Language != "es":
		return f, errAssistForm{t(c, "cas.err_language")}
	case strings.TrimSpace(f.Body) == "":
		return f, errAssistForm{t(c, "cas.err_empty")}
	case len(f.Body) > models.MaxLessonBody:
		return f, errAssistForm{t(c, "cas.err_too_long", models.MaxLessonBody>>10)}
	}
	return f, nil
}

// lessonText is the form's text as the tutor reads it.
func lessonText(lessonID string, f views.AssistForm) tutor.LessonText {
	return tutor.LessonText{LessonID: lessonID, Title: f.Title, Body: f.Body, Lang: f.Language}
}

// contentSuggest proposes three suggested questions for the text in the
// form; "Use these" without JavaScript (use=1) puts the proposals in the
// suggestion fields instead. Nothing is saved either way.
func (a *App) contentSuggest(c echo.Context) error {
	fb, err := a.lessonFeedback(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	form, err := readAssistForm(c)
	v := views.AssistView{Form: form}
	if fromEditor(c) {
		v.FillIDs = views.EditorFillIDs
	}
	if fe, ok := errors.AsType[errAssistForm](err); ok {
		v.SuggestError = fe.msg
		return a.renderAssist(c, http.StatusUnprocessableEntity, fb, v, views.AssistProposals(fb.LessonID, v))
	}
	if c.FormValue("use") == "1" {
		return a.useSuggestions(c, fb, v)
	}
	s := a.Tutor.SuggestQuestions(c.Request().Context(), lessonText(fb.LessonID, form))
	v.Suggested = &views.SuggestionView{Questions: s.Questions, Authorship: authorship(s.Authored)}
	return a.renderAssist(c, http.StatusOK, fb, v, views.AssistProposals(fb.LessonID, v))
}

// useSuggestions shows the form again with the proposals (p1…p3) in the
// suggestion fields, unsaved; a proposal edited into something no
// suggestion may be is refused with the form as typed.
func (a *App) useSuggestions(c echo.Context, fb *models.LessonFeedback, v views.AssistView) error {
	var picked [3]string
	for i := range picked {
		picked[i] = strings.TrimSpace(c.FormValue(fmt.Sprintf("p%d", i+1)))
		if picked[i] == "" || utf8.RuneCountInString(picked[i]) > models.MaxSuggestion {
			v.SuggestError = t(c, "admin.err.sugg")
			return a.renderAssist(c, http.StatusUnprocessableEntity, fb, v, views.AssistProposals(fb.LessonID, v))
		}
	}
	v.Form.Suggestions, v.Used = picked, true
	return a.renderAssist(c, http.StatusOK, fb, v, views.AssistProposals(fb.LessonID, v))
}

// contentPreviewCheck shows the check questions the chosen section of
// the text in the form would get, without starting a check.
func (a *App) contentPreviewCheck(c echo.Context) error {
	fb, err := a.lessonFeedback(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	form, err := readAssistForm(c)
	v := views.AssistView{Form: form, Anchor: c.FormValue("anchor")}
	if fe, ok := errors.AsType[errAssistForm](err); ok {
		v.PreviewError = fe.msg
		return a.renderAssist(c, http.StatusUnprocessableEntity, fb, v, views.AssistPreview(v))
	}
	p, err := a.Tutor.PreviewCheck(c.Request().Context(), lessonText(fb.LessonID, form), v.Anchor)
	if errors.Is(err, tutor.ErrNoSuchSection) {
		v.PreviewError = t(c, "cas.err_no_section", v.Anchor)
		return a.renderAssist(c, http.StatusUnprocessableEntity, fb, v, views.AssistPreview(v))
	}
	if err != nil {
		return err
	}
	pv := &views.PreviewView{Anchor: p.Anchor, Heading: p.Heading, Authorship: authorship(p.Authored)}
	for _, q := range p.Questions {
		pv.Questions = append(pv.Questions, views.PreviewItem{Kind: q.Kind, HTML: markdown.RenderAnswer(q.Question),
			Expected: q.Expected, Choices: q.Choices})
	}
	v.Preview = pv
	return a.renderAssist(c, http.StatusOK, fb, v, views.AssistPreview(v))
}

// renderAssist answers an assist request: the result's fragment for
// HTMX, else the page it was asked from (the editor, whose form sends
// its base version, or the feedback page) with the form as typed.
func (a *App) renderAssist(c echo.Context, status int, fb *models.LessonFeedback, v views.AssistView, fragment templ.Component) error {
	if isFragment(c) {
		return a.fragment(c, status, fragment)
	}
	if !fromEditor(c) {
		return a.renderFeedback(c, status, fb, v)
	}
	ev, err := a.editorView(c)
	if err != nil {
		return err
	}
	if ev.Form, _, err = editorFormOf(c); err != nil {
		return err
	}
	if v.Used {
		copy(ev.Form.Suggestions[:], v.Form.Suggestions[:])
	}
	ev.Assist = v
	return a.renderEditor(c, status, ev)
}

// fromEditor reports whether the request comes from the lesson editor's
// form (the only one that sends the version it opened).
func fromEditor(c echo.Context) bool { return c.FormValue("base") != "" }

// authorship is who wrote the tutor's proposals, as the page says it.
func authorship(a tutor.Authored) views.Authorship {
	return views.Authorship{Model: a.Model + " (" + a.Provider + ")", ByModel: a.ByModel(), Fallback: a.Fallback}
}
