package handlers_test

import (
	"net/http/httptest"
	"testing"

	"aula/handlers"
)

func TestClientAddressTrustsOnlyConfiguredProxies(t *testing.T) {
	proxies, err := handlers.ParseTrustedProxies("10.0.0.2, 10.0.1.0/24")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		trusted bool
		peer    string
		xff     string
		want    string
	}{
		{"no proxies configured: the header is ignored", false, "203.0.113.5:4000", "198.51.100.1", "203.0.113.5"},
		{"peer is not a proxy: the header is ignored", true, "203.0.113.5:4000", "198.51.100.1", "203.0.113.5"},
		{"peer is a trusted proxy", true, "10.0.0.2:4000", "198.51.100.1", "198.51.100.1"},
		{"forged entries before the real client", true, "10.0.1.7:4000", "1.2.3.4, 198.51.100.1", "198.51.100.1"},
		{"a chain of trusted proxies", true, "10.0.0.2:4000", "198.51.100.1, 10.0.1.9", "198.51.100.1"},
		{"garbage in the header", true, "10.0.0.2:4000", "not-an-address", "10.0.0.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var list = proxies
			if !tt.trusted {
				list = nil
			}
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.peer
			r.Header.Set("X-Forwarded-For", tt.xff)
			r.Header.Set("X-Real-IP", "192.0.2.99")
			if got := handlers.ClientAddress(list)(r); got != tt.want {
				t.Errorf("client address %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := handlers.ParseTrustedProxies("10.0.0.0/99"); err == nil {
		t.Error("a bad CIDR was accepted")
	}
}
