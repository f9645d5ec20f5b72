package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"aula/tutor"
)

// config is aula's configuration, read from the environment (DESIGN.md, "Configuration").
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
	LogFormat     string
}

var providers = []string{tutor.ProviderOffline, tutor.ProviderOpenAI, tutor.ProviderAnthropic,
	tutor.ProviderGoogleAI, tutor.ProviderOllama}

// loadConfig reads and validates the environment; every problem is named in one error.
func loadConfig() (*config, error) {
	env := func(k, def string) string {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			return v
		}
		return def
	}
	var problems []string
	duration := func(k string, def time.Duration) time.Duration {
		v := env(k, "")
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			problems = append(problems, fmt.Sprintf("%s=%q is not a positive duration such as 30s or 2m", k, v))
			return def
		}
		return d
	}
	c := &config{
		DatabaseURL:   env("DATABASE_URL", ""),
		Addr:          env("AULA_ADDR", "127.0.0.1:8080"),
		DataDir:       env("AULA_DATA_DIR", ".data"),
		SessionSecret: env("AULA_SESSION_SECRET", ""),
		LLMProvider:   strings.ToLower(env("AULA_LLM_PROVIDER", tutor.ProviderOffline)),
		LLMModel:      env("AULA_LLM_MODEL", ""),
		LogFormat:     env("AULA_LOG_FORMAT", "text"),
		Credentials: tutor.Credentials{
			OpenAIKey:        env("OPENAI_API_KEY", ""),
			OpenAIBaseURL:    env("OPENAI_BASE_URL", ""),
			AnthropicKey:     env("ANTHROPIC_API_KEY", ""),
			AnthropicBaseURL: env("ANTHROPIC_BASE_URL", ""),
			GoogleKey:        env("GOOGLE_API_KEY", ""),
			OllamaHost:       env("OLLAMA_HOST", ""),
		},
		FirstTokenTimeout: duration("AULA_FIRST_TOKEN_TIMEOUT", 30*time.Second),
		AnswerTimeout:     duration("AULA_ANSWER_TIMEOUT", 3*time.Minute),
		DrainTimeout:      duration("AULA_DRAIN_TIMEOUT", 20*time.Second),
		LeaseTTL:          duration("AULA_LEASE_TTL", tutor.DefaultLeaseTTL),
		InstanceID:        env("AULA_INSTANCE_ID", ""),
	}
	if v := env("AULA_OFFLINE_TOKEN_DELAY_MS", "15"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 5000 {
			problems = append(problems, fmt.Sprintf("AULA_OFFLINE_TOKEN_DELAY_MS=%q must be a number of milliseconds from 0 to 5000", v))
		}
		c.Credentials.OfflineTokenDelayMs = n
	}
	switch v := env("AULA_SECURE_COOKIES", ""); v {
	case "", "0", "false":
	case "1", "true":
		c.SecureCookies = true
	default:
		problems = append(problems, fmt.Sprintf("AULA_SECURE_COOKIES=%q must be true or false", v))
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		problems = append(problems, fmt.Sprintf("AULA_ADDR=%q is not host:port (for example 127.0.0.1:8080)", c.Addr))
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		problems = append(problems, "DATABASE_URL must be a postgres:// URL (or empty, to let aula run its own PostgreSQL under .data/postgres)")
	}
	if !slices.Contains(providers, c.LLMProvider) {
		problems = append(problems, fmt.Sprintf("AULA_LLM_PROVIDER=%q is not one of %s", c.LLMProvider, strings.Join(providers, ", ")))
	} else if err := tutor.CheckCredentials(c.LLMProvider, c.Credentials); err != nil {
		problems = append(problems, fmt.Sprintf("AULA_LLM_PROVIDER=%s: %v", c.LLMProvider, err))
	}
	if c.SessionSecret != "" && len(c.SessionSecret) < 32 {
		problems = append(problems, "AULA_SESSION_SECRET must have at least 32 characters (or be empty, to generate one into .data/)")
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		problems = append(problems, fmt.Sprintf("AULA_LOG_FORMAT=%q must be text or json", c.LogFormat))
	}
	if len(problems) > 0 {
		return nil, errors.New("invalid configuration:\n  - " + strings.Join(problems, "\n  - "))
	}
	return c, nil
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
