package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"aula/handlers"
	"aula/models"
)

// tokenCheck is the outcome of checking the request's token before the SDK
// sees the request: the user, or that the token is not valid.
type tokenCheck struct {
	user    *models.User
	invalid bool
}

type tokenCheckKey struct{}

// checkToken looks the bearer token up before the MCP handler runs, so
// that a database that cannot be reached answers as the JSON API does (503
// SERVICE_UNAVAILABLE through the central error handler, no internals);
// the SDK would write the driver's error text, with the database's user,
// name, host and port, into a 500. verifyMCPToken then reads the outcome.
func (a *App) checkToken(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		raw, ok := handlers.BearerToken(c.Request().Header.Get(echo.HeaderAuthorization))
		if !ok {
			return next(c) // the SDK answers 401 with its challenge
		}
		u, _, err := a.Tokens.Authenticate(c.Request().Context(), raw, a.Tutor.Now().UTC())
		check := tokenCheck{user: u, invalid: errors.Is(err, models.ErrInvalidToken)}
		if err != nil && !check.invalid {
			return err
		}
		r := c.Request()
		c.SetRequest(r.WithContext(context.WithValue(r.Context(), tokenCheckKey{}, check)))
		return next(c)
	}
}

// verifyMCPToken gives the SDK checkToken's outcome.
func (a *App) verifyMCPToken(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
	check, ok := ctx.Value(tokenCheckKey{}).(tokenCheck)
	if !ok || check.invalid || check.user == nil {
		return nil, fmt.Errorf("%w: revoked, unknown or malformed personal token", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{UserID: check.user.ID, Scopes: []string{mcpScope}}, nil
}

// safeTool keeps a tool's errors free of aula's internals (SQL, hosts,
// driver texts): an APIError keeps its code and message, a database that
// cannot be reached is SERVICE_UNAVAILABLE as in the JSON API, and any
// other error is logged and becomes INTERNAL_ERROR.
func safeTool[In, Out any](a *App, h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		var ae *handlers.APIError
		switch {
		case err == nil, errors.As(err, &ae), errors.Is(err, context.Canceled):
		case models.IsUnavailable(err):
			err = handlers.APIErr(http.StatusServiceUnavailable, handlers.CodeUnavailable,
				"the database cannot be reached right now; try again in a moment")
		case models.IsInvalidText(err):
			err = handlers.APIErr(http.StatusBadRequest, handlers.CodeInvalidText,
				"an argument contains a NUL character or bytes that are not UTF-8")
		default:
			a.Log.Error("mcp tool failed", "tool", req.Params.Name, "error", err.Error())
			err = handlers.APIErr(http.StatusInternalServerError, "INTERNAL_ERROR", "aula hit an unexpected error; it has been logged")
		}
		return res, out, err
	}
}
