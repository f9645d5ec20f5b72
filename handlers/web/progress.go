package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/tutor"
	"aula/urls"
	"aula/views"
)

// markRead records that the student read a lesson: its "Mark as done"
// button, or the browser reaching the lesson's end. HTMX gets the read
// state back; a plain form returns to the end of the lesson.
func (a *App) markRead(c echo.Context) error {
	pathSlug, lessonID := c.Param("path"), c.Param("lesson")
	if err := a.Progress.MarkRead(c.Request().Context(), handlers.UserFrom(c).ID, pathSlug, lessonID, a.Tutor.Now()); err != nil {
		return err
	}
	if isFragment(c) {
		return a.fragment(c, http.StatusOK, views.ReadState(pathSlug, lessonID, true))
	}
	return c.Redirect(http.StatusSeeOther, urls.Lesson(pathSlug, lessonID)+"#lesson-end")
}

// review starts a check over the student's sections due for review (as
// many as one check asks about, the longest due first) and opens it.
func (a *App) review(c echo.Context) error {
	ctx, u := c.Request().Context(), handlers.UserFrom(c)
	due, err := a.Progress.Due(ctx, u.ID, a.Tutor.Now(), models.MaxCheckItems)
	if err != nil {
		return err
	}
	if len(due) == 0 {
		return echo.NewHTTPError(http.StatusConflict, t(c, "progress.nothing_due"))
	}
	st, err := a.Tutor.StartCheck(ctx, u, tutor.CheckScope{Sections: due})
	if r, ans, ok := handlers.Refused(err); ok {
		return echo.NewHTTPError(ans.Status, refusalMessage(c, r))
	}
	if err != nil {
		return err
	}
	return redirect(c, urls.Check(st.Check.ConversationID))
}
