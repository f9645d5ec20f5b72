package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"aula/handlers"
	"aula/mail"
	"aula/models"
	"aula/tutor"
	"aula/tutor/stream"
)

// config is aula's configuration, read from the environment (README, "Configuration").
type config struct {
	DatabaseURL       string
	Addr              string
	DataDir           string
	SessionSecret     string
	LLMProvider       string
	LLMModel          string
	Credentials       tutor.Credentials
	FirstTokenTimeout time.Duration
	AnswerTimeout     time.Duration
	DrainTimeout      time.Duration
	// LeaseTTL bounds how long the answers of a process that died stay
	// streaming before another process fails them (AULA_LEASE_TTL).
	LeaseTTL time.Duration
	// InstanceID names this process in leases and logs (AULA_INSTANCE_ID; default host-pid-random).
	InstanceID    string
	SecureCookies bool
	// TrustedProxies may name the client in X-Forwarded-For (AULA_TRUSTED_PROXIES).
	TrustedProxies []*net.IPNet
	LogFormat      string
	// SMTPURL, MailFrom and BaseURL configure email (AULA_SMTP_URL,
	// AULA_MAIL_FROM, AULA_BASE_URL); without SMTPURL aula sends none.
	SMTPURL  string
	MailFrom string
	BaseURL  string
	// MemoryLimit is the Go runtime's soft memory limit in bytes
	// (AULA_MEMORY_LIMIT; see memory.go).
	MemoryLimit int64
	// StreamsPerUser caps the event streams one user holds open on this
	// process (AULA_STREAMS_PER_USER; a load test of one account raises it).
	StreamsPerUser int
}

// loadConfig reads and validates the environment; every problem is named in one error.
func loadConfig() (*config, error) {
	e := &envReader{}
	c := &config{
		DatabaseURL:   e.str("DATABASE_URL", ""),
		Addr:          e.str("AULA_ADDR", "127.0.0.1:8080"),
		DataDir:       e.str("AULA_DATA_DIR", ".data"),
		SessionSecret: e.str("AULA_SESSION_SECRET", ""),
		LLMProvider:   strings.ToLower(e.str("AULA_LLM_PROVIDER", tutor.ProviderOffline)),
		LLMModel:      e.str("AULA_LLM_MODEL", ""),
		LogFormat:     e.str("AULA_LOG_FORMAT", "text"),
		Credentials: tutor.Credentials{
			OpenAIKey:           e.str("OPENAI_API_KEY", ""),
			OpenAIBaseURL:       e.str("OPENAI_BASE_URL", ""),
			AnthropicKey:        e.str("ANTHROPIC_API_KEY", ""),
			AnthropicBaseURL:    e.str("ANTHROPIC_BASE_URL", ""),
			GoogleKey:           e.str("GOOGLE_API_KEY", ""),
			OllamaHost:          e.str("OLLAMA_HOST", ""),
			OfflineTokenDelayMs: e.intIn("AULA_OFFLINE_TOKEN_DELAY_MS", 15, 0, 5000, "a number of milliseconds"),
		},
		FirstTokenTimeout: e.duration("AULA_FIRST_TOKEN_TIMEOUT", 30*time.Second),
		AnswerTimeout:     e.duration("AULA_ANSWER_TIMEOUT", 3*time.Minute),
		DrainTimeout:      e.duration("AULA_DRAIN_TIMEOUT", 20*time.Second),
		LeaseTTL:          e.duration("AULA_LEASE_TTL", models.DefaultLeaseTTL),
		InstanceID:        e.str("AULA_INSTANCE_ID", ""),
		SecureCookies:     e.boolean("AULA_SECURE_COOKIES"),
		SMTPURL:           e.str("AULA_SMTP_URL", ""),
		MailFrom:          e.str("AULA_MAIL_FROM", ""),
		BaseURL:           strings.TrimRight(e.str("AULA_BASE_URL", ""), "/"),
		MemoryLimit:       e.memoryLimit(),
		StreamsPerUser:    e.intIn("AULA_STREAMS_PER_USER", stream.DefaultStreamsPerUser, 1, 1_000_000, "a number of streams"),
	}
	c.validate(e)
	if len(e.problems) > 0 {
		return nil, errors.New("invalid configuration:\n  - " + strings.Join(e.problems, "\n  - "))
	}
	return c, nil
}

// validate adds to e's problems what is wrong across the values read.
func (c *config) validate(e *envReader) {
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		e.problem("AULA_ADDR=%q is not host:port (for example 127.0.0.1:8080)", c.Addr)
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		e.problem("DATABASE_URL must be a postgres:// URL (or empty, to let aula run its own PostgreSQL under .data/postgres)")
	}
	if !slices.Contains(tutor.Providers, c.LLMProvider) {
		e.problem("AULA_LLM_PROVIDER=%q is not one of %s", c.LLMProvider, strings.Join(tutor.Providers, ", "))
	} else if err := tutor.CheckCredentials(c.LLMProvider, c.Credentials); err != nil {
		e.problem("AULA_LLM_PROVIDER=%s: %v", c.LLMProvider, err)
	}
	if c.SessionSecret != "" && len(c.SessionSecret) < 32 {
		e.problem("AULA_SESSION_SECRET must have at least 32 characters (or be empty, to generate one into .data/)")
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		e.problem("AULA_LOG_FORMAT=%q must be text or json", c.LogFormat)
	}
	c.validateMail(e)
	proxies, err := handlers.ParseTrustedProxies(e.str("AULA_TRUSTED_PROXIES", ""))
	if err != nil {
		e.problem("AULA_TRUSTED_PROXIES: %v", err)
	}
	c.TrustedProxies = proxies
}

// validateMail checks the mail settings: SMTP needs a sender and the base URL.
func (c *config) validateMail(e *envReader) {
	if c.BaseURL != "" {
		if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			e.problem("AULA_BASE_URL=%q must be the public address of aula, such as https://aula.school.example", c.BaseURL)
		}
	}
	if c.SMTPURL == "" {
		return
	}
	if err := mail.Validate(c.SMTPURL, c.MailFrom); err != nil {
		e.problem("%v", err)
	}
	if c.BaseURL == "" {
		e.problem("AULA_BASE_URL must be set with AULA_SMTP_URL: links in emails start with it")
	}
}

// envReader reads environment variables and collects every problem, so one
// start names all of them instead of the first.
type envReader struct{ problems []string }

func (e *envReader) problem(format string, args ...any) {
	e.problems = append(e.problems, fmt.Sprintf(format, args...))
}

// str returns the trimmed variable k, or def when it is unset or blank.
func (e *envReader) str(k, def string) string {
	if v := strings.TrimSpace(os.Getenv(k)); v != "" {
		return v
	}
	return def
}

// duration reads a positive Go duration such as 30s.
func (e *envReader) duration(k string, def time.Duration) time.Duration {
	v := e.str(k, "")
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		e.problem("%s=%q is not a positive duration such as 30s or 2m", k, v)
		return def
	}
	return d
}

// intIn reads a whole number from lo to hi; what names the unit in the message.
func (e *envReader) intIn(k string, def, lo, hi int, what string) int {
	v := e.str(k, "")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		e.problem("%s=%q must be %s from %d to %d", k, v, what, lo, hi)
		return def
	}
	return n
}

// boolean reads true/false (or 1/0); unset is false.
func (e *envReader) boolean(k string) bool {
	switch v := e.str(k, ""); v {
	case "", "0", "false":
		return false
	case "1", "true":
		return true
	default:
		e.problem("%s=%q must be true or false", k, v)
		return false
	}
}

// sessionSecret returns AULA_SESSION_SECRET, or a key generated once into the data folder.
func (c *config) sessionSecret() ([]byte, error) {
	if c.SessionSecret != "" {
		return []byte(c.SessionSecret), nil
	}
	file := filepath.Join(c.DataDir, "session.key")
	if b, err := os.ReadFile(file); err == nil && len(b) >= 32 {
		return b, nil
	}
	if err := os.MkdirAll(c.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", c.DataDir, err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	hexKey := []byte(hex.EncodeToString(key))
	if err := os.WriteFile(file, hexKey, 0o600); err != nil {
		return nil, fmt.Errorf("write session key: %w", err)
	}
	return hexKey, nil
}
