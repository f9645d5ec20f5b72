package handlers

import (
	"github.com/labstack/echo/v4"
	"strings"

	"aula/models"
)

// userKey is where the request's signed-in user is kept.
const userKey = "aula.user"

// SetUser records the request's signed-in user: the session's on the site,
// the token's on the API. Every door sets it the same way.
func SetUser(c echo.Context, u *models.User) { c.Set(userKey, u) }

// UserFrom is the request's signed-in user, or nil for a visitor.
func UserFrom(c echo.Context) *models.User {
	u, _ := c.Get(userKey).(*models.User)
	return u
}

// BearerToken is the token of an "Authorization: Bearer …" header; the
// JSON API and MCP read their personal tokens with it.
func BearerToken(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	tok = strings.TrimSpace(tok)
	return tok, ok && strings.EqualFold(scheme, "Bearer") && tok != ""
}
