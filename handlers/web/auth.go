package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/models"
	"aula/urls"
	"aula/views"
)

// signupErrors maps validation errors to the message key and the field.
var signupErrors = []struct {
	err        error
	key, field string
}{
	{models.ErrInvalidName, "err.invalid_name", "name"},
	{models.ErrInvalidEmail, "err.invalid_email", "email"},
	{models.ErrEmailTaken, "err.email_taken", "email"},
	{models.ErrShortPassword, "err.short_password", "password"},
	{models.ErrLongPassword, "err.long_password", "password"},
	{models.ErrCommonPassword, "err.common_password", "password"},
}

func (a *App) signupForm(c echo.Context) error {
	if handlers.UserFrom(c) != nil {
		return c.Redirect(http.StatusSeeOther, safeNext(c.QueryParam("next"), urls.Learn()))
	}
	return a.render(c, http.StatusOK, views.Signup(views.AuthForm{Next: safeNext(c.QueryParam("next"), "")}), nil)
}

// signup creates a FREE account, signs it in and opens the catalog. The
// form is checked before the address's sign-up count, so a typo costs no
// sign-up; the count comes before the costly password hash.
func (a *App) signup(c echo.Context) error {
	ctx := c.Request().Context()
	form := views.AuthForm{Name: c.FormValue("name"), Email: c.FormValue("email"), Next: safeNext(c.FormValue("next"), "")}
	n := models.NewUser{Name: form.Name, Email: form.Email, Password: c.FormValue("password"), Plan: models.PlanFree,
		Locale: langOf(c)}
	err := n.Validate()
	if err == nil {
		err = a.signupThrottle(ctx, form.Next).Reserve(ctx, c.RealIP())
	}
	var u *models.User
	if err == nil {
		u, err = a.Users.Create(ctx, n)
	}
	if err != nil {
		for _, e := range signupErrors {
			if errors.Is(err, e.err) {
				form.Error, form.Field = e.key, e.field
				return a.render(c, http.StatusUnprocessableEntity, views.Signup(form), nil)
			}
		}
		return a.authRefused(c, err, &form, views.Signup, "err.signup_throttled")
	}
	if err := a.signIn(c, u); err != nil {
		return err
	}
	// Email goes out in the background; a broken template is only logged,
	// as the account exists and works without the welcome.
	if err := a.Post.Welcome(u); err != nil {
		a.Log.Error("welcome email", "err", err)
	}
	return redirect(c, safeNext(form.Next, urls.Learn()))
}

// signupThrottle is the allowance a sign-up counts against: one on its
// way to a live join link or invitation (its next) counts as a class
// signing up together, any other as a sign-up.
func (a *App) signupThrottle(ctx context.Context, next string) *models.AddressThrottle {
	now := a.Tutor.Now()
	if token, ok := strings.CutPrefix(next, urls.JoinInvite("")); ok {
		if _, _, err := a.Orgs.InvitationOrg(ctx, token, now); err == nil {
			return a.ClassSignups
		}
	} else if token, ok := strings.CutPrefix(next, urls.Join("")); ok {
		if _, err := a.Orgs.LinkOrg(ctx, token, now); err == nil {
			return a.ClassSignups
		}
	}
	return a.Signups
}

// authRefused answers a sign-in or sign-up the server would not process
// now: too many attempts (429) or too many password hashes running (503),
// both with Retry-After; throttled is the form's message for the first.
// Any other error goes to the error handler.
func (a *App) authRefused(c echo.Context, err error, form *views.AuthForm, page func(views.AuthForm) views.Page, throttled string) error {
	var te *models.ThrottleError
	status, wait := 0, time.Duration(0)
	switch {
	case errors.As(err, &te):
		status, wait, form.Error = http.StatusTooManyRequests, te.RetryAfter, throttled
	case errors.Is(err, models.ErrHashingBusy):
		status, wait, form.Error = http.StatusServiceUnavailable, a.Users.Hashing.RetryAfter(), "err.busy"
	default:
		return err
	}
	c.Response().Header().Set("Retry-After", strconv.Itoa(max(1, int(wait.Round(time.Second).Seconds()))))
	return a.render(c, status, page(*form), nil)
}

func (a *App) loginForm(c echo.Context) error {
	next := safeNext(c.QueryParam("next"), "")
	if handlers.UserFrom(c) != nil {
		return c.Redirect(http.StatusSeeOther, safeNext(next, urls.Learn()))
	}
	notice, err := a.takeFlash(c)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.Login(views.AuthForm{Next: next, Notice: notice}), nil)
}

// login reserves the attempt (counted as a failure until it succeeds, so
// concurrent guesses all count), then checks the password, then starts a
// fresh session.
func (a *App) login(c echo.Context) error {
	ctx := c.Request().Context()
	form := views.AuthForm{Email: c.FormValue("email"), Next: safeNext(c.FormValue("next"), "")}
	attempt, err := a.Throttle.Reserve(ctx, form.Email, c.RealIP())
	if err != nil {
		return a.authRefused(c, err, &form, views.Login, "err.throttled")
	}
	u, err := a.Users.Authenticate(ctx, form.Email, c.FormValue("password"))
	if errors.Is(err, models.ErrBadCredentials) {
		form.Error = "err.bad_credentials"
		return a.render(c, http.StatusUnauthorized, views.Login(form), nil)
	}
	if err != nil {
		// The password was not checked: the attempt does not count.
		_ = a.Throttle.Release(context.WithoutCancel(ctx), attempt)
		return a.authRefused(c, err, &form, views.Login, "err.throttled")
	}
	if err := a.Throttle.Succeed(ctx, attempt); err != nil {
		return err
	}
	if err := a.signIn(c, u); err != nil {
		return err
	}
	return redirect(c, safeNext(form.Next, urls.Learn()))
}

// signIn binds the user to a session with a new id and a new CSRF token,
// so nothing planted before sign-in survives it.
func (a *App) signIn(c echo.Context, u *models.User) error {
	sess := session(c)
	if err := a.Sessions.Renew(c.Request().Context(), sess); err != nil {
		return err
	}
	sess.Values[sessionUserKey] = u.ID
	sess.Values[csrfKey] = newToken()
	if u.Locale == "" {
		if l, _ := sess.Values[localeKey].(string); l != "" {
			_ = a.Users.SetLocale(c.Request().Context(), u.ID, l)
		}
	}
	return sess.Save(c.Request(), c.Response())
}

// logout deletes the session row, so the cookie is worthless from now on.
func (a *App) logout(c echo.Context) error {
	sess := session(c)
	sess.Options.MaxAge = -1
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	return redirect(c, urls.Login(""))
}
