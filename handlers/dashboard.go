package handlers

import "github.com/labstack/echo/v4"

// studentRoutes registers the student pages: dashboard, upgrade.
func (a *App) studentRoutes(g *echo.Group) {}
