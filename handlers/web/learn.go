package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/markdown"
	"aula/models"
	"aula/views"
)

// catalog lists every learning path.
func (a *App) catalog(c echo.Context) error {
	paths, err := a.Content.Catalog(c.Request().Context())
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.Catalog(paths), nil)
}

// path shows one path's modules and lessons.
func (a *App) path(c echo.Context) error {
	p, err := a.Content.PathBySlug(c.Request().Context(), c.Param("path"))
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.PathPage(p), nil)
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
	panel, err := a.lessonPanel(c, page, conv, form)
	if err != nil {
		return err
	}
	v := views.LessonView{Page: page, Body: markdown.Render(page.Lesson.ContentMD),
		Minutes: max(1, len(strings.Fields(page.Lesson.ContentMD))/200), Panel: views.TutorPanel(*panel)}
	return a.render(c, status, views.LessonPage(v), nil)
}
