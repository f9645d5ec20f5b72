package web

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/handlers/htmx"
	"aula/i18n"
	"aula/views"
)

// isFragment reports whether the request wants an HTMX fragment rather
// than a whole page (htmx.Request.WantsFragment).
func isFragment(c echo.Context) bool { return htmx.FromRequest(c.Request()).WantsFragment() }

// render is the one place a page or a fragment is chosen: an HTMX
// fragment request gets fragment alone; any other request gets page's
// content framed in the layout. A nil fragment means the page serves both.
func (a *App) render(c echo.Context, status int, page views.Page, fragment templ.Component) error {
	c.Response().Header().Add("Vary", htmx.HeaderRequest)
	var comp templ.Component = views.Layout(page)
	if fragment != nil && (page.Body == nil || isFragment(c)) {
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

// fragment renders a piece of a page that has no page of its own (a
// thread list page, a bubble, the rating form): an HTMX target.
func (a *App) fragment(c echo.Context, status int, comp templ.Component) error {
	return a.render(c, status, views.Page{}, comp)
}

// redirect answers a form post: 303 for plain browsers, HX-Redirect for HTMX.
func redirect(c echo.Context, to string) error {
	if htmx.FromRequest(c.Request()).Enabled {
		c.Response().Header().Set(htmx.HeaderRedirect, to)
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
