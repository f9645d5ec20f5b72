// Package handlers is aula's HTTP server: what every front door shares
// (request id, logging, recovery, security headers, body limit, health,
// metrics, static files, the central error handler and the HTTP server
// itself). The front doors are its subpackages: web (the site), api (the
// JSON API v1) and mcp (the MCP server); each lists its routes in one
// function, and New mounts them.
package handlers

import (
	"io/fs"
	"log/slog"
	"net"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"gorm.io/gorm"

	"aula/models"
	"aula/tutor"
	"aula/urls"
)

// maxBody bounds every request body but a content zip's; attachments are
// the largest (5 MB).
const maxBody = "6M"

// maxZipBody bounds the body of urls.ContentImportPath, a zip of lessons
// and images (the importer accepts 50 MiB; the handler answers a larger
// file in the author's language, this bound anything beyond).
const maxZipBody = "64M"

// bodyLimits bounds a request's body by its route, before any middleware
// reads it.
func bodyLimits() []echo.MiddlewareFunc {
	isZip := func(c echo.Context) bool { return c.Path() == urls.ContentImportPath }
	return []echo.MiddlewareFunc{
		middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: maxBody, Skipper: isZip}),
		middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: maxZipBody,
			Skipper: func(c echo.Context) bool { return !isZip(c) }}),
	}
}

// Door is a front door of aula: it registers every route it serves.
type Door interface {
	Routes(e *echo.Echo)
}

// ErrorPages renders an error as a page of the site, in the user's
// language; the web door implements it.
type ErrorPages interface {
	ErrorPage(c echo.Context, status int, message string) error
}

// Server holds what the shared pieces need; cmd/aula builds it.
type Server struct {
	DB           *gorm.DB
	Tutor        *tutor.Service
	Log          *slog.Logger
	Static       fs.FS
	AssetVersion string
	Metrics      *Metrics
	// Pages renders the errors of every request outside the API and MCP.
	Pages ErrorPages
	// TrustedProxies may name the client in X-Forwarded-For
	// (AULA_TRUSTED_PROXIES); nobody else's headers are believed.
	TrustedProxies []*net.IPNet
	// SecureCookies means aula is served over HTTPS: HSTS is sent too.
	SecureCookies bool
	// tokens finds the owner of a bearer token whose request the edge
	// refuses, to answer in their language.
	tokens *models.Tokens
}

// New builds the Echo server: the shared middleware and routes, then
// every door's routes.
func New(s *Server, doors ...Door) *echo.Echo {
	s.tokens = models.NewTokens(s.DB)
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = ClientAddress(s.TrustedProxies)
	e.Use(middleware.RequestIDWithConfig(middleware.RequestIDConfig{
		TargetHeader: echo.HeaderXRequestID,
		Generator:    newRequestID,
	}))
	e.Use(s.logRequests, s.recoverPanics, securityHeaders(s.SecureCookies))
	e.Use(bodyLimits()...)
	e.Use(rejectBadText)

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", s.metricsPage)
	e.GET("/static/highlight.css", s.highlightCSS)
	e.GET("/static/*", s.static)
	for _, d := range doors {
		d.Routes(e)
	}
	return e
}
