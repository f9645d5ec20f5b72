package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// orgUnderstanding shows where the organization's people, or one of its
// groups (?group=), fail the knowledge checks: the admin Understanding
// page scoped to them, with how the wrong answers fall instead of any
// text; ?after= pages the sections. Another organization's group is 404.
func (a *App) orgUnderstanding(c echo.Context) error {
	ctx, orgID := c.Request().Context(), orgOf(c)
	after, err := models.ParseUnderstandingCursor(c.QueryParam("after"))
	if errors.Is(err, models.ErrBadCursor) {
		return echo.NewHTTPError(http.StatusBadRequest, t(c, "admin.bad_cursor"))
	}
	v := views.OrgUnderstandingView{Paged: after != nil}
	scope := models.UnderstandingScope{OrgID: orgID}
	if g := c.QueryParam("group"); g != "" {
		id, err := strconv.ParseInt(g, 10, 64)
		if err != nil || id <= 0 {
			return echo.NewHTTPError(http.StatusBadRequest, t(c, "org.u_bad_group"))
		}
		if v.Group, err = a.Orgs.Group(ctx, orgID, id); err != nil {
			return err
		}
		scope.GroupID = id
	}
	if v.Groups, err = a.Orgs.Groups(ctx, orgID); err != nil {
		return err
	}
	if v.U, err = a.Stats.ScopedUnderstanding(ctx, scope, after); err != nil {
		return err
	}
	if v.U.Next != nil {
		v.Next = urls.OrgUnderstanding(scope.GroupID, models.EncodeUnderstandingCursor(*v.U.Next))
	}
	return a.render(c, http.StatusOK, views.OrgUnderstandingPage(v), nil)
}

// loadDigest fills in whether the admin gets the weekly digest, and
// whether this server sends email at all.
func (a *App) loadDigest(c echo.Context, v *views.OrgHomeView) error {
	on, err := a.Orgs.WeeklyDigest(c.Request().Context(), orgOf(c), handlers.UserFrom(c).ID)
	v.Digest = views.DigestView{On: on, Mail: a.Post.Enabled()}
	return err
}

// orgDigest turns the admin's weekly digest letter on (digest=on) or off
// (digest=off); anything else is refused in the admin's language.
func (a *App) orgDigest(c echo.Context) error {
	var on bool
	switch c.FormValue("digest") {
	case "on":
		on = true
	case "off":
	default:
		return a.renderOrgHome(c, http.StatusBadRequest, views.OrgHomeView{Error: t(c, "org.digest_bad")})
	}
	if err := a.Orgs.SetWeeklyDigest(c.Request().Context(), orgOf(c), handlers.UserFrom(c).ID, on); err != nil {
		return err
	}
	msg := "org.digest_stopped"
	if on {
		msg = "org.digest_started"
	}
	return a.flashTo(c, urls.Org("")+"#digest", t(c, msg))
}
