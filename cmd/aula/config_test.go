package main

import (
	"math"
	"strings"
	"testing"

	"aula/tutor"
)

// The provider variables the README lists reach the tutor's credentials.
func TestConfigReadsProviderCredentials(t *testing.T) {
	env := map[string]string{
		"OPENAI_API_KEY": "o", "OPENAI_BASE_URL": "http://o", "ANTHROPIC_API_KEY": "a",
		"ANTHROPIC_BASE_URL": "http://a", "GOOGLE_API_KEY": "g", "OLLAMA_HOST": "h:1",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Credentials
	got.OfflineTokenDelayMs = 0 // not a provider variable
	want := tutor.Credentials{OpenAIKey: "o", OpenAIBaseURL: "http://o", AnthropicKey: "a",
		AnthropicBaseURL: "http://a", GoogleKey: "g", OllamaHost: "h:1"}
	if got != want {
		t.Errorf("credentials = %+v, want %+v", got, want)
	}
}

// AULA_MEMORY_LIMIT takes GOMEMLIMIT's sizes or off, and refuses the rest.
func TestConfigMemoryLimit(t *testing.T) {
	tests := []struct {
		env  string
		want int64
		ok   bool
	}{
		{"", defaultMemoryLimit, true},
		{"120MiB", 120 << 20, true},
		{"1GiB", 1 << 30, true},
		{"268435456", 256 << 20, true},
		{"65536KiB", 64 << 20, true},
		{"300000000B", 300000000, true},
		{"off", math.MaxInt64, true},
		{"OFF", math.MaxInt64, true},
		{"8MiB", 0, false},
		{"120MB", 0, false},
		{"-1", 0, false},
		{"lots", 0, false},
		{"99999999999GiB", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv("AULA_MEMORY_LIMIT", tc.env)
			cfg, err := loadConfig()
			if !tc.ok {
				if err == nil || !strings.Contains(err.Error(), "AULA_MEMORY_LIMIT") {
					t.Fatalf("loadConfig() = %v; want a problem naming AULA_MEMORY_LIMIT", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.MemoryLimit != tc.want {
				t.Errorf("MemoryLimit = %d, want %d", cfg.MemoryLimit, tc.want)
			}
		})
	}
}
