package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"aula/urls"
	"aula/views"
)

// groupParam is the :gid of the URL; anything but a positive number is 404.
func groupParam(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("gid"), 10, 64)
	if err != nil || id < 1 {
		return 0, echo.ErrNotFound
	}
	return id, nil
}

// orgGroupCreate adds a group to the organization.
func (a *App) orgGroupCreate(c echo.Context) error {
	g, err := a.Orgs.CreateGroup(c.Request().Context(), orgOf(c), c.FormValue("name"), a.Tutor.Now())
	if err != nil {
		return a.orgRefused(c, err, views.OrgHomeView{})
	}
	return a.flashTo(c, urls.Org("")+"#groups", t(c, "org.group_created", g.Name))
}

// orgGroupRename renames one of the organization's groups.
func (a *App) orgGroupRename(c echo.Context) error {
	id, err := groupParam(c)
	if err != nil {
		return err
	}
	name := c.FormValue("name")
	if err := a.Orgs.RenameGroup(c.Request().Context(), orgOf(c), id, name, a.Tutor.Now()); err != nil {
		return a.orgRefused(c, err, views.OrgHomeView{})
	}
	g, err := a.Orgs.Group(c.Request().Context(), orgOf(c), id)
	if err != nil {
		return err
	}
	return a.flashTo(c, urls.Org("")+"#groups", t(c, "org.group_renamed", g.Name))
}

// orgGroupDeleteConfirm asks before a group is deleted.
func (a *App) orgGroupDeleteConfirm(c echo.Context) error {
	id, err := groupParam(c)
	if err != nil {
		return err
	}
	g, err := a.Orgs.Group(c.Request().Context(), orgOf(c), id)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.OrgGroupDeletePage(g), nil)
}

// orgGroupDelete deletes one of the organization's groups.
func (a *App) orgGroupDelete(c echo.Context) error {
	id, err := groupParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	g, err := a.Orgs.Group(ctx, orgOf(c), id)
	if err != nil {
		return err
	}
	if err := a.Orgs.DeleteGroup(ctx, orgOf(c), id); err != nil {
		return err
	}
	return a.flashTo(c, urls.Org("")+"#groups", t(c, "org.group_deleted", g.Name))
}

// orgGroupMembers adds the ticked members to a group, or takes them out.
func (a *App) orgGroupMembers(c echo.Context) error {
	id, err := strconv.ParseInt(c.FormValue("group"), 10, 64)
	if err != nil {
		return echo.ErrNotFound
	}
	ctx, action := c.Request().Context(), c.FormValue("action")
	form, err := c.FormParams()
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, t(c, "org.err.none_selected"))
	}
	var n int
	switch action {
	case "add":
		n, err = a.Orgs.AddToGroup(ctx, orgOf(c), id, form["member"], a.Tutor.Now())
	case "remove":
		n, err = a.Orgs.RemoveFromGroup(ctx, orgOf(c), id, form["member"])
	default:
		return a.orgRefused(c, errBulkAction, views.OrgHomeView{})
	}
	if err != nil {
		return a.orgRefused(c, err, views.OrgHomeView{})
	}
	g, err := a.Orgs.Group(ctx, orgOf(c), id)
	if err != nil {
		return err
	}
	return a.flashTo(c, urls.Org("")+"#members-heading", t(c, bulkFlash[action], n, g.Name))
}
