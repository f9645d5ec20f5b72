package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/markdown"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// lessonEditor opens a lesson's newest version in the editor.
func (a *App) lessonEditor(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	v, err := a.editorView(c)
	if err != nil {
		return err
	}
	v.Flash = flash
	v.Form = views.LessonEditorForm{Title: v.Lesson.Title, Summary: v.Lesson.Summary, Language: v.Lesson.Language,
		Body: v.Lesson.ContentMD, Base: v.Lesson.Version}
	if n := v.Newest; n != nil {
		v.Form.Title, v.Form.Summary, v.Form.Language, v.Form.Body = n.Title, n.Summary, n.Language, n.ContentMD
		copy(v.Form.Suggestions[:], n.Suggestions)
	}
	return a.renderEditor(c, http.StatusOK, v)
}

// editorView loads the lesson of the request and its newest version.
func (a *App) editorView(c echo.Context) (views.LessonEditorView, error) {
	ctx := c.Request().Context()
	l, err := a.Content.EditedLesson(ctx, c.Param("id"))
	if err != nil {
		return views.LessonEditorView{}, err
	}
	v := views.LessonEditorView{Lesson: l}
	v.Newest, err = a.newestVersion(ctx, &l.Lesson)
	return v, err
}

// newestVersion is a lesson's newest version, nil before its first.
func (a *App) newestVersion(ctx context.Context, l *models.Lesson) (*models.LessonVersion, error) {
	if l.Version == 0 {
		return nil, nil
	}
	return a.Content.Version(ctx, l.ID, l.Version)
}

// renderEditor draws the editor with the preview and outline of the
// form's text; a live preview's HTMX request gets the preview alone.
func (a *App) renderEditor(c echo.Context, status int, v views.LessonEditorView) error {
	v.Preview, v.Outline = previewOf(v.Form)
	if !isFragment(c) {
		var err error
		if v.Images, err = a.lessonImagesView(c, v.Lesson.ID, editorTextarea); err != nil {
			return err
		}
	}
	if err := a.outlineFeedback(c.Request().Context(), v.Lesson.ID, v.Outline); err != nil {
		return err
	}
	return a.render(c, status, views.LessonEditorPage(v), views.EditorSide(v.Lesson.ID, v.Preview, v.Outline))
}

// previewOf renders the form's text as students would see it, and its
// sections, cut as publishing cuts them; a body over the bound is not
// rendered (the form says why).
func previewOf(f views.LessonEditorForm) (string, []views.OutlineSection) {
	if len(f.Body) > models.MaxLessonBody || strings.TrimSpace(f.Body) == "" {
		return "", nil
	}
	var outline []views.OutlineSection
	for _, s := range models.LessonSections(f.Title, f.Body) {
		// A long section is several chunks under one anchor: one line.
		if n := len(outline); n > 0 && outline[n-1].Anchor == s.Anchor {
			continue
		}
		outline = append(outline, views.OutlineSection{Heading: s.Heading, Anchor: s.Anchor})
	}
	return markdown.RenderPreview(f.Body), outline
}

// errEditorBase is a save whose base version is not a version number.
var errEditorBase = errors.New("the version the editor opened is missing")

// editorFormOf reads the editor's form as typed and the draft it saves.
// A textarea sends CRLF line ends: the draft has LF, as lesson files do,
// so a section nobody touched keeps its hash.
func editorFormOf(c echo.Context) (views.LessonEditorForm, models.LessonDraft, error) {
	p, err := c.FormParams()
	if err != nil {
		return views.LessonEditorForm{}, models.LessonDraft{}, err
	}
	base, err := strconv.Atoi(p.Get("base"))
	if err != nil || base < 0 {
		return views.LessonEditorForm{}, models.LessonDraft{}, errEditorBase
	}
	d := models.LessonDraft{Title: strings.TrimSpace(p.Get("title")), Summary: strings.TrimSpace(p.Get("summary")),
		Language: p.Get("language"), ContentMD: strings.ReplaceAll(p.Get("body"), "\r\n", "\n"),
		Suggestions: p["suggestion"], Note: strings.TrimSpace(p.Get("note"))}
	f := views.LessonEditorForm{Title: d.Title, Summary: d.Summary, Language: d.Language, Body: d.ContentMD, Note: d.Note, Base: base}
	copy(f.Suggestions[:], d.Suggestions)
	return f, d, nil
}

// saveLesson saves the editor's text as a new version (Save draft), also
// shows it to students (Publish), or only previews it. A refused field
// or a version saved by someone else since the author opened theirs
// re-renders the editor with everything typed kept.
func (a *App) saveLesson(c echo.Context) error {
	v, err := a.editorView(c)
	if err != nil {
		return err
	}
	form, draft, err := editorFormOf(c)
	if errors.Is(err, errEditorBase) {
		return echo.NewHTTPError(http.StatusBadRequest, t(c, "editor.err_base"))
	}
	if err != nil {
		return err
	}
	v.Form, v.Opened = form, form.Base
	action := c.FormValue("action")
	if problems := draft.Validate(); len(problems) > 0 {
		v.Form, v.Problems = keepable(form), a.problemMessages(c, problems)
		if action == "preview" {
			return a.renderEditor(c, http.StatusOK, v)
		}
		v.Error = t(c, "editor.err_form")
		return a.renderEditor(c, http.StatusUnprocessableEntity, v)
	}
	switch action {
	case "preview":
		return a.renderEditor(c, http.StatusOK, v)
	case "save", "publish":
		return a.saveVersion(c, v, draft, action == "publish")
	}
	return echo.NewHTTPError(http.StatusBadRequest, t(c, "editor.err_action"))
}

// saveVersion adds the draft as the lesson's newest version and, when
// publish, shows it to students.
func (a *App) saveVersion(c echo.Context, v views.LessonEditorView, d models.LessonDraft, publish bool) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	saved, err := a.Content.SaveVersion(ctx, v.Lesson.ID, v.Form.Base, d, models.VersionSave, u.ID)
	if conflict, ok := errors.AsType[*models.EditConflictError](err); ok {
		// The next save goes through: the author has now seen theirs.
		v.Conflict, v.Newest, v.Form.Base = &conflict.Current, &conflict.Current, conflict.Current.Number
		return a.renderEditor(c, http.StatusConflict, v)
	}
	if err != nil {
		return err
	}
	msg := t(c, "editor.saved", saved.Number)
	if publish {
		if err := a.Content.Publish(ctx, v.Lesson.ID, saved.Number, models.Actor{ID: u.ID, Email: u.Email}); err != nil {
			return err
		}
		msg = t(c, "editor.published", saved.Number)
	}
	return a.flashTo(c, urls.LessonEditor(v.Lesson.ID), msg)
}

// unpublishLesson hides a published lesson from students.
func (a *App) unpublishLesson(c echo.Context) error {
	u := handlers.UserFrom(c)
	id := c.Param("id")
	err := a.Content.Unpublish(c.Request().Context(), id, models.Actor{ID: u.ID, Email: u.Email})
	switch {
	case errors.Is(err, models.ErrNotPublished):
		return a.flashTo(c, urls.LessonEditor(id), t(c, "editor.not_published"))
	case err != nil:
		return err
	}
	return a.flashTo(c, urls.LessonEditor(id), t(c, "editor.unpublished"))
}

// problemMessages are the refused fields' messages in the user's language.
func (a *App) problemMessages(c echo.Context, problems []models.DraftProblem) map[string]string {
	out := map[string]string{}
	for _, p := range problems {
		if _, seen := out[p.Field]; seen {
			continue
		}
		if p.Code != "too_long" {
			out[p.Field] = t(c, "editor.err."+p.Code)
			continue
		}
		limit := t(c, "editor.chars", fieldLimit(p.Field))
		if p.Field == "body" {
			limit = t(c, "editor.kib", models.MaxLessonBody>>10)
		}
		out[p.Field] = t(c, "editor.err.too_long", limit)
	}
	return out
}

// fieldLimit is a text field's bound in characters.
func fieldLimit(field string) int {
	switch field {
	case "title":
		return models.MaxLessonTitle
	case "summary":
		return models.MaxLessonSummary
	case "note":
		return models.MaxVersionNote
	}
	return models.MaxSuggestion
}

// keepable is the form as typed with what a page cannot hold (NUL, bytes
// that are not UTF-8) shown as U+FFFD, so the author finds them.
func keepable(f views.LessonEditorForm) views.LessonEditorForm {
	fix := func(s string) string { return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD") }
	f.Title, f.Summary, f.Language, f.Body, f.Note = fix(f.Title), fix(f.Summary), fix(f.Language), fix(f.Body), fix(f.Note)
	for i := range f.Suggestions {
		f.Suggestions[i] = fix(f.Suggestions[i])
	}
	return f
}
