package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"aula/models"
	"aula/views"
)

// contentFeedback shows what students made of each published section of
// a lesson (also the editor's outline without JavaScript), with the
// tutor's help for its author on the lesson's newest text.
func (a *App) contentFeedback(c echo.Context) error {
	ctx := c.Request().Context()
	fb, err := a.lessonFeedback(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	form, err := a.newestText(ctx, fb)
	if err != nil {
		return err
	}
	return a.renderFeedback(c, http.StatusOK, fb, views.AssistView{Form: form})
}

// lessonFeedback reads a lesson's feedback; an unknown lesson is 404.
func (a *App) lessonFeedback(ctx context.Context, lessonID string) (*models.LessonFeedback, error) {
	fb, err := a.Content.SectionFeedback(ctx, lessonID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, echo.ErrNotFound
	}
	return fb, err
}

// newestText is the lesson's newest version as the assist form shows it
// (a lesson without versions: its title and language).
func (a *App) newestText(ctx context.Context, fb *models.LessonFeedback) (views.AssistForm, error) {
	form := views.AssistForm{Title: fb.Title, Language: fb.Language}
	v, err := a.Content.Version(ctx, fb.LessonID, fb.Version)
	if errors.Is(err, models.ErrNotFound) {
		return form, nil
	}
	if err != nil {
		return form, err
	}
	form.Title, form.Language, form.Body = v.Title, v.Language, v.ContentMD
	copy(form.Suggestions[:], v.Suggestions)
	return form, nil
}

// renderFeedback shows the feedback page with the assist form as v has
// it; the preview offers the sections of the form's text.
func (a *App) renderFeedback(c echo.Context, status int, fb *models.LessonFeedback, v views.AssistView) error {
	for _, s := range models.LessonSections(v.Form.Title, v.Form.Body) {
		if n := len(v.Sections); n == 0 || v.Sections[n-1].Anchor != s.Anchor {
			v.Sections = append(v.Sections, views.AssistSection{Anchor: s.Anchor, Heading: s.Heading})
		}
	}
	return a.render(c, status, views.ContentFeedbackPage(views.ContentFeedbackView{Feedback: fb, Assist: v}), nil)
}

// outlineFeedback puts beside each section of the editor's outline what
// students made of its published text.
func (a *App) outlineFeedback(ctx context.Context, lessonID string, outline []views.OutlineSection) error {
	fb, err := a.lessonFeedback(ctx, lessonID)
	if err != nil {
		return err
	}
	for i := range outline {
		f := fb.Of(outline[i].Anchor)
		outline[i].Feedback = &f
	}
	return nil
}
