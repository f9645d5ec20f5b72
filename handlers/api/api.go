// Package api is aula's JSON API v1 and its OpenAPI document: other
// programs ask the tutor and read their history with a personal token.
package api

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"gorm.io/gorm"

	"aula/handlers"
	"aula/i18n"
	"aula/models"
	"aula/tutor"
	"aula/tutor/stream"
)

// apiMaxBody bounds a JSON API request: a 4,000-character question and ten
// turns of history fit many times over.
const apiMaxBody = "256K"

// App holds the API's dependencies; cmd/aula builds it with New.
type App struct {
	Tutor         *tutor.Service
	Streams       *stream.Broker
	Tokens        *models.Tokens
	Content       *models.Content
	Conversations *models.Conversations
	Messages      *models.Messages
	Quotas        *models.Quotas
	Stats         *models.Stats
	Outside       *handlers.Outside
}

// New builds the API's stores on db around the tutor service.
func New(db *gorm.DB, svc *tutor.Service) *App {
	a := &App{
		Tutor:         svc,
		Streams:       svc.Streams(),
		Tokens:        models.NewTokens(db),
		Content:       models.NewContent(db),
		Conversations: svc.Conversations(),
		Messages:      models.NewMessages(db),
		Quotas:        models.NewQuotas(db),
		Stats:         models.NewStats(db),
	}
	a.Outside = &handlers.Outside{Tutor: svc, Content: a.Content, Conversations: a.Conversations,
		Orgs: models.NewOrganizations(db)}
	return a
}

// Routes registers the JSON API under /api/v1, on the server itself: it
// authenticates with bearer tokens, never with the cookie session, so
// CSRF does not apply.
func (a *App) Routes(e *echo.Echo) {
	e.GET("/api/v1/openapi.json", a.openAPI)
	api := e.Group("/api/v1", middleware.BodyLimit(apiMaxBody), handlers.NoStore, a.requireToken)
	api.POST("/tutor/stream", a.apiStream, handlers.LimitStreams(a.Streams))
	api.POST("/tutor/chat", a.apiChat)
	api.POST("/tutor/rate", a.apiRate)
	api.GET("/tutor/suggestions", a.apiSuggestions)
	api.GET("/tutor/monthly-usage", a.apiMonthlyUsage)
	api.GET("/tutor/my-history", a.apiMyHistory)
	api.GET("/tutor/my-usage", a.apiMyUsage)
	api.GET("/tutor/session-info", a.apiSessionInfo)
	api.GET("/conversations", a.apiListConversations)
	api.POST("/conversations", a.apiCreateConversation)
	api.GET("/conversations/:id", a.apiGetConversation)
	api.DELETE("/conversations/:id", a.apiDeleteConversation)
	api.POST("/messages/:answerId/regenerate", a.apiRegenerate)
	api.POST("/messages/:answerId/versions/:n", a.apiShowVersion)
	api.POST("/checks", a.apiStartCheck)
	api.GET("/checks/:checkId", a.apiGetCheck)
	api.POST("/checks/:checkId/answer", a.apiAnswerCheck)
	// An organization's admin reads its people and progress and assigns
	// lessons (per route, not a group: a group's middleware adds catch-all routes).
	api.GET("/org/members", a.apiOrgMembers, a.requireOrgAdmin)
	api.GET("/org/groups", a.apiOrgGroups, a.requireOrgAdmin)
	api.GET("/org/assignments", a.apiOrgAssignments, a.requireOrgAdmin)
	api.POST("/org/assignments", a.apiOrgAssign, a.requireOrgAdmin)
	api.GET("/org/assignments/:assignmentId", a.apiOrgAssignment, a.requireOrgAdmin)
	api.GET("/org/progress", a.apiOrgProgress, a.requireOrgAdmin)
	api.GET("/org/progress.csv", a.apiOrgProgressCSV, a.requireOrgAdmin)
	// Anything else under /api is the API's 404, not a page of the site.
	e.Any("/api/*", func(echo.Context) error { return handlers.ErrAPINotFound })
}

// requireToken lets a request through with a live personal token and puts
// its user (and their language) where the handlers and the log find it.
func (a *App) requireToken(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		raw, ok := handlers.BearerToken(c.Request().Header.Get(echo.HeaderAuthorization))
		if !ok {
			return handlers.ErrUnauthorized
		}
		r := c.Request()
		u, _, err := a.Tokens.Authenticate(r.Context(), raw, a.Tutor.Now().UTC())
		if errors.Is(err, models.ErrInvalidToken) {
			return handlers.ErrUnauthorized
		}
		if err != nil {
			return err
		}
		handlers.SetUser(c, u)
		c.SetRequest(r.WithContext(i18n.WithLang(r.Context(), u.Locale)))
		return next(c)
	}
}

// decodeJSON reads the body as one JSON value into v, whatever the
// Content-Type says (curl -d sends a form type).
func decodeJSON(c echo.Context, v any) error { return decodeBody(c, v, false) }

// decodeStrict is decodeJSON refusing fields v does not have: a misspelt
// field of a request that writes would otherwise be silently dropped.
func decodeStrict(c echo.Context, v any) error { return decodeBody(c, v, true) }

// decodeBody reads one JSON value into v; a refusal is in the language of
// the token's owner.
func decodeBody(c echo.Context, v any, strict bool) error {
	dec := json.NewDecoder(c.Request().Body)
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	var he *echo.HTTPError
	ctx := c.Request().Context()
	switch {
	case err == nil:
		return nil
	case errors.As(err, &he):
		return he // the body limit
	case errors.Is(err, io.EOF):
		return handlers.APIErr(http.StatusBadRequest, handlers.CodeInvalidJSON, "%s", i18n.T(ctx, "api.err.json_empty"))
	default:
		return handlers.APIErr(http.StatusBadRequest, handlers.CodeInvalidJSON, "%s", i18n.T(ctx, "api.err.json_bad", err))
	}
}

// queryInt reads an optional integer query parameter within [lo, hi].
func queryInt(c echo.Context, name string, def, lo, hi int) (int, error) {
	v := c.QueryParam(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeInvalidParam, "%s",
			i18n.T(c.Request().Context(), "api.err.int_range", name, lo, hi))
	}
	return n, nil
}

// badCursor refuses a cursor this API did not give, in the owner's language.
func badCursor(c echo.Context) error {
	return handlers.APIErr(http.StatusUnprocessableEntity, handlers.CodeInvalidParam, "%s", i18n.T(c.Request().Context(), "api.err.cursor"))
}
