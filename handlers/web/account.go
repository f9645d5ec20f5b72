package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// passwordErrors maps the refusals of a password form to their status
// and message; a busy hashing bound asks to retry shortly.
var passwordErrors = []struct {
	err    error
	status int
	key    string
}{
	{models.ErrBadCredentials, http.StatusUnprocessableEntity, "err.wrong_password"},
	{models.ErrShortPassword, http.StatusUnprocessableEntity, "err.short_password"},
	{models.ErrLongPassword, http.StatusUnprocessableEntity, "err.long_password"},
	{models.ErrCommonPassword, http.StatusUnprocessableEntity, "err.common_password"},
	{models.ErrHashingBusy, http.StatusServiceUnavailable, "err.busy"},
	{models.ErrThrottled, http.StatusTooManyRequests, "err.throttled"},
}

// passwordRefusal is the status and message of a refused password, 0 and
// "" for another error.
func (a *App) passwordRefusal(c echo.Context, err error) (int, string) {
	for _, e := range passwordErrors {
		if !errors.Is(err, e.err) {
			continue
		}
		wait := a.Users.Hashing.RetryAfter()
		if te := (*models.ThrottleError)(nil); errors.As(err, &te) {
			wait = te.RetryAfter
		}
		if e.status != http.StatusUnprocessableEntity {
			c.Response().Header().Set("Retry-After", strconv.Itoa(max(1, int(wait.Round(time.Second).Seconds()))))
		}
		return e.status, e.key
	}
	return 0, ""
}

// throttled checks the signed-in user's password (check) under the
// sign-in throttle, so a borrowed session cannot guess the password
// through these forms: a wrong password counts as a failed sign-in.
func (a *App) throttled(c echo.Context, check func() error) error {
	ctx := c.Request().Context()
	attempt, err := a.Throttle.Reserve(ctx, handlers.UserFrom(c).Email, c.RealIP())
	if err != nil {
		return err
	}
	err = check()
	// A refused new password or the last SUPER_ADMIN's refusal still
	// means the current password was right.
	right := err == nil || errors.Is(err, models.ErrShortPassword) || errors.Is(err, models.ErrLongPassword) ||
		errors.Is(err, models.ErrCommonPassword) || errors.Is(err, models.ErrLastSuperAdmin)
	switch {
	case errors.Is(err, models.ErrBadCredentials):
		// Counted as a failed sign-in.
	case right:
		if serr := a.Throttle.Succeed(ctx, attempt); serr != nil {
			return serr
		}
	default:
		// The password was not checked (busy, database): the attempt does not count.
		_ = a.Throttle.Release(context.WithoutCancel(ctx), attempt)
	}
	return err
}

// settingsDone records what a settings form did and goes back to its section.
func (a *App) settingsDone(c echo.Context, key, section string) error {
	if err := a.setFlash(c, t(c, key)); err != nil {
		return err
	}
	return redirect(c, urls.Settings(section))
}

// saveProfile sets the display name and the interface language.
func (a *App) saveProfile(c echo.Context) error {
	p := models.Profile{Name: c.FormValue("name"), Locale: c.FormValue("locale")}
	_, err := a.Users.UpdateProfile(c.Request().Context(), handlers.UserFrom(c).ID, p)
	key := map[error]string{models.ErrInvalidName: "err.invalid_name", models.ErrUnknownLocale: "err.unknown_locale"}[err]
	if key != "" {
		return a.renderSettings(c, http.StatusUnprocessableEntity, views.SettingsPage{Account: views.AccountView{
			Section: "profile", Error: key, Name: p.Name, Locale: p.Locale}})
	}
	if err != nil {
		return err
	}
	// The session's language follows, so the next page is already in it.
	session(c).Values[localeKey] = p.Locale
	return a.settingsDone(c, "account.profile_saved", "profile")
}

// changePassword checks the current password and sets the new one: every
// other session of the account is revoked and this one gets a new id.
func (a *App) changePassword(c echo.Context) error {
	ctx := c.Request().Context()
	err := a.throttled(c, func() error {
		return a.Users.ChangePassword(ctx, handlers.UserFrom(c).ID, c.FormValue("current"), c.FormValue("password"))
	})
	if status, key := a.passwordRefusal(c, err); key != "" {
		return a.renderSettings(c, status, views.SettingsPage{Account: views.AccountView{Section: "password", Error: key}})
	}
	if err != nil {
		return err
	}
	// ChangePassword deleted this session's row with the others; saving it
	// under a new id keeps this browser signed in.
	if err := a.Sessions.Renew(ctx, session(c)); err != nil {
		return err
	}
	return a.settingsDone(c, "account.password_changed", "password")
}

// signOutDevice ends one of the user's sessions; another user's is a 404.
func (a *App) signOutDevice(c echo.Context) error {
	err := a.Devices.SignOut(c.Request().Context(), handlers.UserFrom(c).ID, c.Param("handle"))
	if errors.Is(err, models.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, t(c, "err.no_device"))
	}
	if err != nil {
		return err
	}
	return a.settingsDone(c, "account.signed_out_one", "devices")
}

// signOutOthers ends every session of the user but this one.
func (a *App) signOutOthers(c echo.Context) error {
	if _, err := a.Devices.SignOutOthers(c.Request().Context(), handlers.UserFrom(c).ID, session(c).ID); err != nil {
		return err
	}
	return a.settingsDone(c, "account.signed_out_others", "devices")
}

// setOptionalEmail turns the welcome and upgrade emails off or back on.
func (a *App) setOptionalEmail(c echo.Context) error {
	if err := a.Users.SetOptionalEmail(c.Request().Context(), handlers.UserFrom(c).ID, c.FormValue("optional") == "on"); err != nil {
		return err
	}
	return a.settingsDone(c, "account.email_saved", "email")
}

// exportData downloads everything aula keeps about the user as one JSON file.
func (a *App) exportData(c echo.Context) error {
	exp, err := a.Users.Export(c.Request().Context(), handlers.UserFrom(c).ID, a.Tutor.Now())
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="aula-data-%s.json"`, exp.ExportedAt.Format("2006-01-02")))
	return c.JSONPretty(http.StatusOK, exp, "  ")
}

// deleteAccountForm asks for the password before the account goes.
func (a *App) deleteAccountForm(c echo.Context) error {
	return a.renderDeleteAccount(c, http.StatusOK, "")
}

// renderDeleteAccount shows the account deletion form with the error key
// errKey, telling an organization's only admin that it stays without one.
func (a *App) renderDeleteAccount(c echo.Context, status int, errKey string) error {
	v := views.DeleteAccountView{Error: errKey}
	ctx := c.Request().Context()
	m, err := a.Orgs.MembershipOf(ctx, handlers.UserFrom(c).ID)
	if err == nil && m.IsAdmin() {
		o, err := a.Orgs.Get(ctx, m.OrganizationID)
		if err != nil {
			return err
		}
		if o.Admins == 1 {
			v.SoleAdminOf = o.Name
		}
	} else if err != nil && !errors.Is(err, models.ErrNotFound) {
		return err
	}
	return a.render(c, status, views.DeleteAccount(v), nil)
}

// deleteAccount removes the account and all its data after checking the
// password, which also signs it out everywhere, and says goodbye.
func (a *App) deleteAccount(c echo.Context) error {
	err := a.throttled(c, func() error {
		return a.Users.Delete(c.Request().Context(), handlers.UserFrom(c).ID, c.FormValue("password"))
	})
	status, key := a.passwordRefusal(c, err)
	switch {
	case key != "":
		return a.renderDeleteAccount(c, status, key)
	case errors.Is(err, models.ErrLastSuperAdmin):
		return a.renderDeleteAccount(c, http.StatusConflict, "err.last_super_admin")
	case err != nil:
		return err
	}
	sess := session(c)
	sess.Options.MaxAge = -1
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	return redirect(c, "/?deleted=1")
}
