package web

import (
	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/i18n"
	"aula/urls"
)

// setLocale switches the UI language; it persists in the account when
// signed in and in the session otherwise.
func (a *App) setLocale(c echo.Context) error {
	lang := i18n.Normalize(c.FormValue("locale"))
	sess := session(c)
	sess.Values[localeKey] = lang
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	if u := handlers.UserFrom(c); u != nil {
		if err := a.Users.SetLocale(c.Request().Context(), u.ID, lang); err != nil {
			return err
		}
	}
	return redirect(c, safeNext(c.FormValue("next"), urls.Learn()))
}

// langOf is the language of the request.
func langOf(c echo.Context) string { return i18n.Lang(c.Request().Context()) }
