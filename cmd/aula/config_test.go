package main

import (
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
