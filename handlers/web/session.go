package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/i18n"
	"aula/models"
	"aula/urls"
	"aula/views"
)

const (
	ctxSession = "aula.session"
	csrfKey    = "csrf"
	localeKey  = "locale"
)

func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// loadSession loads the server-side session and the signed-in user, picks
// the request's language, and puts the page frame's data in the context.
func (a *App) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := a.prepare(c); err != nil {
			return err
		}
		return next(c)
	}
}

// prepare does loadSession's work; the error handler calls it too, so a
// 404 for an unknown route is still in the user's language.
func (a *App) prepare(c echo.Context) error {
	if c.Get(ctxSession) != nil {
		return nil
	}
	r := c.Request()
	sess, signedIn, err := a.Sessions.Open(r, sessionName)
	if err != nil {
		return fmt.Errorf("load session: %w", err)
	}
	c.Set(ctxSession, sess)
	f := &views.Frame{Path: r.URL.RequestURI(), AssetVersion: a.AssetVersion,
		RequestID: c.Response().Header().Get(echo.HeaderXRequestID), Now: a.Tutor.Now()}
	if uid, ok := sess.Values[sessionUserKey].(string); ok && uid != "" {
		u, err := a.sessionUser(r.Context(), uid, signedIn)
		switch {
		case err == nil:
			f.User = u
			handlers.SetUser(c, u)
			if err := a.touchDevice(c, sess); err != nil {
				return err
			}
		case models.IsUnavailable(err):
			return fmt.Errorf("load user: %w", err)
		}
	}
	tok, _ := sess.Values[csrfKey].(string)
	if tok == "" {
		tok = newToken()
		sess.Values[csrfKey] = tok
		if err := sess.Save(r, c.Response()); err != nil {
			return err
		}
	}
	f.CSRF = tok
	lang := i18n.Negotiate(r.Header.Get("Accept-Language"))
	if l, ok := sess.Values[localeKey].(string); ok && l != "" {
		lang = l
	}
	if f.User != nil && f.User.Locale != "" {
		lang = f.User.Locale
	}
	ctx := i18n.WithLang(views.WithFrame(r.Context(), f), lang)
	c.SetRequest(r.WithContext(ctx))
	c.Response().Header().Set("Content-Language", lang)
	return nil
}

// sessionUser is the session's signed-in user: the one its row named,
// read with it. The row's user and its values are written together and
// agree; should they ever not, the values' user is read on its own rather
// than the row's trusted.
func (a *App) sessionUser(ctx context.Context, uid string, signedIn *models.User) (*models.User, error) {
	if signedIn != nil && signedIn.ID == uid {
		return signedIn, nil
	}
	return a.Users.Get(ctx, uid)
}

// seenKey is the session value remembering when, and with which device
// and address, the session's row was last touched.
const seenKey = "seen"

// touchDevice records what the settings page lists about this session
// (device, address, last seen). The session remembers the last write, so
// the row is written every few minutes or when the device or address
// changes, not on every request.
func (a *App) touchDevice(c echo.Context, sess *sessions.Session) error {
	r := c.Request()
	// The id is in the mark too: a renewed session (sign-in, password
	// change) is a new row to fill.
	sum := sha256.Sum256([]byte(r.UserAgent() + "\n" + c.RealIP() + "\n" + sess.ID))
	mark := hex.EncodeToString(sum[:8])
	now := a.Tutor.Now()
	if at, m, ok := strings.Cut(fmt.Sprint(sess.Values[seenKey]), " "); ok && m == mark {
		if unix, err := strconv.ParseInt(at, 10, 64); err == nil && now.Sub(time.Unix(unix, 0)) < models.DeviceTouchEvery {
			return nil
		}
	}
	if err := a.Devices.Touch(r.Context(), sess.ID, r.UserAgent(), c.RealIP()); err != nil {
		return err
	}
	sess.Values[seenKey] = fmt.Sprintf("%d %s", now.Unix(), mark)
	return sess.Save(r, c.Response())
}

// session returns the request's session (loaded by loadSession).
func session(c echo.Context) *sessions.Session {
	s, _ := c.Get(ctxSession).(*sessions.Session)
	return s
}

// checkCSRF refuses a state-changing request whose _csrf field or
// X-CSRF-Token header does not match the session's token.
func (a *App) checkCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		want := frame(c).CSRF
		got := c.Request().Header.Get("X-CSRF-Token")
		if got == "" {
			got = c.FormValue("_csrf")
		}
		if want == "" || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
			return echo.NewHTTPError(http.StatusForbidden, "CSRF token missing or wrong")
		}
		return next(c)
	}
}

// requireUser sends signed-out visitors to the sign-in page, coming back after.
func (a *App) requireUser(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if handlers.UserFrom(c) == nil {
			if c.Path() == "/*" { // the group's catch-all: an unknown route is a 404, not a sign-in
				return echo.ErrNotFound
			}
			return redirect(c, urls.Login(c.Request().URL.RequestURI()))
		}
		return next(c)
	}
}

// safeNext returns next when it is a path on this site, else the default:
// no scheme, no host, no protocol-relative or backslash tricks.
func safeNext(next, def string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.ContainsAny(next, "\\\r\n\t") || strings.HasPrefix(next, "/%2f") || strings.HasPrefix(next, "/%2F") {
		return def
	}
	return next
}
