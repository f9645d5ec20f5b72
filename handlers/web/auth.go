package web

import (
	"aula/handlers"

	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"aula/models"
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
}

func (a *App) signupForm(c echo.Context) error {
	if handlers.UserFrom(c) != nil {
		return c.Redirect(http.StatusSeeOther, "/learn")
	}
	return a.render(c, http.StatusOK, views.Signup(views.AuthForm{}), nil)
}

// signup creates a FREE account, signs it in and opens the catalog.
func (a *App) signup(c echo.Context) error {
	form := views.AuthForm{Name: c.FormValue("name"), Email: c.FormValue("email")}
	u, err := a.Users.Create(c.Request().Context(), models.NewUser{
		Name: form.Name, Email: form.Email, Password: c.FormValue("password"), Plan: models.PlanFree,
		Locale: langOf(c),
	})
	if err != nil {
		for _, e := range signupErrors {
			if errors.Is(err, e.err) {
				form.Error, form.Field = e.key, e.field
				return a.render(c, http.StatusUnprocessableEntity, views.Signup(form), nil)
			}
		}
		return err
	}
	if err := a.signIn(c, u); err != nil {
		return err
	}
	return redirect(c, "/learn")
}

func (a *App) loginForm(c echo.Context) error {
	next := safeNext(c.QueryParam("next"), "")
	if handlers.UserFrom(c) != nil {
		return c.Redirect(http.StatusSeeOther, safeNext(next, "/learn"))
	}
	return a.render(c, http.StatusOK, views.Login(views.AuthForm{Next: next}), nil)
}

// login checks the throttle, then the password, then starts a fresh session.
func (a *App) login(c echo.Context) error {
	ctx := c.Request().Context()
	form := views.AuthForm{Email: c.FormValue("email"), Next: safeNext(c.FormValue("next"), "")}
	ip := c.RealIP()
	blocked, err := a.Throttle.Blocked(ctx, form.Email, ip)
	if err != nil {
		return err
	}
	if blocked {
		form.Error = "err.throttled"
		return a.render(c, http.StatusTooManyRequests, views.Login(form), nil)
	}
	u, err := a.Users.Authenticate(ctx, form.Email, c.FormValue("password"))
	if errors.Is(err, models.ErrBadCredentials) {
		if err := a.Throttle.Fail(ctx, form.Email, ip); err != nil {
			return err
		}
		form.Error = "err.bad_credentials"
		return a.render(c, http.StatusUnauthorized, views.Login(form), nil)
	}
	if err != nil {
		return err
	}
	if err := a.Throttle.Succeed(ctx, form.Email); err != nil {
		return err
	}
	if err := a.signIn(c, u); err != nil {
		return err
	}
	return redirect(c, safeNext(form.Next, "/learn"))
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
	return redirect(c, "/login")
}
