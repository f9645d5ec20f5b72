package apptest

import (
	"io"
	"log/slog"
	"testing"

	"aula/internal/smtptest"
	"aula/mail"
)

// WithMail gives the site email through an SMTP server running inside the
// test, and returns that server to read what arrives.
func (s *Server) WithMail(t testing.TB) *smtptest.Server {
	t.Helper()
	srv := smtptest.Start(t)
	m, err := mail.New(srv.MailConfig(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	s.App.Post = mail.NewPost(m, s.URL)
	t.Cleanup(s.App.Post.Wait)
	return srv
}
