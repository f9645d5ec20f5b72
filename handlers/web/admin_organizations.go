package web

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// orgError is an organization error a person can cause: the message key
// and the status it answers with.
type orgError struct {
	err    error
	key    string
	status int
}

// orgErrors are the organization errors a person can cause.
var orgErrors = []orgError{
	{models.ErrOrgName, "org.err.name", http.StatusUnprocessableEntity},
	{models.ErrOrgSlug, "org.err.slug", http.StatusUnprocessableEntity},
	{models.ErrOrgSlugTaken, "org.err.slug_taken", http.StatusConflict},
	{models.ErrOrgSeats, "org.err.seats", http.StatusUnprocessableEntity},
	{models.ErrSeatsBelowMembers, "org.err.seats_below", http.StatusConflict},
	{models.ErrNoSeats, "org.err.no_seats", http.StatusConflict},
	{models.ErrInOtherOrg, "org.err.other_org", http.StatusConflict},
	{models.ErrAlreadyMember, "org.err.already_member", http.StatusConflict},
	{models.ErrStaffAccount, "org.err.staff", http.StatusConflict},
	{models.ErrLastOrgAdmin, "org.err.last_admin", http.StatusConflict},
	{models.ErrUnknownRole, "org.err.role", http.StatusUnprocessableEntity},
	{models.ErrLinkExpiry, "org.err.expiry", http.StatusUnprocessableEntity},
	{models.ErrLinkUnknown, "join.err.unknown", http.StatusNotFound},
	{models.ErrLinkRevoked, "join.err.revoked", http.StatusGone},
	{models.ErrLinkExpired, "join.err.expired", http.StatusGone},
	{models.ErrInviteUnknown, "invite.err.unknown", http.StatusNotFound},
	{models.ErrInviteUsed, "invite.err.used", http.StatusGone},
	{models.ErrInviteExpired, "invite.err.expired", http.StatusGone},
	{models.ErrInviteCanceled, "invite.err.canceled", http.StatusGone},
	{models.ErrInviteEmpty, "invite.err.empty", http.StatusUnprocessableEntity},
	{models.ErrInviteTooMany, "invite.err.too_many", http.StatusRequestEntityTooLarge},
	{models.ErrInviteTooLarge, "invite.err.too_large", http.StatusRequestEntityTooLarge},
	{models.ErrInviteEncoding, "invite.err.encoding", http.StatusBadRequest},
	{models.ErrInviteCSV, "invite.err.csv", http.StatusUnprocessableEntity},
	{errNoMail, "invite.err.no_mail", http.StatusConflict},
}

// orgRefusal is the message key and status of an organization error a
// person caused; ok is false for any other error.
func orgRefusal(err error) (key string, status int, ok bool) {
	for _, e := range slices.Concat(orgErrors, groupOrgErrors, adminOrgErrors) {
		if errors.Is(err, e.err) {
			return e.key, e.status, true
		}
	}
	return "", 0, false
}

// adminOrgListLimit is a page of organizations or of members.
const adminOrgListLimit = 50

// parseSeats reads a seats field; anything but a whole number is ErrOrgSeats.
func parseSeats(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, models.ErrOrgSeats
	}
	return n, nil
}

// adminOrgs lists the organizations, a page at a time, below the form that creates one.
func (a *App) adminOrgs(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	return a.renderAdminOrgs(c, http.StatusOK, views.AdminOrgsView{Flash: flash})
}

func (a *App) renderAdminOrgs(c echo.Context, status int, v views.AdminOrgsView) error {
	after, err := models.ParseTimeCursor(c.QueryParam("after"))
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, t(c, "admin.bad_cursor"))
	}
	orgs, next, err := a.Orgs.List(c.Request().Context(), after, adminOrgListLimit)
	if err != nil {
		return err
	}
	v.Orgs = orgs
	if next != nil {
		v.Next = next.String()
	}
	return a.render(c, status, views.AdminOrgsPage(v), nil)
}

// adminCreateOrg creates an organization and opens its page, where its admin is named.
func (a *App) adminCreateOrg(c echo.Context) error {
	form := views.OrgForm{Name: c.FormValue("name"), Slug: c.FormValue("slug"), Seats: c.FormValue("seats")}
	seats, err := parseSeats(form.Seats)
	var o *models.Organization
	if n := (models.NewOrganization{Name: form.Name, Slug: form.Slug, Seats: seats}); err == nil {
		o, err = a.Orgs.Create(c.Request().Context(), n, a.Tutor.Now())
	}
	if key, status, ok := orgRefusal(err); ok {
		return a.renderAdminOrgs(c, status, views.AdminOrgsView{Form: form, Error: t(c, key)})
	}
	if err != nil {
		return err
	}
	return a.flashTo(c, urls.AdminOrg(o.ID), t(c, "org.created_flash", o.Name))
}

// flashTo keeps msg for the page a form post redirects to, and redirects.
func (a *App) flashTo(c echo.Context, to, msg string) error {
	if err := a.setFlash(c, msg); err != nil {
		return err
	}
	return redirect(c, to)
}

// adminOrg shows one organization: rename, seats, its admin, its first members.
func (a *App) adminOrg(c echo.Context) error {
	flash, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	return a.renderAdminOrg(c, http.StatusOK, views.AdminOrgView{Flash: flash})
}

func (a *App) renderAdminOrg(c echo.Context, status int, v views.AdminOrgView) error {
	ctx := c.Request().Context()
	o, err := a.Orgs.Get(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	v.Org = o
	if v.Form.Name == "" && v.Form.Seats == "" {
		v.Form.Name, v.Form.Seats = o.Name, strconv.Itoa(o.Seats)
	}
	if v.Form.Locale == "" {
		v.Form.Locale = a.letterLang(c)
	}
	members, next, err := a.Orgs.Members(ctx, o.ID, nil, adminOrgListLimit)
	if err != nil {
		return err
	}
	v.Members, v.Next = members, ""
	if next != nil {
		v.Next = next.String()
	}
	if err := a.loadAdminInvitations(c, &v); err != nil {
		return err
	}
	return a.render(c, status, views.AdminOrgPage(v), nil)
}

// adminUpdateOrg renames an organization and sets its seats.
func (a *App) adminUpdateOrg(c echo.Context) error {
	form := views.OrgForm{Name: c.FormValue("name"), Seats: c.FormValue("seats")}
	id := c.Param("id")
	seats, err := parseSeats(form.Seats)
	if err == nil {
		err = a.Orgs.Update(c.Request().Context(), id, form.Name, seats, a.Tutor.Now())
	}
	if key, status, ok := orgRefusal(err); ok {
		return a.renderAdminOrg(c, status, views.AdminOrgView{Form: form, Error: t(c, key)})
	}
	if err != nil {
		return err
	}
	return a.flashTo(c, urls.AdminOrg(id), t(c, "org.saved_flash", strings.TrimSpace(form.Name)))
}

// adminDeleteOrgConfirm asks before deleting an organization.
func (a *App) adminDeleteOrgConfirm(c echo.Context) error {
	o, err := a.Orgs.Get(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.AdminOrgDeletePage(o), nil)
}

// adminDeleteOrg deletes an organization; its members return to FREE.
func (a *App) adminDeleteOrg(c echo.Context) error {
	ctx := c.Request().Context()
	o, err := a.Orgs.Get(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	if err := a.Orgs.Delete(ctx, handlers.UserFrom(c).ID, o.ID, a.Tutor.Now()); err != nil {
		return err
	}
	return a.flashTo(c, urls.AdminOrgs(), t(c, "org.deleted_flash", o.Name))
}
