package views_test

import (
	"context"
	"testing"
	"time"

	"aula/i18n"
	"aula/views"
)

func TestRelativeDate(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		at     time.Time
		en, es string
	}{
		{now.Add(-20 * time.Second), "just now", "ahora mismo"},
		{now.Add(-5 * time.Minute), "5 min ago", "hace 5 min"},
		{now.Add(-2 * time.Hour), "2 h ago", "hace 2 h"},
		{now.Add(-20 * time.Hour), "yesterday", "ayer"},
		{now.Add(-3 * 24 * time.Hour), "3 days ago", "hace 3 días"},
		{now.Add(-30 * 24 * time.Hour), "November 1, 2026", "1 de noviembre de 2026"},
		{now.Add(time.Hour), "December 1, 2026", "1 de diciembre de 2026"},
	} {
		for lang, want := range map[string]string{"en": tt.en, "es": tt.es} {
			ctx := views.WithFrame(i18n.WithLang(context.Background(), lang), &views.Frame{Now: now})
			if got := views.RelativeDate(ctx, tt.at); got != want {
				t.Errorf("%s %v before now: %q, want %q", lang, now.Sub(tt.at), got, want)
			}
		}
	}
}
