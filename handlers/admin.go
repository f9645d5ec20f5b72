package handlers

import "github.com/labstack/echo/v4"

// adminRoutes registers the admin pages under /admin.
func (a *App) adminRoutes(g *echo.Group) {}
