package views

import (
	"context"
	"testing"

	"aula/i18n"
)

func TestDeviceName(t *testing.T) {
	tests := []struct{ ua, want string }{
		{"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox · Linux"},
		{"Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36", "Chrome · Android"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "Safari · iPhone"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 Edg/126.0", "Edge · Windows"},
		{"curl/8.5.0", "curl"},
		{"", "Dispositivo desconocido"},
	}
	ctx := i18n.WithLang(context.Background(), i18n.ES)
	for _, tt := range tests {
		if got := DeviceName(ctx, tt.ua); got != tt.want {
			t.Errorf("DeviceName(%q) = %q, want %q", tt.ua, got, tt.want)
		}
	}
}
