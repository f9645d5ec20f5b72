package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// versionsPage is how many versions the history shows at a time.
const versionsPage = 30

// versionParam reads a version number from a query or form field: anything
// that is not one (not a number, 0, past int4) is no such version, a 404.
func versionParam(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || !models.ValidVersionNumber(n) {
		return 0, echo.ErrNotFound
	}
	return n, nil
}

// lessonHistory lists a lesson's versions, newest first, a page at a time.
func (a *App) lessonHistory(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	return a.renderHistory(c, http.StatusOK, views.LessonHistoryView{Flash: flash})
}

// renderHistory fills v with the lesson and the page of versions asked.
func (a *App) renderHistory(c echo.Context, status int, v views.LessonHistoryView) error {
	ctx := c.Request().Context()
	before := 0
	if q := c.QueryParam("before"); q != "" {
		var err error
		if before, err = versionParam(q); err != nil {
			return err
		}
	}
	l, err := a.Content.EditedLesson(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	vs, err := a.Content.Versions(ctx, l.ID, before, versionsPage+1)
	if err != nil {
		return err
	}
	if len(vs) > versionsPage {
		vs = vs[:versionsPage]
		v.Older = vs[versionsPage-1].Number
	}
	v.Lesson, v.Versions = l, vs
	return a.render(c, status, views.LessonHistoryPage(v), nil)
}

// lessonDiff compares two versions of a lesson section by section.
func (a *App) lessonDiff(c echo.Context) error {
	ctx := c.Request().Context()
	from, err := versionParam(c.QueryParam("from"))
	if err != nil {
		return err
	}
	to, err := versionParam(c.QueryParam("to"))
	if err != nil {
		return err
	}
	l, err := a.Content.EditedLesson(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	vf, err := a.Content.Version(ctx, l.ID, from)
	if err != nil {
		return versionNotFound(err)
	}
	vt, err := a.Content.Version(ctx, l.ID, to)
	if err != nil {
		return versionNotFound(err)
	}
	return a.render(c, http.StatusOK, views.LessonDiffPage(views.LessonDiffView{Lesson: l, From: from, To: to,
		Diff: models.DiffVersions(vf, vt)}), nil)
}

// versionNotFound answers a missing version with a 404.
func versionNotFound(err error) error {
	if errors.Is(err, models.ErrVersionNotFound) {
		return echo.ErrNotFound
	}
	return err
}

// restoreVersion makes an old version the newest again (and what students
// see, when the lesson is published), then opens it in the editor.
func (a *App) restoreVersion(c echo.Context) error {
	number, err := versionParam(c.FormValue("number"))
	if err != nil {
		return err
	}
	base, err := strconv.Atoi(c.FormValue("base"))
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, t(c, "editor.err_base"))
	}
	u := handlers.UserFrom(c)
	id := c.Param("id")
	v, err := a.Content.Restore(c.Request().Context(), id, number, base, models.Actor{ID: u.ID, Email: u.Email})
	if conflict, ok := errors.AsType[*models.EditConflictError](err); ok {
		return a.renderHistory(c, http.StatusConflict, views.LessonHistoryView{Error: t(c, "editor.restore_conflict", conflict.Current.Number)})
	}
	if err != nil {
		return versionNotFound(err)
	}
	l, err := a.Content.EditedLesson(c.Request().Context(), id)
	if err != nil {
		return err
	}
	msg := t(c, "editor.restored", number, v.Number)
	if l.Status == models.StatusPublished {
		msg = t(c, "editor.restored_pub", number, v.Number)
	}
	return a.flashTo(c, urls.LessonEditor(id), msg)
}
