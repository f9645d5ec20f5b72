package mail_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"aula/internal/smtptest"
	"aula/mail"
	"aula/models"
)

func post(t *testing.T) (*mail.Post, *smtptest.Server) {
	t.Helper()
	srv := smtptest.Start(t)
	m, err := mail.New(srv.MailConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	p := mail.NewPost(m, "https://aula.school.example/")
	t.Cleanup(p.Wait)
	return p, srv
}

func TestEmailsInBothLanguages(t *testing.T) {
	p, srv := post(t)
	tests := []struct {
		name    string
		send    func(u *models.User) error
		locale  string
		subject string
		want    []string // in both the text and the HTML part
		stop    bool     // carries the way to stop optional email
	}{
		{"welcome en", p.Welcome, "en", "Welcome to aula", []string{"Hello Ana,", "https://aula.school.example/learn"}, true},
		{"welcome es", p.Welcome, "es", "Te damos la bienvenida a aula", []string{"Hola, Ana:", "Empezar a aprender"}, true},
		{"reset en", func(u *models.User) error { return p.ResetLink(u, "tok123") }, "en", "Reset your aula password",
			[]string{"within 30 minutes", "https://aula.school.example/password/reset/tok123"}, false},
		{"reset es", func(u *models.User) error { return p.ResetLink(u, "tok456") }, "es", "Restablece tu contraseña de aula",
			[]string{"durante 30 minutos", "https://aula.school.example/password/reset/tok456"}, false},
		{"upgrade approved es", func(u *models.User) error { return p.UpgradeDecision(u, "PRO", true) }, "es",
			"Se aprobó tu cambio al plan PRO", []string{"al plan PRO"}, true},
		{"upgrade declined en", func(u *models.User) error { return p.UpgradeDecision(u, "PRO", false) }, "en",
			"Your upgrade request to PRO", []string{"declined"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &models.User{Email: "ana@example.com", Name: "Ana Pérez", Locale: tt.locale, OptionalEmail: true}
			if err := tt.send(u); err != nil {
				t.Fatal(err)
			}
			got := srv.Next(t)
			if got.To != u.Email || got.From != smtptest.From || got.Subject != tt.subject {
				t.Errorf("to %q from %q subject %q", got.To, got.From, got.Subject)
			}
			if !got.TLS || !got.Authed || got.ContentType != "multipart/alternative" {
				t.Errorf("STARTTLS %v, AUTH %v, %s", got.TLS, got.Authed, got.ContentType)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.Text, w) || !strings.Contains(got.HTML, w) {
					t.Errorf("%q missing:\n%s\n%s", w, got.Text, got.HTML)
				}
			}
			if has := strings.Contains(got.Text, "/settings#email"); has != tt.stop {
				t.Errorf("stop link present %v, want %v", has, tt.stop)
			}
		})
	}
}

func TestOptionalEmailOffStillSendsResetLinks(t *testing.T) {
	p, srv := post(t)
	u := &models.User{Email: "bob@example.com", Name: "Bob", Locale: "en", OptionalEmail: false}
	if err := p.Welcome(u); err != nil {
		t.Fatal(err)
	}
	if err := p.UpgradeDecision(u, "PRO", true); err != nil {
		t.Fatal(err)
	}
	if err := p.ResetLink(u, "tok"); err != nil {
		t.Fatal(err)
	}
	p.Wait()
	if got := srv.Next(t); got.Subject != "Reset your aula password" {
		t.Fatalf("first message after opting out is %q", got.Subject)
	}
	if n := len(srv.Messages); n != 0 {
		t.Fatalf("%d more messages", n)
	}
}

func TestMailTest(t *testing.T) {
	p, srv := post(t)
	if err := p.Test(context.Background(), "ops@example.com", "es"); err != nil {
		t.Fatal(err)
	}
	if got := srv.Next(t); got.Subject != "Prueba de correo de aula" || !strings.Contains(got.Text, "aula mail test") {
		t.Fatalf("%q %q", got.Subject, got.Text)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		url, from string
		ok        bool
	}{
		{"smtp://u:p@mail.example:587", "aula@example.com", true},
		{"smtps://mail.example", "Aula <aula@example.com>", true},
		{"http://mail.example", "aula@example.com", false},
		{"smtp://mail.example:99999", "aula@example.com", false},
		{"smtp://mail.example", "not an address", false},
		{"smtp:///nohost", "aula@example.com", false},
	}
	for _, tt := range tests {
		if err := mail.Validate(tt.url, tt.from); (err == nil) != tt.ok {
			t.Errorf("Validate(%q, %q) = %v", tt.url, tt.from, err)
		}
	}
}
