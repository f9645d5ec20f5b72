package handlers

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"aula/i18n"
	"aula/models"
	"aula/views"
)

const (
	ctxSession = "aula.session"
	csrfKey    = "csrf"
	localeKey  = "locale"
)

func newRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// logRequests writes one structured line per request. It logs the path
// without the query and never headers, cookies or bodies, so no password,
// token or cookie reaches a log line.
func (a *App) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		status := c.Response().Status
		a.metrics.countStatus(status)
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		}
		attrs := []slog.Attr{
			slog.String("id", c.Response().Header().Get(echo.HeaderXRequestID)),
			slog.String("method", c.Request().Method),
			slog.String("path", c.Request().URL.Path),
			slog.Int("status", status),
			slog.Duration("took", time.Since(start)),
		}
		if u := chrome(c).User; u != nil {
			attrs = append(attrs, slog.String("user", u.ID))
		}
		if err != nil && status >= 500 {
			attrs = append(attrs, slog.String("error", err.Error()))
		}
		a.Log.LogAttrs(c.Request().Context(), level, "request", attrs...)
		return nil
	}
}

// recoverPanics turns a panic into a 500 page and a logged stack.
func (a *App) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				a.Log.Error("panic", "id", c.Response().Header().Get(echo.HeaderXRequestID),
					"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return next(c)
	}
}

// securityHeaders sets the CSP and friends on every response.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
			"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		return next(c)
	}
}

// loadSession loads the server-side session and the signed-in user, picks
// the request's language, and puts the page frame's data in the context.
func (a *App) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := a.prepare(c); err != nil {
			return err
		}
		return next(c)
	}
}

// prepare does loadSession's work; the error handler calls it too, so a
// 404 for an unknown route is still in the user's language.
func (a *App) prepare(c echo.Context) error {
	if c.Get(ctxSession) != nil {
		return nil
	}
	r := c.Request()
	sess, err := a.Sessions.Get(r, sessionName)
	if err != nil {
		return fmt.Errorf("load session: %w", err)
	}
	c.Set(ctxSession, sess)
	ch := &views.Chrome{Path: r.URL.RequestURI(), AssetVersion: a.AssetVersion,
		RequestID: c.Response().Header().Get(echo.HeaderXRequestID)}
	if uid, ok := sess.Values[models.SessionUserKey].(string); ok && uid != "" {
		u, err := a.Users.Get(r.Context(), uid)
		switch {
		case err == nil:
			ch.User = u
		case models.IsUnavailable(err):
			return fmt.Errorf("load user: %w", err)
		}
	}
	tok, _ := sess.Values[csrfKey].(string)
	if tok == "" {
		tok = newToken()
		sess.Values[csrfKey] = tok
		if err := sess.Save(r, c.Response()); err != nil {
			return err
		}
	}
	ch.CSRF = tok
	lang := i18n.Negotiate(r.Header.Get("Accept-Language"))
	if l, ok := sess.Values[localeKey].(string); ok && l != "" {
		lang = l
	}
	if ch.User != nil && ch.User.Locale != "" {
		lang = ch.User.Locale
	}
	ctx := i18n.WithLang(views.WithChrome(r.Context(), ch), lang)
	c.SetRequest(r.WithContext(ctx))
	c.Response().Header().Set("Content-Language", lang)
	return nil
}

// session returns the request's session (loaded by loadSession).
func session(c echo.Context) *sessions.Session {
	s, _ := c.Get(ctxSession).(*sessions.Session)
	return s
}

// checkCSRF refuses a state-changing request whose _csrf field or
// X-CSRF-Token header does not match the session's token.
func (a *App) checkCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		want := chrome(c).CSRF
		got := c.Request().Header.Get("X-CSRF-Token")
		if got == "" {
			got = c.FormValue("_csrf")
		}
		if want == "" || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
			return echo.NewHTTPError(http.StatusForbidden, "CSRF token missing or wrong")
		}
		return next(c)
	}
}

// requireUser sends signed-out visitors to the sign-in page, coming back after.
func (a *App) requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if chrome(c).User == nil {
			if c.Path() == "/*" { // the group's catch-all: an unknown route is a 404, not a sign-in
				return echo.ErrNotFound
			}
			return redirect(c, "/login?next="+url.QueryEscape(c.Request().URL.RequestURI()))
		}
		return next(c)
	}
}

// safeNext returns next when it is a path on this site, else the default:
// no scheme, no host, no protocol-relative or backslash tricks.
func safeNext(next, def string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.ContainsAny(next, "\\\r\n\t") || strings.HasPrefix(next, "/%2f") || strings.HasPrefix(next, "/%2F") {
		return def
	}
	return next
}
