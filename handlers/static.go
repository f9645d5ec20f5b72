package handlers

import (
	"io/fs"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/markdown"
)

// static serves the embedded files. A URL carrying the current version is
// immutable and cached for a year; others are revalidated. http.FS refuses
// paths that leave the tree.
func (s *Server) static(c echo.Context) error {
	// Only files: a directory would be listed, and an invalid name (.., a
	// trailing slash, an empty name) is nothing to serve.
	name := c.Param("*")
	if fi, err := fs.Stat(s.Static, name); err != nil || fi.IsDir() || strings.HasSuffix(name, ".go") {
		return echo.ErrNotFound
	}
	if c.QueryParam("v") == s.AssetVersion {
		c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		c.Response().Header().Set("Cache-Control", "public, max-age=300")
	}
	r := c.Request()
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/" + c.Param("*")
	http.FileServer(http.FS(s.Static)).ServeHTTP(c.Response(), r2)
	return nil
}

// highlightCSS serves the code highlighting stylesheet.
func (s *Server) highlightCSS(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "public, max-age=86400")
	return c.Blob(http.StatusOK, "text/css; charset=utf-8", []byte(markdown.HighlightCSS()))
}
