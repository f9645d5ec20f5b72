package web

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// joinHints says what to do instead, per reason a join cannot happen.
var joinHints = map[string]string{
	"join.err.unknown":         "join.hint.ask_admin",
	"join.err.revoked":         "join.hint.ask_admin",
	"join.err.expired":         "join.hint.ask_admin",
	"org.err.no_seats":         "join.hint.no_seats",
	"org.err.other_org":        "join.hint.other_org",
	"org.err.already_member":   "join.hint.already_member",
	"org.err.staff":            "join.hint.staff",
	"invite.err.unknown":       "invite.hint.ask_admin",
	"invite.err.used":          "invite.hint.used",
	"invite.err.expired":       "invite.hint.ask_admin",
	"invite.err.canceled":      "invite.hint.ask_admin",
	"invite.err.other_account": "invite.hint.other_account",
}

// joinPage shows what a join link opens: to a signed-in user the
// confirmation, to a visitor the ways to sign up or in and come back, and
// to anyone a used, expired or revoked link's reason.
func (a *App) joinPage(c echo.Context) error {
	v := views.JoinView{Token: c.Param("token"), User: handlers.UserFrom(c)}
	o, err := a.Orgs.LinkOrg(c.Request().Context(), v.Token, a.Tutor.Now())
	return a.showJoin(c, v, o, err)
}

// showJoin renders the join page for organization o, or why err (of
// finding o, or of the user already being in one) keeps the user out.
func (a *App) showJoin(c echo.Context, v views.JoinView, o *models.Organization, err error) error {
	if err == nil && v.User != nil {
		err = a.alreadyIn(c, v.User.ID, o.ID)
	}
	if err != nil {
		return a.joinRefused(c, err, v)
	}
	v.Org = o
	return a.render(c, http.StatusOK, views.JoinPage(v), nil)
}

// alreadyIn says before the form is shown what joining would answer for a
// user who belongs to an organization already (or is staff).
func (a *App) alreadyIn(c echo.Context, userID, orgID string) error {
	if models.IsAdminPlan(handlers.UserFrom(c).Plan) {
		return models.ErrStaffAccount
	}
	m, err := a.Orgs.MembershipOf(c.Request().Context(), userID)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return nil
	case err != nil:
		return err
	case m.OrganizationID == orgID:
		return models.ErrAlreadyMember
	}
	return models.ErrInOtherOrg
}

// joinRefused renders the join page with why the link or the join does not
// work, in the user's language; any other error goes to the error handler.
func (a *App) joinRefused(c echo.Context, err error, v views.JoinView) error {
	key, status, ok := orgRefusal(err)
	if !ok {
		return err
	}
	v.Problem, v.Hint = key, joinHints[key]
	return a.render(c, status, views.JoinPage(v), nil)
}

// join adds the signed-in user to the link's organization; a visitor is
// sent to sign in and come back. Attempts count per client address.
func (a *App) join(c echo.Context) error {
	token, u := c.Param("token"), handlers.UserFrom(c)
	if u == nil {
		return redirect(c, urls.Login(urls.Join(token)))
	}
	ctx := c.Request().Context()
	v := views.JoinView{Token: token, User: u}
	if err := a.Joins.Reserve(ctx, c.RealIP()); err != nil {
		var te *models.ThrottleError
		if !errors.As(err, &te) {
			return err
		}
		c.Response().Header().Set("Retry-After", strconv.Itoa(max(1, int(te.RetryAfter.Round(time.Second).Seconds()))))
		v.Problem = "join.err.throttled"
		return a.render(c, http.StatusTooManyRequests, views.JoinPage(v), nil)
	}
	o, err := a.Orgs.JoinByLink(ctx, token, u.ID, a.Tutor.Now())
	if err != nil {
		return a.joinRefused(c, err, v)
	}
	return a.flashTo(c, urls.Learn(), t(c, "join.joined_flash", o.Name))
}

// leaveOrgConfirm asks a member before they leave their organization.
func (a *App) leaveOrgConfirm(c echo.Context) error {
	m, err := a.Orgs.MembershipOf(c.Request().Context(), handlers.UserFrom(c).ID)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.LeaveOrgPage(m, ""), nil)
}

// leaveOrg takes the member out of their organization, back to FREE; the
// only admin is told to name another first.
func (a *App) leaveOrg(c echo.Context) error {
	ctx, uid := c.Request().Context(), handlers.UserFrom(c).ID
	m, err := a.Orgs.MembershipOf(ctx, uid)
	if err != nil {
		return err
	}
	if err := a.Orgs.Leave(ctx, uid, a.Tutor.Now()); err != nil {
		key, status, ok := orgRefusal(err)
		if !ok {
			return err
		}
		return a.render(c, status, views.LeaveOrgPage(m, key), nil)
	}
	return a.flashTo(c, urls.Settings("organization"), t(c, "org.left_flash", m.OrgName))
}
