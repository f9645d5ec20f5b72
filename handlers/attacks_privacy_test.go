package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"aula/handlers"
	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
	"aula/static"
)

// TestAttackAnonymousTrafficWritesNoSessions: a crawler fetching the
// sign-in page, a 404 and a language switch leaves no row behind; signing
// in is the first thing worth one.
func TestAttackAnonymousTrafficWritesNoSessions(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "rows@example.com", "rows password 1", models.PlanFree)
	for range 3 {
		c := webtest.New(t, s.URL)
		c.Get("/login")
		c.Get("/no-such-page")
		c.Get("/signup")
		p := c.Get("/login")
		c.Post("/locale", url.Values{"_csrf": {p.CSRF()}, "locale": {"es"}})
		if p := c.Get("/login"); p.Header.Get("Content-Language") != "es" {
			t.Fatalf("the anonymous language choice was not kept: %q", p.Header.Get("Content-Language"))
		}
	}
	if n := apptest.Count(t, s, "SELECT count(*) FROM sessions"); n != 0 {
		t.Errorf("anonymous visits wrote %d session rows, want 0", n)
	}
	s.SignIn(t, "rows@example.com", "rows password 1")
	if n := apptest.Count(t, s, "SELECT count(*) FROM sessions WHERE user_id IS NOT NULL"); n != 1 {
		t.Errorf("%d session rows after signing in, want 1", n)
	}
}

// TestAttackPrivateResponsesAreNotStored: every page and API answer that is
// a user's own tells caches not to keep it.
func TestAttackPrivateResponsesAreNotStored(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "cache@example.com", "cache password 1", models.PlanPro)
	c := s.SignIn(t, "cache@example.com", "cache password 1")
	for _, path := range []string{"/learn", "/chat", "/settings", "/dashboard", "/learn/networking/vlan-basics", "/no-such-page"} {
		if p := c.Get(path); !strings.Contains(p.Header.Get("Cache-Control"), "no-store") {
			t.Errorf("GET %s (%d): Cache-Control %q, want no-store", path, p.Status, p.Header.Get("Cache-Control"))
		}
	}
	token := apptest.APIToken(t, s, u.ID)
	for _, path := range []string{"/tutor/session-info", "/tutor/my-usage", "/conversations"} {
		resp, _ := apptest.APICall(t, s, token, "GET", path, nil)
		if !strings.Contains(resp.Header.Get("Cache-Control"), "no-store") {
			t.Errorf("API GET %s (%d): Cache-Control %q, want no-store", path, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	}
	if p := c.Get("/healthz"); p.Header.Get("Strict-Transport-Security") != "" {
		t.Error("HSTS sent although aula is not served over HTTPS")
	}
}

func TestHSTSWithSecureCookies(t *testing.T) {
	e := handlers.New(&handlers.Server{Log: discardLog(), Static: static.FS, Metrics: &handlers.Metrics{}, SecureCookies: true})
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if h := rec.Header().Get("Strict-Transport-Security"); !strings.Contains(h, "max-age=") {
		t.Errorf("Strict-Transport-Security %q with AULA_SECURE_COOKIES=true", h)
	}
}
