// Package mail sends aula's email (welcome, password reset, upgrade news)
// through an SMTP server with github.com/wneessen/go-mail: STARTTLS when the
// server offers it, SMTP AUTH when the URL carries a user.
package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"net/url"
	"strconv"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Config is the mail part of aula's configuration.
type Config struct {
	// URL is AULA_SMTP_URL: smtp://user:pass@host:587 (STARTTLS when
	// offered) or smtps://user:pass@host:465 (TLS from the first byte).
	URL string
	// From is AULA_MAIL_FROM, the sender address.
	From string
	// TLS overrides the TLS settings (tests trust their own certificate).
	TLS *tls.Config
}

// server is a parsed AULA_SMTP_URL.
type server struct {
	host       string
	port       int
	implicit   bool
	user, pass string
}

// Validate reports what is wrong with an SMTP URL and sender, in words an
// operator can act on; cmd/aula names it with the variable.
func Validate(rawURL, from string) error {
	if _, err := parseURL(rawURL); err != nil {
		return err
	}
	if _, err := mail.ParseAddress(from); err != nil {
		return fmt.Errorf("AULA_MAIL_FROM=%q is not an email address (for example aula@school.example)", from)
	}
	return nil
}

func parseURL(raw string) (*server, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return nil, errors.New("AULA_SMTP_URL must look like smtp://user:pass@host:587 or smtps://user:pass@host:465")
	}
	s := &server{host: u.Hostname(), implicit: u.Scheme == "smtps", port: 587}
	if s.implicit {
		s.port = 465
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("AULA_SMTP_URL has an invalid port %q", p)
		}
		s.port = n
	}
	if u.User != nil {
		s.user = u.User.Username()
		s.pass, _ = u.User.Password()
	}
	return s, nil
}

// Message is one email: the plain text and the HTML say the same thing.
type Message struct {
	To, Subject, Text, HTML string
}

// Mailer sends email in the background, so a request never waits on (or
// reveals anything through the timing of) the SMTP server.
type Mailer struct {
	cfg    Config
	server *server
	log    *slog.Logger
	wg     sync.WaitGroup
}

// New returns a mailer for cfg; the URL must be valid.
func New(cfg Config, log *slog.Logger) (*Mailer, error) {
	s, err := parseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if _, err := mail.ParseAddress(cfg.From); err != nil {
		return nil, fmt.Errorf("mail sender %q: %w", cfg.From, err)
	}
	return &Mailer{cfg: cfg, server: s, log: log}, nil
}

// Send delivers one message now and returns the SMTP outcome.
func (m *Mailer) Send(ctx context.Context, msg Message) error {
	gm := gomail.NewMsg()
	if err := gm.From(m.cfg.From); err != nil {
		return fmt.Errorf("mail from: %w", err)
	}
	if err := gm.To(msg.To); err != nil {
		return fmt.Errorf("mail to: %w", err)
	}
	gm.Subject(msg.Subject)
	gm.SetDate()
	gm.SetMessageID()
	gm.SetBodyString(gomail.TypeTextPlain, msg.Text)
	gm.AddAlternativeString(gomail.TypeTextHTML, msg.HTML)
	c, err := gomail.NewClient(m.server.host, m.options()...)
	if err != nil {
		return fmt.Errorf("mail client: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, gm); err != nil {
		return fmt.Errorf("send mail to %s via %s:%d: %w", msg.To, m.server.host, m.server.port, err)
	}
	return nil
}

func (m *Mailer) options() []gomail.Option {
	opts := []gomail.Option{gomail.WithPort(m.server.port), gomail.WithTimeout(20 * time.Second),
		gomail.WithTLSPolicy(gomail.TLSOpportunistic)}
	if m.server.implicit {
		opts = append(opts, gomail.WithSSL())
	}
	if m.cfg.TLS != nil {
		opts = append(opts, gomail.WithTLSConfig(m.cfg.TLS))
	}
	if m.server.user != "" {
		// PLAIN and LOGIN go out only over TLS; go-mail refuses them otherwise.
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(m.server.user), gomail.WithPassword(m.server.pass))
	}
	return opts
}

// Queue sends msg in the background, logging a failure; Wait lets
// shutdown finish what is queued.
func (m *Mailer) Queue(msg Message) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := m.Send(ctx, msg); err != nil {
			m.log.Error("mail not sent", "subject", msg.Subject, "err", err)
		}
	}()
}

// Wait blocks until every queued message was sent or failed.
func (m *Mailer) Wait() { m.wg.Wait() }
