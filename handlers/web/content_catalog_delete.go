package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"aula/models"
	"aula/urls"
	"aula/views"
)

// contentDeleteLessonConfirm asks before a lesson is deleted, saying how
// many students' threads are about it and that they stay readable.
func (a *App) contentDeleteLessonConfirm(c echo.Context) error {
	l, err := a.Content.LessonToDelete(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.ContentDeleteLessonPage(l), nil)
}

// contentDeleteLesson deletes a lesson; its threads keep its title.
func (a *App) contentDeleteLesson(c echo.Context) error {
	ctx := c.Request().Context()
	l, err := a.Content.LessonToDelete(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	if err := a.Content.DeleteLesson(ctx, actor(c), l.ID); err != nil {
		return err
	}
	return a.flashTo(c, urls.Content(), t(c, "content.deleted", l.Title))
}

// contentDeleteModuleConfirm asks before an empty module is deleted (and
// says why not when it has lessons).
func (a *App) contentDeleteModuleConfirm(c echo.Context) error {
	id, err := moduleParam(c)
	if err != nil {
		return err
	}
	m, err := a.Content.ModuleToDelete(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.ContentDeleteModulePage(m, false), nil)
}

// contentDeleteModule deletes an empty module; a module with lessons is
// refused (422) on its confirmation page, with the reason.
func (a *App) contentDeleteModule(c echo.Context) error {
	id, err := moduleParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	m, err := a.Content.ModuleToDelete(ctx, id)
	if err != nil {
		return err
	}
	err = a.Content.DeleteModule(ctx, actor(c), id)
	if full, ok := errors.AsType[*models.NotEmptyError](err); ok {
		m.Lessons = full.Count
		return a.render(c, http.StatusUnprocessableEntity, views.ContentDeleteModulePage(m, true), nil)
	}
	if err != nil {
		return err
	}
	return a.flashTo(c, urls.ContentAt("path-"+m.PathSlug), t(c, "content.deleted", m.Title))
}

// contentDeletePathConfirm asks before an empty path is deleted.
func (a *App) contentDeletePathConfirm(c echo.Context) error {
	p, err := a.Content.PathToDelete(c.Request().Context(), c.Param("slug"))
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.ContentDeletePathPage(p, false), nil)
}

// contentDeletePath deletes an empty path; one with modules is refused (422).
func (a *App) contentDeletePath(c echo.Context) error {
	ctx := c.Request().Context()
	p, err := a.Content.PathToDelete(ctx, c.Param("slug"))
	if err != nil {
		return err
	}
	err = a.Content.DeletePath(ctx, actor(c), p.Slug)
	if full, ok := errors.AsType[*models.NotEmptyError](err); ok {
		p.Modules = full.Count
		return a.render(c, http.StatusUnprocessableEntity, views.ContentDeletePathPage(p, true), nil)
	}
	if err != nil {
		return err
	}
	return a.flashTo(c, urls.Content(), t(c, "content.deleted", p.Title))
}
