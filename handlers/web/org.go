package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// ctxMembership is where requireOrgAdmin keeps the admin's membership.
const ctxMembership = "org.membership"

// defaultLinkLife is how long the link form proposes a join link to work.
const defaultLinkLife = 30 * 24 * time.Hour

// requireOrgAdmin answers 404 to anyone who does not administer an
// organization (as the admin pages do), and keeps the admin's membership:
// every /org handler acts on that organization only.
func (a *App) requireOrgAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := handlers.UserFrom(c)
		if u == nil {
			return echo.ErrNotFound
		}
		m, err := a.Orgs.MembershipOf(c.Request().Context(), u.ID)
		if err != nil || !m.IsAdmin() {
			return echo.ErrNotFound
		}
		c.Set(ctxMembership, m)
		return next(c)
	}
}

// orgOf is the organization the signed-in admin administers.
func orgOf(c echo.Context) string { return c.Get(ctxMembership).(*models.Membership).OrganizationID }

// orgHome shows the organization's seats, a page of its members and its join link.
func (a *App) orgHome(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	v := views.OrgHomeView{Flash: flash}
	if link := a.openOnce(c, newJoinLink, handlers.UserFrom(c).ID); len(link) == 1 {
		v.NewLink = link[0]
	}
	return a.renderOrgHome(c, http.StatusOK, v)
}

func (a *App) renderOrgHome(c echo.Context, status int, v views.OrgHomeView) error {
	ctx, orgID := c.Request().Context(), orgOf(c)
	v.After = c.QueryParam("after")
	after, err := models.ParseTimeCursor(v.After)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, t(c, "admin.bad_cursor"))
	}
	if v.Org, err = a.Orgs.Get(ctx, orgID); err != nil {
		return err
	}
	members, next, err := a.Orgs.Members(ctx, orgID, after, adminOrgListLimit)
	if err != nil {
		return err
	}
	v.Members, v.Me = members, handlers.UserFrom(c).ID
	if next != nil {
		v.Next = next.String()
	}
	if v.Link, err = a.Orgs.CurrentLink(ctx, orgID); err != nil {
		return err
	}
	if err := a.loadOrgGroups(c, &v); err != nil {
		return err
	}
	if err := a.loadInvitations(c, &v.Invites); err != nil {
		return err
	}
	if err := a.loadDigest(c, &v); err != nil {
		return err
	}
	v.Now = a.Tutor.Now()
	if v.Expires == "" {
		v.Expires = v.Now.Add(defaultLinkLife).UTC().Format(time.DateOnly)
	}
	// The page may hold a join link shown once: never cache it.
	c.Response().Header().Set("Cache-Control", "no-store")
	return a.render(c, status, views.OrgHome(v), nil)
}

// orgRefused renders /org again with the message of an organization error a
// person caused; any other error goes to the error handler.
func (a *App) orgRefused(c echo.Context, err error, v views.OrgHomeView) error {
	key, status, ok := orgRefusal(err)
	if !ok {
		return err
	}
	v.Error = t(c, key)
	return a.renderOrgHome(c, status, v)
}

// orgNewLink makes (or regenerates) the join link, working through the
// chosen date (UTC), and shows it once.
func (a *App) orgNewLink(c echo.Context) error {
	expires := c.FormValue("expires")
	now := a.Tutor.Now()
	day, err := time.Parse(time.DateOnly, expires)
	var token string
	if err != nil {
		err = models.ErrLinkExpiry
	} else {
		token, err = a.Orgs.NewLink(c.Request().Context(), handlers.UserFrom(c).ID, orgOf(c),
			day.Add(24*time.Hour-time.Second), now)
	}
	if err != nil {
		return a.orgRefused(c, err, views.OrgHomeView{Expires: expires})
	}
	if err := a.sealOnce(c, newJoinLink, handlers.UserFrom(c).ID, a.baseURL(c)+urls.Join(token)); err != nil {
		return err
	}
	return redirect(c, urls.Org("")+"#join-link")
}

// baseURL starts the links aula hands out: AULA_BASE_URL, else the request's host.
func (a *App) baseURL(c echo.Context) string {
	if a.BaseURL != "" {
		return a.BaseURL
	}
	return c.Scheme() + "://" + c.Request().Host
}

// orgRevokeLink ends the join link; with none live it says so.
func (a *App) orgRevokeLink(c echo.Context) error {
	if err := a.Orgs.RevokeLink(c.Request().Context(), orgOf(c), a.Tutor.Now()); err != nil {
		return err
	}
	return a.flashTo(c, urls.Org("")+"#join-link", t(c, "org.link_revoked"))
}

// orgMemberRole promotes a member to co-admin or demotes an admin.
func (a *App) orgMemberRole(c echo.Context) error {
	ctx, uid := c.Request().Context(), c.Param("uid")
	m, err := a.Orgs.Member(ctx, orgOf(c), uid)
	if err != nil {
		return err
	}
	role := c.FormValue("role")
	if err := a.Orgs.SetRole(ctx, handlers.UserFrom(c).ID, orgOf(c), uid, role, a.Tutor.Now()); err != nil {
		return a.orgRefused(c, err, views.OrgHomeView{})
	}
	return a.flashTo(c, urls.Org(""), t(c, "org.role_flash."+role, m.Name))
}

// orgRemoveConfirm asks before a member is removed.
func (a *App) orgRemoveConfirm(c echo.Context) error {
	m, err := a.Orgs.Member(c.Request().Context(), orgOf(c), c.Param("uid"))
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.OrgRemovePage(m), nil)
}

// orgRemove takes a member out of the organization, back to FREE.
func (a *App) orgRemove(c echo.Context) error {
	ctx, uid := c.Request().Context(), c.Param("uid")
	m, err := a.Orgs.Member(ctx, orgOf(c), uid)
	if err != nil {
		return err
	}
	if err := a.Orgs.Remove(ctx, handlers.UserFrom(c).ID, orgOf(c), uid, a.Tutor.Now()); err != nil {
		return a.orgRefused(c, err, views.OrgHomeView{})
	}
	return a.flashTo(c, urls.Org(""), t(c, "org.removed_flash", m.Name))
}

// loadOrgGroups fills in the groups, the listed members' groups, the
// assignments and the catalog to assign from.
func (a *App) loadOrgGroups(c echo.Context, v *views.OrgHomeView) error {
	ctx, orgID := c.Request().Context(), orgOf(c)
	ids := make([]string, len(v.Members))
	for i, m := range v.Members {
		ids[i] = m.UserID
	}
	var err error
	if v.Groups, err = a.Orgs.Groups(ctx, orgID); err != nil {
		return err
	}
	if v.MemberGroups, err = a.Orgs.MemberGroups(ctx, orgID, ids); err != nil {
		return err
	}
	if v.Assignments, err = a.Orgs.Assignments(ctx, orgID); err != nil {
		return err
	}
	v.Paths, err = a.Content.Catalog(ctx)
	return err
}
