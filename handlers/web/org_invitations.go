package web

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/i18n"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// inviteRowKeys say, beside a refused row, why it was not invited.
var inviteRowKeys = []struct {
	err error
	key string
}{
	{models.ErrInviteAddress, "invite.row.address"},
	{models.ErrInviteDuplicate, "invite.row.duplicate"},
	{models.ErrInviteLanguage, "invite.row.language"},
	{models.ErrInvitePending, "invite.row.pending"},
	{models.ErrAlreadyMember, "invite.row.member"},
	{models.ErrInOtherOrg, "invite.row.other_org"},
	{models.ErrStaffAccount, "invite.row.staff"},
	{models.ErrNoSeats, "invite.row.no_seats"},
}

// invitationID reads an invitation's id from the path; anything else is 404.
func invitationID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return 0, echo.ErrNotFound
	}
	return id, nil
}

// orgInvite invites each good address of a pasted list or a CSV file and
// lists every refused row with its reason; a request that is wrong as a
// whole (too large, not text, no address) invites nobody.
func (a *App) orgInvite(c echo.Context) error {
	v := views.OrgHomeView{Invites: views.InvitesView{List: c.FormValue("emails")}}
	if !a.Post.Enabled() {
		return a.orgRefused(c, errNoMail, v)
	}
	rows, err := a.readInvitees(c)
	if err != nil {
		return a.orgRefused(c, err, v)
	}
	ctx, now := c.Request().Context(), a.Tutor.Now()
	sent, refused, err := a.Orgs.Invite(ctx, handlers.UserFrom(c).ID, orgOf(c), rows, now)
	if err != nil {
		return err
	}
	if err := a.sendInvitations(c, sent); err != nil {
		return err
	}
	msg := t(c, "invite.sent_flash", len(sent))
	if len(refused) == 0 {
		return a.flashTo(c, urls.Org("")+"#invitations", msg)
	}
	v.Flash, v.Invites.List = msg, ""
	for _, r := range refused {
		v.Invites.Refused = append(v.Invites.Refused, views.RefusedInvitee{Line: r.Line, Email: r.Email, Key: rowKey(r.Err)})
	}
	status := http.StatusOK
	if len(sent) == 0 {
		status = http.StatusUnprocessableEntity
	}
	return a.renderOrgHome(c, status, v)
}

// errNoMail is inviting while aula sends no email (no AULA_SMTP_URL).
var errNoMail = errors.New("aula sends no email")

func rowKey(err error) string {
	for _, k := range inviteRowKeys {
		if errors.Is(err, k.err) {
			return k.key
		}
	}
	return "invite.row.address"
}

// readInvitees reads the CSV file when one is chosen, else the pasted
// list; a row without a language is invited in the admin's (their chosen
// one, else the page's).
func (a *App) readInvitees(c echo.Context) ([]models.Invitee, error) {
	lang := a.letterLang(c)
	fh, err := c.FormFile("csv")
	if err != nil || fh.Size == 0 && fh.Filename == "" {
		return models.ParseInvitees([]byte(c.FormValue("emails")), lang)
	}
	if fh.Size > models.MaxInviteeBytes {
		return nil, models.ErrInviteTooLarge
	}
	f, err := fh.Open()
	if err != nil {
		return nil, models.ErrInviteCSV
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, models.MaxInviteeBytes+1))
	if err != nil {
		return nil, models.ErrInviteCSV
	}
	return models.ParseInviteCSV(data, lang)
}

// letterLang is the language of a letter the signed-in user sends
// without choosing one: theirs, else the page's.
func (a *App) letterLang(c echo.Context) string {
	lang := handlers.UserFrom(c).Locale
	if lang == "" {
		lang = i18n.Lang(c.Request().Context())
	}
	return i18n.Normalize(lang)
}

// sendInvitations queues each invitation's letter in its language.
func (a *App) sendInvitations(c echo.Context, sent []models.Sent) error {
	return a.sendInvitationsOf(c, orgOf(c), sent)
}

// sendInvitationsOf queues the letters of organization orgID's
// invitations: an admin invitation's asks to administer it.
func (a *App) sendInvitationsOf(c echo.Context, orgID string, sent []models.Sent) error {
	o, err := a.Orgs.Get(c.Request().Context(), orgID)
	if err != nil {
		return err
	}
	for _, s := range sent {
		expires, send := s.ExpiresAt.UTC().Format(time.DateOnly), a.Post.Invitation
		if s.Role == models.RoleAdmin {
			send = a.Post.AdminInvitation
		}
		if err := send(s.Email, s.Locale, o.Name, s.Token, expires); err != nil {
			return err
		}
	}
	return nil
}

// orgResendInvitation sends a pending invitation again with a new link;
// the old link stops working.
func (a *App) orgResendInvitation(c echo.Context) error {
	id, err := invitationID(c)
	if err != nil {
		return err
	}
	if !a.Post.Enabled() {
		return a.orgRefused(c, errNoMail, views.OrgHomeView{})
	}
	s, err := a.Orgs.ResendInvitation(c.Request().Context(), orgOf(c), id, a.Tutor.Now())
	if err != nil {
		return err
	}
	if err := a.sendInvitations(c, []models.Sent{*s}); err != nil {
		return err
	}
	return a.flashTo(c, urls.Org("")+"#invitations", t(c, "invite.resent_flash", s.Email))
}

// orgCancelInvitationConfirm asks before an invitation is canceled.
func (a *App) orgCancelInvitationConfirm(c echo.Context) error {
	id, err := invitationID(c)
	if err != nil {
		return err
	}
	inv, err := a.Orgs.Invitation(c.Request().Context(), orgOf(c), id)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.CancelInvitationPage(inv), nil)
}

// orgCancelInvitation ends a pending invitation: its link stops working.
func (a *App) orgCancelInvitation(c echo.Context) error {
	id, err := invitationID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	inv, err := a.Orgs.Invitation(ctx, orgOf(c), id)
	if err != nil {
		return err
	}
	if err := a.Orgs.CancelInvitation(ctx, orgOf(c), id, a.Tutor.Now()); err != nil {
		return err
	}
	return a.flashTo(c, urls.Org("")+"#invitations", t(c, "invite.canceled_flash", inv.Email))
}

// invitePage shows what an invitation's link opens, as a join link's page does.
func (a *App) invitePage(c echo.Context) error {
	v := views.JoinView{Token: c.Param("token"), User: handlers.UserFrom(c), Invite: true}
	inv, o, err := a.Orgs.InvitationOrg(c.Request().Context(), v.Token, a.Tutor.Now())
	if err == nil {
		v.AsAdmin = inv.Role == models.RoleAdmin
		if v.AsAdmin && v.User != nil && v.User.Email != inv.Email {
			err = models.ErrInviteOtherAccount
		}
	}
	return a.showJoin(c, v, o, err)
}

// acceptInvite joins the signed-in user by an invitation and uses it up;
// a visitor is sent to sign in (or up) and come back.
func (a *App) acceptInvite(c echo.Context) error {
	v := views.JoinView{Token: c.Param("token"), User: handlers.UserFrom(c), Invite: true}
	if v.User == nil {
		return redirect(c, urls.Login(urls.JoinInvite(v.Token)))
	}
	ctx := c.Request().Context()
	o, err := a.Orgs.AcceptInvitation(ctx, v.Token, v.User.ID, a.Tutor.Now())
	if err != nil {
		return a.joinRefused(c, err, v)
	}
	// An admin invitation opens the organization's home, where its admin starts.
	if m, err := a.Orgs.MembershipOf(ctx, v.User.ID); err == nil && m.IsAdmin() {
		return a.flashTo(c, urls.Org(""), t(c, "join.admin_flash", o.Name))
	}
	return a.flashTo(c, urls.Learn(), t(c, "join.joined_flash", o.Name))
}

// loadInvitations reads the page of pending invitations /org shows.
func (a *App) loadInvitations(c echo.Context, v *views.InvitesView) error {
	v.After = c.QueryParam("inv_after")
	after, err := models.ParseTimeCursor(v.After)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, t(c, "admin.bad_cursor"))
	}
	pending, next, err := a.Orgs.PendingInvitations(c.Request().Context(), orgOf(c), after, adminOrgListLimit)
	if err != nil {
		return err
	}
	v.Pending, v.Now, v.Mail = pending, a.Tutor.Now(), a.Post.Enabled()
	if v.Held, err = a.Orgs.SeatsHeld(c.Request().Context(), orgOf(c), v.Now); err != nil {
		return err
	}
	if next != nil {
		v.Next = next.String()
	}
	return nil
}
