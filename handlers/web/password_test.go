package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/smtptest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// clock is a settable time for the tutor service (and so for reset links).
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var resetLink = regexp.MustCompile(`https?://[^\s"<]+/password/reset/[A-Za-z0-9_-]+`)

// askReset submits the forgot form for email and returns the answer page.
func askReset(t *testing.T, c *webtest.Client, email string) *webtest.Page {
	t.Helper()
	return c.Submit(c.Get("/password/forgot"), "#forgot-form", map[string]string{"email": email})
}

// linkPath is the path of the reset link in a received email.
func linkPath(t *testing.T, m smtptest.Received) string {
	t.Helper()
	return mailLinkPath(t, resetLink, m)
}

// mailLinkPath is the path of the link re finds in both parts of a letter.
func mailLinkPath(t *testing.T, re *regexp.Regexp, m smtptest.Received) string {
	t.Helper()
	link := re.FindString(m.Text)
	if link == "" || !strings.Contains(m.HTML, link) {
		t.Fatalf("no link %s in both parts:\n%s\n%s", re, m.Text, m.HTML)
	}
	u, _ := url.Parse(link)
	return u.Path
}

func TestForgotPasswordSameAnswerAndSingleUseLink(t *testing.T) {
	s := apptest.New(t)
	mail := s.WithMail(t)
	s.User(t, "ana@example.com", accountPass, models.PlanFree)
	signedIn := s.SignIn(t, "ana@example.com", accountPass)
	c := webtest.New(t, s.URL)

	known, unknown := askReset(t, c, "Ana@Example.com"), askReset(t, c, "nobody@example.com")
	for _, p := range []*webtest.Page{known, unknown} {
		if p.Status != http.StatusOK || p.URL.String() != s.URL+"/password/forgot?sent=1" {
			t.Fatalf("answer: %d at %s", p.Status, p.URL)
		}
	}
	if known.Text("main") != unknown.Text("main") {
		t.Fatalf("the page tells known from unknown emails:\n%s\n---\n%s", known.Text("main"), unknown.Text("main"))
	}
	m := mail.Next(t)
	if m.To != "ana@example.com" || m.Subject != "Reset your aula password" {
		t.Fatalf("mail to %q: %q", m.To, m.Subject)
	}
	path := linkPath(t, m)
	s.App.Post.Wait()
	if n := len(mail.Messages); n != 0 {
		t.Fatalf("%d more emails: the unknown address got one", n)
	}

	p := c.Get(path)
	if p.Status != http.StatusOK || p.Doc.Find("#reset-form").Length() != 1 || p.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("reset page: %d\n%s", p.Status, p.Body)
	}
	if r := c.Submit(p, "#reset-form", map[string]string{"password": "short"}); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("short password: %d", r.Status)
	}
	p = c.Submit(p, "#reset-form", map[string]string{"password": "my-new-pass-42"})
	if p.Status != http.StatusOK || p.URL.Path != "/login" || p.Doc.Find("#flash").Length() != 1 {
		t.Fatalf("after reset: %d at %s\n%s", p.Status, p.URL, p.Body)
	}
	if !signedOut(t, signedIn) {
		t.Fatal("the reset left a session of the account signed in")
	}
	if again := c.Get(path); again.Status != http.StatusNotFound || again.Doc.Find("#reset-invalid").Length() != 1 {
		t.Fatalf("the link works twice: %d", again.Status)
	}
	s.SignIn(t, "ana@example.com", "my-new-pass-42")
}

func TestResetLinkExpiresAfter30Minutes(t *testing.T) {
	clk := &clock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	s := apptest.New(t, func(c *tutor.Config) { c.Now = clk.Now })
	mail := s.WithMail(t)
	s.User(t, "ana@example.com", accountPass, models.PlanFree)
	c := webtest.New(t, s.URL)
	askReset(t, c, "ana@example.com")
	path := linkPath(t, mail.Next(t))
	clk.Add(29 * time.Minute)
	if p := c.Get(path); p.Status != http.StatusOK {
		t.Fatalf("at 29 minutes: %d", p.Status)
	}
	clk.Add(time.Minute)
	if p := c.Get(path); p.Status != http.StatusNotFound {
		t.Fatalf("at 30 minutes: %d", p.Status)
	}
	p := c.Post(path, url.Values{"_csrf": {c.Get("/password/forgot").CSRF()}, "password": {"my-new-pass-42"}})
	if p.Status != http.StatusNotFound {
		t.Fatalf("an expired link set the password: %d", p.Status)
	}
}

func TestForgotPasswordThrottles(t *testing.T) {
	s := apptest.New(t)
	s.WithMail(t)
	s.User(t, "ana@example.com", accountPass, models.PlanFree)
	s.App.ResetThrottle.PerEmail, s.App.ResetThrottle.PerAddress = 2, 4
	c := webtest.New(t, s.URL)
	tests := []struct {
		email  string
		status int
	}{
		{"ana@example.com", 200}, {"ana@example.com", 200}, {"ANA@example.com", 429}, // per email
		{"x@example.com", 200}, {"y@example.com", 429}, // per address: the 5th request
	}
	for i, tt := range tests {
		if p := askReset(t, c, tt.email); p.Status != tt.status {
			t.Fatalf("request %d for %s: %d, want %d", i+1, tt.email, p.Status, tt.status)
		}
	}
}

func TestWithoutMailAdminHandsOutTheLink(t *testing.T) {
	s := apptest.New(t)
	ana := s.User(t, "ana@example.com", accountPass, models.PlanFree)
	s.User(t, "root@example.com", accountPass, models.PlanSuperAdmin)
	s.User(t, "editor@example.com", accountPass, models.PlanContentAdmin)
	visitor := webtest.New(t, s.URL)
	if p := visitor.Get("/password/forgot"); p.Doc.Find("#ask-admin").Length() != 1 || p.Doc.Find("#forgot-form").Length() != 0 {
		t.Fatalf("without SMTP the page must say to ask an administrator:\n%s", p.Body)
	}

	editor := s.SignIn(t, "editor@example.com", accountPass)
	ep := editor.Get("/learn")
	if r := editor.Post("/admin/users/"+ana.ID+"/reset", url.Values{"_csrf": {ep.CSRF()}}); r.Status != http.StatusNotFound {
		t.Fatalf("a CONTENT_ADMIN made a reset link: %d", r.Status)
	}
	root := s.SignIn(t, "root@example.com", accountPass)
	p := root.Submit(root.Get("/admin/users?q=ana"), `form[action="/admin/users/`+ana.ID+`/reset"]`, nil)
	link := p.Text("#reset-url")
	if p.Status != http.StatusOK || !strings.HasPrefix(link, s.URL+"/password/reset/") {
		t.Fatalf("reset link: %d %q\n%s", p.Status, link, p.Body)
	}
	if again := root.Get("/admin/users?q=ana"); again.Doc.Find("#reset-url").Length() != 0 {
		t.Fatal("the link is shown twice")
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM sessions WHERE position(convert_to(?, 'UTF8') in data) > 0`,
		strings.TrimPrefix(link, s.URL+"/password/reset/")); n != 0 {
		t.Fatal("the link reached the session table")
	}
	u, _ := url.Parse(link)
	p = visitor.Submit(visitor.Get(u.Path), "#reset-form", map[string]string{"password": "my-new-pass-42"})
	if p.URL.Path != "/login" {
		t.Fatalf("reset with the admin's link: %d at %s", p.Status, p.URL)
	}
	s.SignIn(t, "ana@example.com", "my-new-pass-42")
}

func TestEmailsInTheUsersLanguage(t *testing.T) {
	s := apptest.New(t)
	mail := s.WithMail(t)
	for _, tt := range []struct{ lang, email, welcome, reset string }{
		{"en", "lucy@example.com", "Welcome to aula", "Reset your aula password"},
		{"es", "lucia@example.com", "Te damos la bienvenida a aula", "Restablece tu contraseña de aula"},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			c := webtest.New(t, s.URL)
			c.Lang = tt.lang
			p := c.Submit(c.Get("/signup"), `form[action="/signup"]`, map[string]string{"name": "Lucía", "email": tt.email, "password": accountPass})
			if p.URL.Path != "/learn" {
				t.Fatalf("sign-up: %d at %s", p.Status, p.URL)
			}
			if m := mail.Next(t); m.To != tt.email || m.Subject != tt.welcome || !strings.Contains(m.Text, "/settings#email") {
				t.Fatalf("welcome: %q to %q\n%s", m.Subject, m.To, m.Text)
			}
			visitor := webtest.New(t, s.URL)
			askReset(t, visitor, tt.email)
			if m := mail.Next(t); m.Subject != tt.reset {
				t.Fatalf("reset: %q", m.Subject)
			}
		})
	}
}

func TestLandingForVisitors(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", accountPass, models.PlanFree)
	for _, tt := range []struct{ lang, title string }{
		{"en", "Learn with a tutor beside every lesson"},
		{"es", "Aprende con un tutor al lado de cada lección"},
	} {
		c := webtest.New(t, s.URL)
		c.Lang = tt.lang
		p := c.Get("/")
		demo := p.Doc.Find("#landing-demo .landing-shot[inert] #tutor .panel")
		if p.Status != http.StatusOK || p.URL.Path != "/" || p.Text("h1") != tt.title || demo.Length() != 1 ||
			demo.Find(".msg.user").Length() != 1 || demo.Find(".msg.assistant .citations a").Length() != 2 {
			t.Fatalf("%s landing: %d at %s\n%s", tt.lang, p.Status, p.URL, p.Body)
		}
		if p.Doc.Find(`a[href="/signup"]#landing-signup`).Length() != 1 || p.Doc.Find(`a[href="/login"]#landing-signin`).Length() != 1 {
			t.Fatal("no way in from the landing page")
		}
	}
	if p := s.SignIn(t, "ana@example.com", accountPass).Get("/"); p.URL.Path != "/learn" {
		t.Fatalf("signed in, / goes to %s", p.URL)
	}
}
