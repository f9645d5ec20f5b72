package web_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
)

func countUsers(t *testing.T, s *apptest.Server) int64 {
	t.Helper()
	var n int64
	s.DB.Raw("SELECT count(*) FROM users").Scan(&n)
	return n
}

func TestSignupRejectsBadInputAndCreatesNothing(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "taken@example.com", "pass-phrase-1", "FREE")
	tests := []struct {
		name, fullName, email, password, want string
	}{
		{"existing email in another case", "Ana", "TAKEN@Example.com", "pass-phrase-1", "already exists"},
		{"invalid email", "Ana", "not-an-email", "pass-phrase-1", "valid email"},
		{"email without domain dot", "Ana", "ana@localhost", "pass-phrase-1", "valid email"},
		{"short password", "Ana", "ana@example.com", "short", "at least 10"},
		{"empty name", "   ", "ana@example.com", "pass-phrase-1", "Enter your name"},
		{"huge name", strings.Repeat("a", 5000), "ana@example.com", "pass-phrase-1", "Enter your name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := webtest.New(t, s.URL)
			p := c.Submit(c.Get("/signup"), `form[action="/signup"]`,
				map[string]string{"name": tt.fullName, "email": tt.email, "password": tt.password})
			if p.Status != http.StatusUnprocessableEntity {
				t.Errorf("status %d, want 422", p.Status)
			}
			if msg := p.Text("#form-error"); !strings.Contains(msg, tt.want) {
				t.Errorf("message %q does not contain %q", msg, tt.want)
			}
			if n := countUsers(t, s); n != 1 {
				t.Errorf("%d users, want 1: something was created", n)
			}
		})
	}
}

func TestSignupMessageInSpanish(t *testing.T) {
	s := apptest.New(t)
	c := webtest.New(t, s.URL)
	c.Lang = "es-ES,es;q=0.9"
	p := c.Submit(c.Get("/signup"), `form[action="/signup"]`, map[string]string{"name": "Ana", "email": "x", "password": "pass-phrase-1"})
	if msg := p.Text("#form-error"); !strings.Contains(msg, "correo válido") {
		t.Errorf("Spanish message expected, got %q", msg)
	}
}

func TestWrongPasswordIsGenericAndThrottled(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "right-password", "FREE")
	c := webtest.New(t, s.URL)
	var unknown, wrong string
	for i := 0; i < 5; i++ {
		p := c.Submit(c.Get("/login"), `form[action="/login"]`, map[string]string{"email": "ana@example.com", "password": "wrong-password"})
		if p.Status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: status %d, want 401", i+1, p.Status)
		}
		wrong = p.Text("#form-error")
	}
	p := c.Submit(c.Get("/login"), `form[action="/login"]`, map[string]string{"email": "nobody@example.com", "password": "x"})
	unknown = p.Text("#form-error")
	if wrong != unknown || wrong != "Wrong email or password." {
		t.Errorf("messages differ or are not generic: wrong=%q unknown=%q", wrong, unknown)
	}
	// The sixth attempt on the account is refused even with the right password.
	p = c.Submit(c.Get("/login"), `form[action="/login"]`, map[string]string{"email": "ana@example.com", "password": "right-password"})
	if p.Status != http.StatusTooManyRequests || !strings.Contains(p.Text("#form-error"), "Too many") {
		t.Errorf("throttled sign-in: status %d, message %q", p.Status, p.Text("#form-error"))
	}
	// Another account from another address is not affected.
	s.User(t, "bea@example.com", "bea-password", "FREE")
	s.SignIn(t, "bea@example.com", "bea-password")
}

func TestCSRFIsRequiredOnEveryPost(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "right-password", "FREE")
	c := s.SignIn(t, "ana@example.com", "right-password")
	other := webtest.New(t, s.URL)
	otherToken := other.Get("/login").CSRF()
	for _, tt := range []struct{ name, token string }{{"missing", ""}, {"wrong", "forged"}, {"another session's", otherToken}} {
		t.Run(tt.name, func(t *testing.T) {
			form := url.Values{"locale": {"es"}, "next": {"/learn"}}
			if tt.token != "" {
				form.Set("_csrf", tt.token)
			}
			p := c.Post("/locale", form)
			if p.Status != http.StatusForbidden || !strings.Contains(p.Body, "This form has expired") {
				t.Errorf("status %d, want the 403 page; body %.200s", p.Status, p.Body)
			}
			var locale string
			s.DB.Raw("SELECT locale FROM users WHERE email = 'ana@example.com'").Scan(&locale)
			if locale == "es" {
				t.Error("the refused post changed the locale")
			}
		})
	}
	// Sign out without a token does not sign out.
	if p := c.Post("/logout", url.Values{}); p.Status != http.StatusForbidden {
		t.Errorf("logout without token: %d", p.Status)
	}
	if p := c.Get("/learn"); p.URL.Path != "/learn" {
		t.Error("the refused logout signed the user out")
	}
}

func TestSessionIsRenewedAtSignInAndRevokedAtLogout(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "right-password", "FREE")
	c := webtest.New(t, s.URL)
	login := c.Get("/login")
	before := c.Cookie("aula_session")
	if before == "" {
		t.Fatal("no session cookie before sign-in")
	}
	c.Submit(login, `form[action="/login"]`, map[string]string{"email": "ana@example.com", "password": "right-password"})
	after := c.Cookie("aula_session")
	if after == before {
		t.Fatal("the session id did not change at sign-in (fixation)")
	}
	// The planted pre-login cookie is not signed in.
	planted := webtest.New(t, s.URL)
	u, _ := url.Parse(s.URL)
	planted.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "aula_session", Value: before}})
	if p := planted.Get("/learn"); p.URL.Path != "/login" {
		t.Errorf("the pre-login session id reached %s", p.URL.Path)
	}
	// A copy of the signed-in cookie works until logout, then never again.
	thief := webtest.New(t, s.URL)
	thief.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "aula_session", Value: after}})
	if p := thief.Get("/learn"); p.URL.Path != "/learn" {
		t.Fatalf("copied cookie before logout: at %s", p.URL.Path)
	}
	p := c.Submit(c.Get("/learn"), `form[action="/logout"]`, nil)
	if p.URL.Path != "/login" {
		t.Fatalf("after logout at %s", p.URL.Path)
	}
	if p := thief.Get("/learn"); p.URL.Path != "/login" {
		t.Errorf("stolen cookie still works after logout: at %s", p.URL.Path)
	}
	var n int64
	s.DB.Raw("SELECT count(*) FROM sessions WHERE user_id IS NOT NULL").Scan(&n)
	if n != 0 {
		t.Errorf("%d signed-in session rows remain after logout", n)
	}
}

func TestNextOnlyGoesToLocalPaths(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "right-password", "FREE")
	c := webtest.New(t, s.URL)
	c.HTTP.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, tt := range []struct{ next, want string }{
		{"/learn/networking", "/learn/networking"},
		{"https://evil.example/", "/learn"},
		{"//evil.example/", "/learn"},
		{"/\\evil.example", "/learn"},
		{"/%2F%2Fevil.example", "/learn"},
		{"javascript:alert(1)", "/learn"},
		{"", "/learn"},
	} {
		t.Run(tt.next, func(t *testing.T) {
			c.HTTP.Jar, _ = cookiejar.New(nil)
			p := c.Get("/login")
			p = c.Post("/login", url.Values{"_csrf": {p.CSRF()}, "email": {"ana@example.com"}, "password": {"right-password"}, "next": {tt.next}})
			if p.Status != http.StatusSeeOther || p.Header.Get("Location") != tt.want {
				t.Errorf("status %d Location %q, want 303 %q", p.Status, p.Header.Get("Location"), tt.want)
			}
		})
	}
}

func TestSecurityHeaders(t *testing.T) {
	s := apptest.New(t)
	p := webtest.New(t, s.URL).Get("/login")
	for h, want := range map[string]string{
		"Content-Security-Policy": "script-src 'self'",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "strict-origin-when-cross-origin",
	} {
		if !strings.Contains(p.Header.Get(h), want) {
			t.Errorf("%s = %q, want it to contain %q", h, p.Header.Get(h), want)
		}
	}
	if !strings.Contains(p.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Error("CSP lacks frame-ancestors 'none'")
	}
}
