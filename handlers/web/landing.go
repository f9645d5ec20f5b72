package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/urls"
	"aula/views"
)

// home is "/": the catalog when signed in, the landing page for visitors.
func (a *App) home(c echo.Context) error {
	if handlers.UserFrom(c) != nil {
		return c.Redirect(http.StatusSeeOther, urls.Learn())
	}
	deleted := ""
	if c.QueryParam("deleted") == "1" {
		deleted = t(c, "account.deleted")
	}
	return a.render(c, http.StatusOK, views.Landing(deleted), nil)
}
