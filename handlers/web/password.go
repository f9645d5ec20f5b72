package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/models"
	"aula/urls"
	"aula/views"
)

// forgotForm asks for the email, or, when aula sends no email, says to
// ask an admin at the site's contact address.
func (a *App) forgotForm(c echo.Context) error {
	v := views.ForgotView{Mail: a.Post.Enabled(), Sent: c.QueryParam("sent") == "1"}
	if !v.Mail {
		site, err := a.Site.Get(c.Request().Context())
		if err != nil {
			return err
		}
		v.Contact = site.ContactEmail
	}
	return a.render(c, http.StatusOK, views.Forgot(v), nil)
}

// forgot sends a reset link when the email has an account and answers the
// same either way; requests are throttled per address and per email.
func (a *App) forgot(c echo.Context) error {
	if !a.Post.Enabled() {
		return redirect(c, urls.PasswordForgot(false))
	}
	ctx := c.Request().Context()
	v := views.ForgotView{Mail: true, Email: strings.TrimSpace(c.FormValue("email"))}
	if v.Email == "" || len(v.Email) > 254 {
		v.Error = "err.invalid_email"
		return a.render(c, http.StatusUnprocessableEntity, views.Forgot(v), nil)
	}
	ok, err := a.ResetThrottle.Allow(ctx, v.Email, c.RealIP(), a.Tutor.Now())
	if err != nil {
		return err
	}
	if !ok {
		v.Error = "forgot.throttled"
		return a.render(c, http.StatusTooManyRequests, views.Forgot(v), nil)
	}
	u, err := a.Users.GetByEmail(ctx, v.Email)
	switch {
	case errors.Is(err, models.ErrNotFound):
		// Same answer as for a known address: the page must not tell.
	case err != nil:
		return err
	default:
		token, err := a.Resets.Issue(ctx, u.ID, a.Tutor.Now())
		if err != nil {
			return err
		}
		if err := a.Post.ResetLink(u, token); err != nil {
			return err
		}
	}
	return redirect(c, urls.PasswordForgot(true))
}

// resetForm shows the new-password form for a working link, a 404 otherwise.
func (a *App) resetForm(c echo.Context) error {
	noStore(c)
	token := c.Param("token")
	if _, err := a.Resets.Check(c.Request().Context(), token, a.Tutor.Now()); err != nil {
		if errors.Is(err, models.ErrResetLink) {
			return a.render(c, http.StatusNotFound, views.Reset(views.ResetView{Invalid: true}), nil)
		}
		return err
	}
	return a.render(c, http.StatusOK, views.Reset(views.ResetView{Token: token}), nil)
}

// reset sets the new password with the link, which signs the account out
// everywhere, and sends the browser to sign in with it.
func (a *App) reset(c echo.Context) error {
	noStore(c)
	token := c.Param("token")
	_, err := a.Resets.Redeem(c.Request().Context(), token, c.FormValue("password"), a.Tutor.Now())
	if errors.Is(err, models.ErrResetLink) {
		return a.render(c, http.StatusNotFound, views.Reset(views.ResetView{Invalid: true}), nil)
	}
	if status, key := a.passwordRefusal(c, err); key != "" {
		return a.render(c, status, views.Reset(views.ResetView{Token: token, Error: key}), nil)
	}
	if err != nil {
		return err
	}
	// Redeem deleted the account's sessions; this browser's must not be
	// saved back under its old id with whoever it was signed in as.
	sess := session(c)
	delete(sess.Values, sessionUserKey)
	if err := a.Sessions.Renew(c.Request().Context(), sess); err != nil {
		return err
	}
	if err := a.setFlash(c, t(c, "reset.done")); err != nil {
		return err
	}
	return redirect(c, urls.Login(""))
}

// noStore keeps a page that carries a secret out of every cache, and its
// address (the reset token) out of the Referer of links followed from it.
func noStore(c echo.Context) {
	h := c.Response().Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
}
