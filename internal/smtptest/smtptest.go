// Package smtptest runs a real SMTP server (github.com/emersion/go-smtp)
// inside a test: it offers STARTTLS with a certificate made for the test,
// takes AUTH PLAIN, and hands every received message to the test decoded
// (subject, plain text and HTML parts).
package smtptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"aula/mail"
)

// User and Password are the credentials the server accepts.
const (
	User     = "aula"
	Password = "s3cret"
)

// Received is one delivered message.
type Received struct {
	From, To    string
	Subject     string
	Text, HTML  string
	Header      netmail.Header
	TLS, Authed bool
	ContentType string
	Raw         []byte
}

// Server is a running SMTP server.
type Server struct {
	// URL is an AULA_SMTP_URL for it, with credentials.
	URL string
	// ClientTLS trusts the server's certificate.
	ClientTLS *tls.Config
	// Messages receives each delivered message.
	Messages chan Received
}

// Start runs a server offering STARTTLS and AUTH until the test ends.
func Start(t testing.TB) *Server { t.Helper(); return start(t, true) }

// StartPlain runs a server without TLS whose URL has no credentials, as a
// relay on the local network is often set up; a client that trusts only
// the system's certificates can use it.
func StartPlain(t testing.TB) *Server { t.Helper(); return start(t, false) }

func start(t testing.TB, secure bool) *Server {
	t.Helper()
	cert, pool := certificate(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Messages: make(chan Received, 16),
		ClientTLS: &tls.Config{RootCAs: pool, ServerName: "localhost", MinVersion: tls.VersionTLS12}}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &session{server: s, conn: c}, nil
	}))
	srv.Domain = "localhost"
	if secure {
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	host := strings.Replace(l.Addr().String(), "127.0.0.1", "localhost", 1)
	s.URL = "smtp://" + host
	if secure {
		s.URL = fmt.Sprintf("smtp://%s:%s@%s", User, Password, host)
	}
	return s
}

// From is the sender MailConfig sets.
const From = "aula@school.example"

// MailConfig is the configuration that sends to this server, trusting its certificate.
func (s *Server) MailConfig() mail.Config {
	return mail.Config{URL: s.URL, From: From, TLS: s.ClientTLS}
}

// Next waits for the next message, failing the test after 10 seconds.
func (s *Server) Next(t testing.TB) Received {
	t.Helper()
	select {
	case m := <-s.Messages:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("smtptest: no message arrived within 10s")
		return Received{}
	}
}

type session struct {
	server   *Server
	conn     *smtp.Conn
	authed   bool
	from, to string
}

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != User || pass != Password {
			return smtp.ErrAuthFailed
		}
		s.authed = true
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error { s.from = from; return nil }
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error   { s.to = to; return nil }
func (s *session) Reset()                                      {}
func (s *session) Logout() error                               { return nil }

func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, tlsOn := s.conn.TLSConnectionState()
	rec := Received{From: s.from, To: s.to, Raw: raw, TLS: tlsOn, Authed: s.authed}
	if err := decode(&rec); err != nil {
		return err
	}
	s.server.Messages <- rec
	return nil
}

// decode fills the subject and the text and HTML parts from Raw.
func decode(rec *Received) error {
	msg, err := netmail.ReadMessage(strings.NewReader(string(rec.Raw)))
	if err != nil {
		return fmt.Errorf("smtptest: %w", err)
	}
	rec.Header = msg.Header
	rec.Subject, _ = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return fmt.Errorf("smtptest: content type: %w", err)
	}
	rec.ContentType = mt
	if !strings.HasPrefix(mt, "multipart/") {
		return errors.New("smtptest: expected a multipart message, got " + mt)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("smtptest: part: %w", err)
		}
		var body io.Reader = p
		if p.Header.Get("Content-Transfer-Encoding") == "quoted-printable" {
			body = quotedprintable.NewReader(p)
		}
		b, err := io.ReadAll(body)
		if err != nil {
			return fmt.Errorf("smtptest: part body: %w", err)
		}
		pt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		switch pt {
		case "text/plain":
			rec.Text = string(b)
		case "text/html":
			rec.HTML = string(b)
		}
	}
}

// certificate makes a self-signed certificate for localhost and a pool trusting it.
func certificate(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}
