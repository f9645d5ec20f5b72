package web

import (
	"crypto/sha256"
	"errors"
	"net/http"
	"strings"

	"github.com/gorilla/securecookie"
	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/views"
)

// newTokenCookie carries a just-created token, sealed, from the form's
// 303 to the page that shows it once; the secret never reaches the database.
const newTokenCookie = "aula_new_token"

// newTokenTTL bounds how long a sealed new token can still be shown.
const newTokenTTL = 300

// settingsRoutes registers /settings and the personal API tokens.
func (a *App) settingsRoutes(g *echo.Group) {
	g.GET("/settings", a.settingsPage)
	g.POST("/settings/tokens", a.createToken)
	g.POST("/settings/tokens/:id/revoke", a.revokeToken)
}

// newTokenFlash derives the flash cookie's own keys from the session key,
// so it needs no configuration and a session cookie cannot be replayed as one.
func newTokenFlash(sessionKey []byte) *securecookie.SecureCookie {
	hash := sha256.Sum256(append([]byte("aula token flash hash:"), sessionKey...))
	block := sha256.Sum256(append([]byte("aula token flash block:"), sessionKey...))
	sc := securecookie.New(hash[:], block[:])
	sc.MaxAge(newTokenTTL)
	return sc
}

// settingsPage lists the user's tokens and shows a new one once.
func (a *App) settingsPage(c echo.Context) error {
	u := handlers.UserFrom(c)
	tokens, err := a.Tokens.List(c.Request().Context(), u.ID)
	if err != nil {
		return err
	}
	p := views.SettingsPage{Tokens: tokens, Revoked: c.QueryParam("revoked") == "1"}
	p.NewTokenName, p.NewToken = a.takeNewToken(c, u.ID)
	// The page may hold a secret: never cache it.
	c.Response().Header().Set("Cache-Control", "no-store")
	return a.render(c, http.StatusOK, views.Settings(p), nil)
}

// createToken makes a named token and sends the browser to see it once.
func (a *App) createToken(c echo.Context) error {
	u := handlers.UserFrom(c)
	ctx := c.Request().Context()
	name := c.FormValue("name")
	tok, raw, err := a.Tokens.Create(ctx, u.ID, name)
	if errors.Is(err, models.ErrTokenName) {
		tokens, lerr := a.Tokens.List(ctx, u.ID)
		if lerr != nil {
			return lerr
		}
		return a.render(c, http.StatusUnprocessableEntity, views.Settings(views.SettingsPage{Tokens: tokens,
			Error: "settings.err_name", Name: name}), nil)
	}
	if err != nil {
		return err
	}
	sealed, err := a.tokenFlash.Encode(newTokenCookie, u.ID+"\n"+tok.Name+"\n"+raw)
	if err != nil {
		return err
	}
	c.SetCookie(a.tokenCookie(sealed, newTokenTTL))
	return c.Redirect(http.StatusSeeOther, "/settings#new-token")
}

// revokeToken ends one of the user's tokens; someone else's id is a 404.
func (a *App) revokeToken(c echo.Context) error {
	if err := a.Tokens.Revoke(c.Request().Context(), handlers.UserFrom(c).ID, c.Param("id")); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/settings?revoked=1")
}

// takeNewToken reads and clears the sealed new token, if it is this user's.
func (a *App) takeNewToken(c echo.Context, userID string) (name, raw string) {
	ck, err := c.Cookie(newTokenCookie)
	if err != nil {
		return "", ""
	}
	c.SetCookie(a.tokenCookie("", -1))
	var v string
	if a.tokenFlash.Decode(newTokenCookie, ck.Value, &v) != nil {
		return "", ""
	}
	parts := strings.SplitN(v, "\n", 3)
	if len(parts) != 3 || parts[0] != userID {
		return "", ""
	}
	return parts[1], parts[2]
}

func (a *App) tokenCookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: newTokenCookie, Value: value, Path: "/settings", MaxAge: maxAge, HttpOnly: true,
		Secure: a.Sessions.Options.Secure, SameSite: http.SameSiteStrictMode}
}
