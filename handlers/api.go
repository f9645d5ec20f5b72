package handlers

import "github.com/labstack/echo/v4"

// apiRoutes registers the JSON API under /api/v1 and the MCP server at /mcp.
func (a *App) apiRoutes(e *echo.Echo) {}

// settingsRoutes registers /settings and the personal API tokens.
func (a *App) settingsRoutes(g *echo.Group) {}
