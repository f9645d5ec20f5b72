package web

import (
	"crypto/sha256"
	"net/http"
	"strings"

	"github.com/gorilla/securecookie"
	"github.com/labstack/echo/v4"

	"aula/urls"
)

// onceTTL bounds how long a sealed secret can still be shown.
const onceTTL = 300

// shownOnce names a secret carried, sealed, from a form's 303 to the one
// page that shows it (a new API token, a reset link an admin hands out):
// the secret never reaches the database and the page shows it once.
type shownOnce struct{ cookie, path string }

var (
	newAPIToken   = shownOnce{"aula_new_token", urls.Settings("")}
	adminResetURL = shownOnce{"aula_reset_link", urls.AdminUsersSearch()}
	newJoinLink   = shownOnce{"aula_join_link", urls.Org("")}
)

// newOnceCodec derives the sealing keys from the session key, so it needs
// no configuration and a session cookie cannot be replayed as one.
func newOnceCodec(sessionKey []byte) *securecookie.SecureCookie {
	hash := sha256.Sum256(append([]byte("aula token flash hash:"), sessionKey...))
	block := sha256.Sum256(append([]byte("aula token flash block:"), sessionKey...))
	sc := securecookie.New(hash[:], block[:])
	sc.MaxAge(onceTTL)
	return sc
}

// sealOnce keeps values for the signed-in user's next visit of s.path.
func (a *App) sealOnce(c echo.Context, s shownOnce, userID string, values ...string) error {
	sealed, err := a.onceCodec.Encode(s.cookie, strings.Join(append([]string{userID}, values...), "\n"))
	if err != nil {
		return err
	}
	c.SetCookie(a.onceCookie(s, sealed, onceTTL))
	return nil
}

// openOnce returns and clears the sealed values, if they are this user's.
func (a *App) openOnce(c echo.Context, s shownOnce, userID string) []string {
	ck, err := c.Cookie(s.cookie)
	if err != nil {
		return nil
	}
	c.SetCookie(a.onceCookie(s, "", -1))
	var v string
	if a.onceCodec.Decode(s.cookie, ck.Value, &v) != nil {
		return nil
	}
	parts := strings.Split(v, "\n")
	if parts[0] != userID {
		return nil
	}
	return parts[1:]
}

func (a *App) onceCookie(s shownOnce, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: s.cookie, Value: value, Path: s.path, MaxAge: maxAge, HttpOnly: true,
		Secure: a.Sessions.Options.Secure, SameSite: http.SameSiteStrictMode}
}
