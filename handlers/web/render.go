package web

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/i18n"
	"aula/views"
)

// isFragment decides between a full page and an HTMX fragment: an HTMX
// request that is neither boosted nor a history restore wants a fragment.
func isFragment(c echo.Context) bool {
	h := c.Request().Header
	return h.Get("HX-Request") == "true" && h.Get("HX-Boosted") != "true" &&
		h.Get("HX-History-Restore-Request") != "true"
}

// render writes page, or fragment when the request is a fragment request.
// A nil fragment means the page serves both.
func (a *App) render(c echo.Context, status int, page, fragment templ.Component) error {
	c.Response().Header().Add("Vary", "HX-Request")
	comp := page
	if fragment != nil && isFragment(c) {
		comp = fragment
	}
	// Render to a buffer first, so a failing component yields an error page
	// instead of half a page.
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// redirect answers a form post: 303 for plain browsers, HX-Redirect for HTMX.
func redirect(c echo.Context, to string) error {
	if c.Request().Header.Get("HX-Request") == "true" {
		c.Response().Header().Set("HX-Redirect", to)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// t translates key in the request's language.
func t(c echo.Context, key string, args ...any) string {
	return i18n.T(c.Request().Context(), key, args...)
}

// frame is the page frame data of the request.
func frame(c echo.Context) *views.Frame { return views.FrameFrom(c.Request().Context()) }

// ErrorPage renders an error as a page (or an HTMX fragment) in the user's
// language; the central error handler calls it for every non-API request.
func (a *App) ErrorPage(c echo.Context, status int, message string) error {
	// The page frame needs the session; when the database is down, render
	// without it rather than fail again.
	if status != http.StatusServiceUnavailable {
		_ = a.prepare(c)
	} else if c.Get(ctxSession) == nil {
		r := c.Request()
		c.SetRequest(r.WithContext(i18n.WithLang(r.Context(), i18n.Negotiate(r.Header.Get("Accept-Language")))))
	}
	if message == handlers.BadTextMessage {
		message = i18n.T(c.Request().Context(), message)
	}
	return a.render(c, status, views.ErrorPage(status, message), views.ErrorBox(status, message))
}
