package i18n

import (
	"context"
	"sort"
	"strings"
	"testing"
)

func TestEveryKeyHasBothLanguages(t *testing.T) {
	for _, k := range Keys() {
		v, _ := Entry(k)
		if strings.TrimSpace(v[0]) == "" || strings.TrimSpace(v[1]) == "" {
			t.Errorf("%s: missing a translation: %q", k, v)
		}
		if strings.Count(v[0], "%") != strings.Count(v[1], "%") {
			t.Errorf("%s: format verbs differ between languages: %q", k, v)
		}
	}
}

// A message with a singular form has a plural one (".other" alone is also
// a plain key: the rating reason "other").
func TestPluralFormsComeInPairs(t *testing.T) {
	for _, k := range Keys() {
		if base, ok := strings.CutSuffix(k, ".one"); ok {
			if _, ok := Entry(base + ".other"); !ok {
				t.Errorf("%s has no %s.other", k, base)
			}
		}
	}
}

// Counts agree with their noun in both languages: 0 and 2 plural, 1 singular.
func TestPluralForms(t *testing.T) {
	for _, tc := range []struct {
		lang string
		n    int
		want string
	}{
		{EN, 0, "0 lessons"}, {EN, 1, "1 lesson"}, {EN, 2, "2 lessons"},
		{ES, 0, "0 lecciones"}, {ES, 1, "1 lección"}, {ES, 2, "2 lecciones"},
	} {
		if got := InN(tc.lang, "learn.lessons", tc.n, tc.n); got != tc.want {
			t.Errorf("InN(%s, learn.lessons, %d) = %q, want %q", tc.lang, tc.n, got, tc.want)
		}
	}
}

func TestNegotiate(t *testing.T) {
	tests := []struct{ header, want string }{
		{"", "en"},
		{"es-ES,es;q=0.9,en;q=0.8", "es"},
		{"en-US,en;q=0.9,es;q=0.8", "en"},
		{"fr-FR,fr;q=0.9,es;q=0.5", "es"},
		{"de", "en"},
		{"es;q=0.2,en;q=0.7", "en"},
		{";;;,,q=", "en"},
	}
	for _, tt := range tests {
		if got := Negotiate(tt.header); got != tt.want {
			t.Errorf("Negotiate(%q) = %q, want %q", tt.header, got, tt.want)
		}
	}
}

func TestTranslate(t *testing.T) {
	ctx := WithLang(context.Background(), "es-MX")
	if got := T(ctx, "nav.learn"); got != "Aprender" {
		t.Errorf("T(es, nav.learn) = %q", got)
	}
	if got := N(context.Background(), "learn.lessons", 3, 3); got != "3 lessons" {
		t.Errorf("N(en, learn.lessons, 3) = %q", got)
	}
	if got := T(ctx, "no.such.key"); got != "no.such.key" {
		t.Errorf("unknown key = %q", got)
	}
}

// Keys lists every key.
func Keys() []string {
	keys := make([]string, 0, len(catalog))
	for k := range catalog {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Entry returns the English and Spanish text of key.
func Entry(key string) ([2]string, bool) { v, ok := catalog[key]; return v, ok }
