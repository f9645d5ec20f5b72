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

// adminOrgErrors are the errors of naming an organization's admin by
// email invitation, and of accepting such an invitation.
var adminOrgErrors = []orgError{
	{models.ErrInviteAddress, "org.err.admin_address", http.StatusUnprocessableEntity},
	{models.ErrInviteLanguage, "org.err.admin_language", http.StatusUnprocessableEntity},
	{models.ErrInvitePending, "org.err.admin_pending", http.StatusConflict},
	{errNoAccountNoMail, "org.err.no_user_no_mail", http.StatusUnprocessableEntity},
	{models.ErrInviteOtherAccount, "invite.err.other_account", http.StatusForbidden},
}

// errNoAccountNoMail is naming as admin an address without an account
// while aula sends no email to invite it.
var errNoAccountNoMail = errors.New("no account has the address and aula sends no email")

// adminNameOrgAdmin makes the account with the email an admin of the
// organization; an address without an account is invited by letter.
func (a *App) adminNameOrgAdmin(c echo.Context) error {
	ctx, id := c.Request().Context(), c.Param("id")
	form := views.OrgForm{Email: c.FormValue("email"), Locale: c.FormValue("locale")}
	if _, err := a.Orgs.Get(ctx, id); err != nil {
		return err
	}
	u, err := a.Orgs.NameAdmin(ctx, handlers.UserFrom(c).ID, id, form.Email, a.Tutor.Now())
	if errors.Is(err, models.ErrNotFound) {
		return a.adminInviteOrgAdmin(c, id, form)
	}
	if err != nil {
		return a.adminOrgRefused(c, err, form)
	}
	return a.flashTo(c, urls.AdminOrg(id), t(c, "org.admin_named", u.Email))
}

// adminInviteOrgAdmin sends the letter inviting an address without an
// account to administer organization id, in the language chosen.
func (a *App) adminInviteOrgAdmin(c echo.Context, id string, form views.OrgForm) error {
	if !a.Post.Enabled() {
		return a.adminOrgRefused(c, errNoAccountNoMail, form)
	}
	lang := form.Locale
	if lang == "" { // a client that sends no language gets the admin's
		lang = a.letterLang(c)
	}
	s, err := a.Orgs.InviteAdmin(c.Request().Context(), handlers.UserFrom(c).ID, id, form.Email, lang, a.Tutor.Now())
	if err != nil {
		return a.adminOrgRefused(c, err, form)
	}
	if err := a.sendInvitationsOf(c, id, []models.Sent{*s}); err != nil {
		return err
	}
	return a.flashTo(c, urls.AdminOrg(id)+"#admin-invitations", t(c, "org.admin_invited_flash", s.Email))
}

// adminOrgRefused shows the organization's page again with why err, an
// error a person caused, refused the form; any other error goes on.
func (a *App) adminOrgRefused(c echo.Context, err error, form views.OrgForm) error {
	key, status, ok := orgRefusal(err)
	if !ok {
		return err
	}
	return a.renderAdminOrg(c, status, views.AdminOrgView{Form: form, Error: t(c, key)})
}

// loadAdminInvitations reads the page of pending admin invitations an
// organization's page shows.
func (a *App) loadAdminInvitations(c echo.Context, v *views.AdminOrgView) error {
	v.InvAfter = c.QueryParam("inv_after")
	after, err := models.ParseTimeCursor(v.InvAfter)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, t(c, "admin.bad_cursor"))
	}
	pending, next, err := a.Orgs.PendingAdminInvitations(c.Request().Context(), v.Org.ID, after, adminOrgListLimit)
	if err != nil {
		return err
	}
	v.Invites, v.Now, v.Mail = pending, a.Tutor.Now(), a.Post.Enabled()
	if next != nil {
		v.InvNext = next.String()
	}
	return nil
}

// adminOrgInvitation reads the organization's pending invitation the path
// names; another organization's, or anything else, is 404.
func (a *App) adminOrgInvitation(c echo.Context) (*models.Invitation, error) {
	id, err := strconv.ParseInt(c.Param("inv"), 10, 64)
	if err != nil {
		return nil, echo.ErrNotFound
	}
	return a.Orgs.Invitation(c.Request().Context(), c.Param("id"), id)
}

// adminResendOrgInvitation sends an organization's invitation again with
// a new link; the old link stops working.
func (a *App) adminResendOrgInvitation(c echo.Context) error {
	inv, err := a.adminOrgInvitation(c)
	if err != nil {
		return err
	}
	if !a.Post.Enabled() {
		return a.adminOrgRefused(c, errNoMail, views.OrgForm{})
	}
	s, err := a.Orgs.ResendInvitation(c.Request().Context(), inv.OrganizationID, inv.ID, a.Tutor.Now())
	if err != nil {
		return err
	}
	if err := a.sendInvitationsOf(c, inv.OrganizationID, []models.Sent{*s}); err != nil {
		return err
	}
	return a.flashTo(c, urls.AdminOrg(inv.OrganizationID)+"#admin-invitations", t(c, "invite.resent_flash", s.Email))
}

// adminCancelOrgInvitationConfirm asks before an organization's invitation is canceled.
func (a *App) adminCancelOrgInvitationConfirm(c echo.Context) error {
	inv, err := a.adminOrgInvitation(c)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.AdminCancelInvitationPage(inv.OrganizationID, inv), nil)
}

// adminCancelOrgInvitation ends an organization's pending invitation: its
// link stops working and its seat is free again.
func (a *App) adminCancelOrgInvitation(c echo.Context) error {
	inv, err := a.adminOrgInvitation(c)
	if err != nil {
		return err
	}
	if err := a.Orgs.CancelInvitation(c.Request().Context(), inv.OrganizationID, inv.ID, a.Tutor.Now()); err != nil {
		return err
	}
	return a.flashTo(c, urls.AdminOrg(inv.OrganizationID)+"#admin-invitations", t(c, "invite.canceled_flash", inv.Email))
}

// planRefused shows /admin/users (searching q) with why a plan change of
// userID was refused to keep plan and membership in step, and a link to
// the organization's page, where membership changes; any other error
// goes on.
func (a *App) planRefused(c echo.Context, err error, userID, q string) error {
	ctx := c.Request().Context()
	u, uerr := a.Users.Get(ctx, userID)
	if uerr != nil {
		return errors.Join(err, uerr)
	}
	v := views.AdminUsersView{Query: q, ErrorLink: urls.AdminOrgs(), ErrorLinkText: t(c, "admin.orgs_page")}
	switch {
	case errors.Is(err, models.ErrCorporateNeedsOrg):
		v.Error = t(c, "admin.err.corporate_needs_org", u.Email)
	case errors.Is(err, models.ErrPlanFollowsOrg), errors.Is(err, models.ErrLastOrgAdmin):
		m, merr := a.Orgs.MembershipOf(ctx, userID)
		if merr != nil {
			return errors.Join(err, merr)
		}
		key := "admin.err.plan_follows_org"
		if errors.Is(err, models.ErrLastOrgAdmin) {
			key = "admin.err.last_org_admin"
		}
		v.Error, v.ErrorLink, v.ErrorLinkText = t(c, key, u.Email, m.OrgName), urls.AdminOrg(m.OrganizationID), t(c, "admin.org_page")
	default:
		return err
	}
	return a.renderUsers(c, http.StatusConflict, v)
}
