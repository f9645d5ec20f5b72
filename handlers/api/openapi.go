package api

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPIDoc is the OpenAPI 3 description of /api/v1; openapi_test checks
// every route in it answers as it says.
//
//go:embed openapi.json
var openAPIDoc []byte

// openAPI serves the API's description; it is public, like any API reference.
func (a *App) openAPI(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.Blob(http.StatusOK, "application/json", openAPIDoc)
}
