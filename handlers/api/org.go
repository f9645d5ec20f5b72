package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/i18n"
	"aula/models"
)

// ctxOrgID is where requireOrgAdmin keeps the organization the token's
// owner administers: every /org handler reads and writes that one only.
const ctxOrgID = "api.org"

// memberJSON is one member of the organization as its admin sees them:
// who, their role and groups, never what they wrote.
type memberJSON struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Email    string    `json:"email"`
	Role     string    `json:"role"`
	JoinedAt time.Time `json:"joinedAt"`
	Groups   []string  `json:"groups"`
}

// requireOrgAdmin lets through the tokens of an organization's admins
// (anyone else: 403 NOT_ORGANIZATION_ADMIN) and keeps their organization.
func (a *App) requireOrgAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		m, err := a.Outside.OrgAdmin(c.Request().Context(), handlers.UserFrom(c))
		if err != nil {
			return err
		}
		c.Set(ctxOrgID, m.OrganizationID)
		return next(c)
	}
}

// orgOf is the organization of the token's owner, as requireOrgAdmin found it.
func orgOf(c echo.Context) string { return c.Get(ctxOrgID).(string) }

// langOf is the language of the token's owner.
func langOf(c echo.Context) string { return i18n.Lang(c.Request().Context()) }

// apiOrgMembers pages through the organization's members in the order
// they joined, by keyset cursor, each with the names of their groups.
func (a *App) apiOrgMembers(c echo.Context) error {
	limit, err := queryInt(c, "limit", 50, 1, 100)
	if err != nil {
		return err
	}
	after, err := models.ParseTimeCursor(c.QueryParam("cursor"))
	if err != nil {
		return badCursor(c)
	}
	ctx, orgID := c.Request().Context(), orgOf(c)
	rows, next, err := a.Outside.Orgs.Members(ctx, orgID, after, limit)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(rows))
	for _, m := range rows {
		ids = append(ids, m.UserID)
	}
	groups, err := a.Outside.Orgs.MemberGroups(ctx, orgID, ids)
	if err != nil {
		return err
	}
	items := make([]memberJSON, 0, len(rows))
	for _, m := range rows {
		g := groups[m.UserID]
		if g == nil {
			g = []string{}
		}
		items = append(items, memberJSON{ID: m.UserID, Name: m.Name, Email: m.Email, Role: m.Role, JoinedAt: m.JoinedAt, Groups: g})
	}
	return c.JSON(http.StatusOK, map[string]any{"items": items, "nextCursor": cursorString(next)})
}

// apiOrgGroups lists every group of the organization by name, with its member count.
func (a *App) apiOrgGroups(c echo.Context) error {
	rows, err := a.Outside.Orgs.Groups(c.Request().Context(), orgOf(c))
	if err != nil {
		return err
	}
	items := make([]handlers.OrgGroupJSON, 0, len(rows))
	for _, g := range rows {
		items = append(items, handlers.OrgGroupJSON(g))
	}
	return c.JSON(http.StatusOK, map[string]any{"items": items})
}

// cursorString is a page's next cursor as the API gives it: null on the last page.
func cursorString(next *models.TimeCursor) *string {
	if next == nil {
		return nil
	}
	s := next.String()
	return &s
}

// pathInt reads a positive integer id from the path; anything else is
// the organization's 404, like an id of another organization.
func pathInt(c echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id < 1 {
		return 0, handlers.LangErr(langOf(c), http.StatusNotFound, handlers.CodeNotFound, "api.err.not_found")
	}
	return id, nil
}
