package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

func TestSettingsTokensLifecycle(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "set@example.com", "set-pass-1", models.PlanPro)
	other := s.User(t, "intruder@example.com", "intruder-pass-1", models.PlanPro)
	c := s.SignIn(t, "set@example.com", "set-pass-1")

	p := c.Get("/settings")
	if p.Status != 200 || p.Doc.Find("#no-tokens").Length() != 1 || p.Doc.Find("#new-token").Length() != 0 {
		t.Fatalf("empty settings page: %d\n%s", p.Status, p.Body)
	}
	p = c.Submit(p, `form[action="/settings/tokens"]`, map[string]string{"name": "my script"})
	raw := p.Text("#new-token")
	if p.Status != 200 || p.URL.Path != "/settings" || !strings.HasPrefix(raw, models.TokenPrefix) {
		t.Fatalf("after create: %d %s token %q", p.Status, p.URL, raw)
	}
	if !strings.Contains(p.Header.Get("Cache-Control"), "no-store") {
		t.Fatal("a page with a secret may be cached")
	}
	row := p.Doc.Find(`tr[id^="token-"]`)
	if row.Length() != 1 || !strings.Contains(row.Text(), "my script") || row.AttrOr("data-revoked", "") != "false" {
		t.Fatalf("token row: %s", p.Body)
	}
	if again := c.Get("/settings"); again.Doc.Find("#new-token").Length() != 0 {
		t.Fatal("the new token is shown twice")
	}
	apptest.APIJSON(t, s, raw, "GET", "/tutor/session-info", nil, 200)
	var stored int64
	s.DB.Raw(`SELECT count(*) FROM sessions WHERE position(convert_to(?, 'UTF8') in data) > 0`, raw).Row().Scan(&stored)
	if stored != 0 {
		t.Fatal("the token reached the session table")
	}

	id := strings.TrimPrefix(row.AttrOr("id", ""), "token-")
	// Someone else's revoke is a 404 and changes nothing.
	intruder := s.SignIn(t, "intruder@example.com", "intruder-pass-1")
	ip := intruder.Get("/settings")
	if r := intruder.Post("/settings/tokens/"+id+"/revoke", url.Values{"_csrf": {ip.CSRF()}}); r.Status != 404 {
		t.Fatalf("someone else's revoke: %d", r.Status)
	}
	if list, _ := s.App.Tokens.List(t.Context(), other.ID); len(list) != 0 {
		t.Fatal("intruder has tokens")
	}
	apptest.APIJSON(t, s, raw, "GET", "/tutor/session-info", nil, 200)
	// Without the CSRF field the form is refused.
	if r := c.Post("/settings/tokens/"+id+"/revoke", url.Values{}); r.Status != http.StatusForbidden {
		t.Fatalf("revoke without CSRF: %d", r.Status)
	}

	p = c.Get("/settings")
	p = c.Submit(p, `form[action="/settings/tokens/`+id+`/revoke"]`, nil)
	if p.Status != 200 || p.Doc.Find("#token-revoked").Length() != 1 || p.Doc.Find("#token-"+id).AttrOr("data-revoked", "") != "true" {
		t.Fatalf("after revoke: %d\n%s", p.Status, p.Body)
	}
	apptest.APIJSON(t, s, raw, "GET", "/tutor/session-info", nil, 401)

	p = c.Submit(p, `form[action="/settings/tokens"]`, map[string]string{"name": "  "})
	if p.Status != 422 || p.Doc.Find("#form-error").Length() != 1 {
		t.Fatalf("empty name: %d", p.Status)
	}
}

func TestSettingsSpanish(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "es@example.com", "es-pass-word-1", models.PlanStarter)
	c := s.SignIn(t, "es@example.com", "es-pass-word-1")
	c.Lang = "es"
	p := c.Get("/settings")
	p = c.Submit(p, `form[action="/settings/tokens"]`, map[string]string{"name": "portátil"})
	if !strings.Contains(p.Body, "Tokens personales de API") || !strings.Contains(p.Body, "solo se muestra una vez") {
		t.Fatalf("settings in Spanish:\n%s", p.Body)
	}
	if p.Doc.Find(`form[action^="/settings/tokens/"] input[name="_csrf"]`).Length() != 1 {
		t.Fatal("the revoke form has no CSRF field")
	}
}

func TestSettingsNeedsSignIn(t *testing.T) {
	s := apptest.New(t)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Get(s.URL + "/settings")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Fatalf("signed out: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
}
