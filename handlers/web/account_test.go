package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/pgtest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

const accountPass = "account-pass-12"

// signedOut reports whether the client's session no longer signs it in.
func signedOut(t *testing.T, c *webtest.Client) bool {
	t.Helper()
	p := c.Get("/settings")
	return p.URL.Path == "/login"
}

func TestProfileSavesNameAndLanguage(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", accountPass, models.PlanFree)
	c := s.SignIn(t, "ana@example.com", accountPass)
	tests := []struct {
		name, display, locale string
		status                int
		want                  string // selector present on the answer
	}{
		{"empty name", "  ", "es", http.StatusUnprocessableEntity, "#profile #form-error"},
		{"unknown language", "Ana", "fr", http.StatusUnprocessableEntity, "#profile #form-error"},
		{"saved", "Ana María", "es", http.StatusOK, "#flash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := c.Submit(c.Get("/settings"), "#profile-form", map[string]string{"name": tt.display, "locale": tt.locale})
			if p.Status != tt.status || p.Doc.Find(tt.want).Length() != 1 {
				t.Fatalf("status %d, %s missing:\n%s", p.Status, tt.want, p.Body)
			}
		})
	}
	p := c.Get("/settings")
	if lang, _ := p.Doc.Find("html").Attr("lang"); lang != "es" || p.Text("#profile-heading") != "Perfil" {
		t.Fatalf("the interface did not switch to Spanish: lang=%q", lang)
	}
	if got := p.Doc.Find("#display-name").AttrOr("value", ""); got != "Ana María" {
		t.Fatalf("display name %q", got)
	}
}

func TestPasswordChangeRevokesOtherSessions(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", accountPass, models.PlanFree)
	laptop := s.SignIn(t, "ana@example.com", accountPass)
	phone := s.SignIn(t, "ana@example.com", accountPass)
	before := laptop.Cookie("aula_session")

	p := laptop.Submit(laptop.Get("/settings"), "#password-form", map[string]string{"current": "not my password", "password": "a-new-pass-123"})
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("#password #form-error"), "current password") {
		t.Fatalf("wrong current password: %d\n%s", p.Status, p.Body)
	}
	if signedOut(t, phone) {
		t.Fatal("a refused change signed the other device out")
	}
	p = laptop.Submit(laptop.Get("/settings"), "#password-form", map[string]string{"current": accountPass, "password": "a-new-pass-123"})
	if p.Status != http.StatusOK || p.URL.Path != "/settings" || p.Doc.Find("#flash").Length() != 1 {
		t.Fatalf("change: %d at %s\n%s", p.Status, p.URL, p.Body)
	}
	if signedOut(t, laptop) || laptop.Cookie("aula_session") == before {
		t.Fatal("this device must stay signed in under a new session id")
	}
	if !signedOut(t, phone) {
		t.Fatal("the other device is still signed in after the password change")
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'ana@example.com'`); n != 1 {
		t.Fatalf("%d sessions of the account, want this one", n)
	}
	s.SignIn(t, "ana@example.com", "a-new-pass-123")
}

func TestDevicesListAndSignOut(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", accountPass, models.PlanFree)
	s.User(t, "bob@example.com", accountPass, models.PlanFree)
	laptop := s.SignIn(t, "ana@example.com", accountPass)
	phone := s.SignIn(t, "ana@example.com", accountPass)
	tablet := s.SignIn(t, "ana@example.com", accountPass)
	bob := s.SignIn(t, "bob@example.com", accountPass)

	p := laptop.Get("/settings")
	rows := p.Doc.Find(`#devices tbody tr`)
	if rows.Length() != 3 || p.Doc.Find(`#devices tr[data-current="true"]`).Length() != 1 {
		t.Fatalf("%d devices listed:\n%s", rows.Length(), p.Body)
	}
	if !strings.Contains(rows.First().Text(), "127.0.0.1") {
		t.Errorf("the address is not shown: %s", rows.First().Text())
	}
	// Bob cannot sign out Ana's devices: their handles are a 404 for him.
	action := p.Doc.Find(`#devices form[action$="/signout"]`).First().AttrOr("action", "")
	bp := bob.Get("/settings")
	if r := bob.Post(action, url.Values{"_csrf": {bp.CSRF()}}); r.Status != http.StatusNotFound {
		t.Fatalf("another user's device: %d", r.Status)
	}
	p = laptop.Submit(p, `#devices form[action="`+action+`"]`, nil)
	if p.Status != http.StatusOK || p.Doc.Find(`#devices tbody tr`).Length() != 2 {
		t.Fatalf("after signing one out: %d\n%s", p.Status, p.Body)
	}
	if signedOut(t, phone) == signedOut(t, tablet) {
		t.Fatal("exactly one of the other devices should be signed out")
	}
	p = laptop.Submit(p, `form[action="/settings/sessions/signout-others"]`, nil)
	if p.Status != http.StatusOK || !signedOut(t, phone) || !signedOut(t, tablet) || signedOut(t, laptop) {
		t.Fatalf("sign out everywhere else: %d", p.Status)
	}
	if signedOut(t, bob) {
		t.Fatal("another account was signed out")
	}
}

func TestExportHoldsOnlyTheOwnersThreads(t *testing.T) {
	s := apptest.New(t)
	ana := s.User(t, "ana@example.com", accountPass, models.PlanFree)
	bob := s.User(t, "bob@example.com", accountPass, models.PlanFree)
	for _, u := range []*models.User{ana, bob} {
		conv, err := s.App.Conversations.Create(t.Context(), u.ID, models.ModeTutor, "", 0, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.App.Messages.BeginTurn(t.Context(), models.TurnInput{UserID: u.ID, ConversationID: conv.ID,
			Content: "secret question of " + u.Email, AssistantID: newID(t, s), Now: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	c := s.SignIn(t, "ana@example.com", accountPass)
	p := c.Get("/settings/export")
	if p.Status != http.StatusOK || !strings.HasPrefix(p.Header.Get("Content-Disposition"), "attachment;") ||
		!strings.Contains(p.Header.Get("Cache-Control"), "no-store") {
		t.Fatalf("export: %d %v", p.Status, p.Header)
	}
	var exp models.Export
	if err := json.Unmarshal([]byte(p.Body), &exp); err != nil {
		t.Fatal(err)
	}
	if exp.Account.Email != "ana@example.com" || len(exp.Conversations) != 1 || len(exp.Conversations[0].Messages) != 2 ||
		exp.Conversations[0].Messages[0].Content != "secret question of ana@example.com" {
		t.Fatalf("export: %s", p.Body)
	}
	if strings.Contains(p.Body, "bob@") || strings.Contains(p.Body, "password") {
		t.Fatalf("the export carries another account's data or a secret:\n%s", p.Body)
	}
}

func newID(t *testing.T, s *apptest.Server) string {
	t.Helper()
	var id string
	if err := s.DB.Raw(`SELECT gen_random_uuid()::text`).Row().Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestDeleteAccountRemovesEverything(t *testing.T) {
	s := apptest.New(t)
	ana := s.User(t, "ana@example.com", accountPass, models.PlanFree)
	s.User(t, "root@example.com", accountPass, models.PlanSuperAdmin)
	c := s.SignIn(t, "ana@example.com", accountPass)
	other := s.SignIn(t, "ana@example.com", accountPass)
	apptest.NewThread(t, c)
	c.Submit(c.Get("/settings"), `form[action="/settings/tokens"]`, map[string]string{"name": "script"})

	p := c.Get("/settings/delete")
	if p.Status != http.StatusOK || p.Doc.Find("#delete-form").Length() != 1 {
		t.Fatalf("confirmation page: %d", p.Status)
	}
	if r := c.Submit(p, "#delete-form", map[string]string{"password": "wrong"}); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("wrong password: %d", r.Status)
	}
	p = c.Submit(p, "#delete-form", map[string]string{"password": accountPass})
	if p.Status != http.StatusOK || p.URL.Path != "/" || p.Doc.Find("#flash").Length() != 1 || p.Doc.Find("#landing-demo").Length() != 1 {
		t.Fatalf("after delete: %d at %s\n%s", p.Status, p.URL, p.Body)
	}
	for k, n := range pgtest.RowsNaming(t, s.DB, ana.ID) {
		if n != 0 {
			t.Errorf("%s still has %d rows of the deleted account", k, n)
		}
	}
	if !signedOut(t, other) {
		t.Error("another device of the deleted account is still signed in")
	}

	root := s.SignIn(t, "root@example.com", accountPass)
	p = root.Submit(root.Get("/settings/delete"), "#delete-form", map[string]string{"password": accountPass})
	if p.Status != http.StatusConflict || p.Doc.Find("#form-error").Length() != 1 {
		t.Fatalf("the last SUPER_ADMIN deleting themselves: %d", p.Status)
	}
}

func TestOptionalEmailOneClick(t *testing.T) {
	s := apptest.New(t)
	ana := s.User(t, "ana@example.com", accountPass, models.PlanFree)
	c := s.SignIn(t, "ana@example.com", accountPass)
	for _, want := range []bool{false, true} {
		p := c.Submit(c.Get("/settings"), "#email-form", nil)
		u, _ := s.App.Users.Get(t.Context(), ana.ID)
		if p.Status != http.StatusOK || u.OptionalEmail != want {
			t.Fatalf("after one click: %d, optional email %v, want %v", p.Status, u.OptionalEmail, want)
		}
	}
}

func TestPasswordFormsShareTheSignInThrottle(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", accountPass, models.PlanFree)
	s.App.Throttle.PerPair = 2
	c := s.SignIn(t, "ana@example.com", accountPass)
	tests := []struct {
		form, current string
		status        int
	}{
		{"#password-form", "guess-one", http.StatusUnprocessableEntity},
		{"#password-form", "guess-two", http.StatusUnprocessableEntity},
		{"#password-form", accountPass, http.StatusTooManyRequests},
	}
	for i, tt := range tests {
		p := c.Submit(c.Get("/settings"), tt.form, map[string]string{"current": tt.current, "password": "a-new-pass-123"})
		if p.Status != tt.status {
			t.Fatalf("attempt %d: %d, want %d", i+1, p.Status, tt.status)
		}
	}
	p := c.Submit(c.Get("/settings/delete"), "#delete-form", map[string]string{"password": accountPass})
	if p.Status != http.StatusTooManyRequests || p.Header.Get("Retry-After") == "" {
		t.Fatalf("delete while throttled: %d", p.Status)
	}
}

func TestDeviceRowWrittenEveryFewMinutesNotPerRequest(t *testing.T) {
	clk := &clock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	s := apptest.New(t, func(c *tutor.Config) { c.Now = clk.Now })
	s.User(t, "ana@example.com", accountPass, models.PlanFree)
	c := s.SignIn(t, "ana@example.com", accountPass)
	c.Get("/settings")
	before := s.SQLs.Load()
	c.Get("/settings")
	quiet := s.SQLs.Load() - before
	clk.Add(models.DeviceTouchEvery)
	before = s.SQLs.Load()
	c.Get("/settings")
	if touched := s.SQLs.Load() - before; touched != quiet+2 {
		t.Fatalf("a page costs %d statements; after %s %d, want 2 more (touch and save)", quiet, models.DeviceTouchEvery, touched)
	}
	p := c.Submit(c.Get("/settings"), "#password-form", map[string]string{"current": accountPass, "password": "a-new-pass-123"})
	if ua := p.Doc.Find(`#devices tr[data-current="true"] td`).First().AttrOr("title", ""); !strings.HasPrefix(ua, "Go-http-client") {
		t.Fatalf("the renewed session lost its device: %q", ua)
	}
}
