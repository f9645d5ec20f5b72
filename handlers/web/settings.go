package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// settingsPage shows the account sections and the tokens, a new token once.
func (a *App) settingsPage(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	p := views.SettingsPage{Revoked: c.QueryParam("revoked") == "1", Account: views.AccountView{Flash: flash}}
	if v := a.openOnce(c, newAPIToken, handlers.UserFrom(c).ID); len(v) == 2 {
		p.NewTokenName, p.NewToken = v[0], v[1]
	}
	return a.renderSettings(c, http.StatusOK, p)
}

// renderSettings fills the page's tokens and devices and renders it.
func (a *App) renderSettings(c echo.Context, status int, p views.SettingsPage) error {
	u := handlers.UserFrom(c)
	ctx := c.Request().Context()
	var err error
	if p.Tokens, err = a.Tokens.List(ctx, u.ID); err != nil {
		return err
	}
	if p.Account.Devices, err = a.Devices.Devices(ctx, u.ID, session(c).ID); err != nil {
		return err
	}
	p.Account.User = u
	if p.Org, err = a.Orgs.MembershipOf(ctx, u.ID); errors.Is(err, models.ErrNotFound) {
		p.Org, err = nil, nil
	}
	if err != nil {
		return err
	}
	// The page may hold a secret: never cache it.
	c.Response().Header().Set("Cache-Control", "no-store")
	return a.render(c, status, views.Settings(p), nil)
}

// createToken makes a named token and sends the browser to see it once.
func (a *App) createToken(c echo.Context) error {
	u := handlers.UserFrom(c)
	ctx := c.Request().Context()
	name := c.FormValue("name")
	tok, raw, err := a.Tokens.Create(ctx, u.ID, name)
	if errors.Is(err, models.ErrTokenName) {
		return a.renderSettings(c, http.StatusUnprocessableEntity, views.SettingsPage{Error: "settings.err_name", Name: name})
	}
	if err != nil {
		return err
	}
	if err := a.sealOnce(c, newAPIToken, u.ID, tok.Name, raw); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, urls.Settings("new-token"))
}

// revokeToken ends one of the user's tokens; someone else's id is a 404.
func (a *App) revokeToken(c echo.Context) error {
	if err := a.Tokens.Revoke(c.Request().Context(), handlers.UserFrom(c).ID, c.Param("id")); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, urls.SettingsRevoked())
}
