package handlers

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"aula/i18n"
	"aula/models"
)

// handleError is the one place errors become responses: an HTML page, an
// HTMX fragment, or JSON under /api. Responses already sent are left alone.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, message := http.StatusInternalServerError, ""
	var he *echo.HTTPError
	ae, isAPI := asAPIError(err)
	switch {
	case isAPI:
		status = ae.Status
	case errors.As(err, &he):
		status = he.Code
		// A validation message says what to fix; the other statuses have
		// their own page text in the user's language.
		if msg, ok := he.Message.(string); ok && (status == http.StatusBadRequest || status == http.StatusConflict ||
			status == http.StatusUnprocessableEntity || status == http.StatusTooManyRequests) {
			message = msg
		}
	case errors.Is(err, errBadText) || models.IsInvalidText(err):
		// Refused at the edge, or (a path the edge missed) by PostgreSQL:
		// either way the client sent it, and no database text is shown.
		status, message = http.StatusBadRequest, BadTextMessage
		if IsAPIPath(c.Request().URL.Path) {
			ae = &APIError{Status: status, Code: CodeInvalidText, Message: i18n.In(s.ownerLang(c), BadTextMessage)}
		}
	case errors.Is(err, models.ErrNotFound):
		status = http.StatusNotFound
	case models.IsUnavailable(err):
		status = http.StatusServiceUnavailable
	case errors.Is(err, context.Canceled):
		// The client went away; there is nobody to answer.
		return
	}
	if status >= 500 && status != http.StatusServiceUnavailable {
		s.Log.Error("request failed", "id", c.Response().Header().Get(echo.HeaderXRequestID),
			"path", c.Request().URL.Path, "error", err.Error())
	}
	if status == http.StatusServiceUnavailable {
		c.Response().Header().Set("Retry-After", "5")
	}
	if IsAPIPath(c.Request().URL.Path) {
		writeAPIError(c, status, ae)
		return
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	if rerr := s.Pages.ErrorPage(c, status, message); rerr != nil {
		_ = c.String(status, http.StatusText(status))
	}
}

// ownerLang is the language of the bearer token's owner, for a refusal
// made at the edge before the API or MCP read the token; without a valid
// token, the request's language.
func (s *Server) ownerLang(c echo.Context) string {
	ctx := c.Request().Context()
	raw, ok := BearerToken(c.Request().Header.Get(echo.HeaderAuthorization))
	if !ok || s.tokens == nil {
		return i18n.Lang(ctx)
	}
	u, _, err := s.tokens.Authenticate(ctx, raw, s.Tutor.Now().UTC())
	if err != nil {
		return i18n.Lang(ctx)
	}
	return i18n.Normalize(u.Locale)
}
