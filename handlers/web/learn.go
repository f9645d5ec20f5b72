package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/markdown"
	"aula/models"
	"aula/views"
)

// catalog lists every learning path with the student's progress on it
// and the lesson to go on with.
func (a *App) catalog(c echo.Context) error {
	ctx, uid := c.Request().Context(), handlers.UserFrom(c).ID
	paths, err := a.Content.Catalog(ctx)
	if err != nil {
		return err
	}
	prog, err := a.Progress.Lessons(ctx, uid, 0)
	if err != nil {
		return err
	}
	resume, err := a.Progress.Resume(ctx, uid, a.Tutor.Now())
	if err != nil {
		return err
	}
	assigned, err := a.Orgs.AssignedTo(ctx, uid)
	if err != nil {
		return err
	}
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.Catalog(views.CatalogView{Paths: paths, Progress: prog, Resume: resume,
		Assigned: assigned, Now: a.Tutor.Now(), Flash: flash}), nil)
}

// path shows one path's modules and lessons with the student's progress.
func (a *App) path(c echo.Context) error {
	ctx := c.Request().Context()
	p, err := a.Content.PathBySlug(ctx, c.Param("path"))
	if err != nil {
		return err
	}
	prog, err := a.Progress.Lessons(ctx, handlers.UserFrom(c).ID, p.ID)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.PathPage(p, prog), nil)
}

// lesson shows a lesson with its neighbours and the tutor panel.
func (a *App) lesson(c echo.Context) error {
	return a.renderLesson(c, c.Param("path"), c.Param("lesson"), nil, views.AskForm{}, http.StatusOK)
}

// renderLesson draws the lesson page; conv and form restore the panel after a refused question.
func (a *App) renderLesson(c echo.Context, pathSlug, lessonID string, conv *models.Conversation, form views.AskForm, status int) error {
	page, err := a.Content.LessonPage(c.Request().Context(), pathSlug, lessonID)
	if err != nil {
		return err
	}
	state, err := a.Progress.VisitLesson(c.Request().Context(), handlers.UserFrom(c).ID, page.Lesson.ID, a.Tutor.Now())
	if err != nil {
		return err
	}
	panel, err := a.lessonPanel(c, page, conv, form)
	if err != nil {
		return err
	}
	checks, err := a.sectionChecks(c.Request().Context(), page)
	if err != nil {
		return err
	}
	v := views.LessonView{Page: page, Body: markdown.Render(page.Lesson.ContentMD), Progress: *state, SectionChecks: checks,
		Minutes: max(1, len(strings.Fields(page.Lesson.ContentMD))/200), Panel: views.TutorPanel(*panel)}
	return a.render(c, status, views.LessonPage(v), nil)
}
