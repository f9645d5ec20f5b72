package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"aula/models"
	"aula/urls"
	"aula/views"
)

// adminUnderstanding shows where students' understanding fails: the check
// answers graded *not yet* per lesson and section beside their 👎, the
// questions missed most, and each section before and after its lesson was
// edited; ?after= pages the sections.
func (a *App) adminUnderstanding(c echo.Context) error {
	after, err := models.ParseUnderstandingCursor(c.QueryParam("after"))
	if errors.Is(err, models.ErrBadCursor) {
		return echo.NewHTTPError(http.StatusBadRequest, t(c, "admin.bad_cursor"))
	}
	u, err := a.Stats.AdminUnderstanding(c.Request().Context(), after)
	if err != nil {
		return err
	}
	next := ""
	if u.Next != nil {
		next = urls.AdminUnderstanding(models.EncodeUnderstandingCursor(*u.Next))
	}
	return a.render(c, http.StatusOK, views.AdminUnderstandingPage(u, after != nil, next), nil)
}
