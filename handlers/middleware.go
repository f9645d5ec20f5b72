package handlers

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

func newRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// logRequests writes one structured line per request. It logs the path
// without the query and never headers, cookies or bodies, so no password,
// token or cookie reaches a log line.
//
// The line is written by logRequest, not here: this frame stays on the
// stack under the handler for the whole of a streamed answer, and the
// collector halves a waiting goroutine's stack only while it uses less
// than a quarter of it. With the line's attributes in this frame, a
// class of answers kept 16 KiB stacks where 8 KiB now do.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		s.logRequest(c, start, err)
		return nil
	}
}

// logRequest renders err, if any, and writes the request's line.
func (s *Server) logRequest(c echo.Context, start time.Time, err error) {
	if err != nil {
		c.Error(err)
	}
	status := c.Response().Status
	s.Metrics.countStatus(status)
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	path := c.Request().URL.Path
	if strings.HasSuffix(c.Path(), "/:token") {
		// A path carrying a secret (a password reset link) is logged
		// as its route, so the logs cannot be used to take an account.
		path = c.Path()
	}
	attrs := []slog.Attr{
		slog.String("id", c.Response().Header().Get(echo.HeaderXRequestID)),
		slog.String("method", c.Request().Method),
		slog.String("path", path),
		slog.Int("status", status),
		slog.Duration("took", time.Since(start)),
	}
	if u := UserFrom(c); u != nil {
		attrs = append(attrs, slog.String("user", u.ID))
	}
	if err != nil && status >= 500 {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	s.Log.LogAttrs(c.Request().Context(), level, "request", attrs...)
}

// recoverPanics turns a panic into a 500 page and a logged stack.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				s.Log.Error("panic", "id", c.Response().Header().Get(echo.HeaderXRequestID),
					"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return next(c)
	}
}

// securityHeaders sets the CSP and friends on every response, and HSTS
// when aula is served over HTTPS (secure cookies on).
func securityHeaders(https bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
				"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'")
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Cross-Origin-Opener-Policy", "same-origin")
			h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
			if https {
				h.Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
			}
			return next(c)
		}
	}
}

// NoStore marks a door's responses as the user's own: no browser or proxy
// cache may keep them (a shared computer's back button, a proxy). A handler
// may still set its own Cache-Control afterwards (public documents).
func NoStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "no-store")
		return next(c)
	}
}
