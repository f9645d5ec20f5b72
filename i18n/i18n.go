// Package i18n holds every UI string in English and Spanish and picks the
// language of a request. Strings live beside each other per screen, in
// files named for the screen, each entry {English, Spanish}.
package i18n

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Supported languages.
const (
	EN = "en"
	ES = "es"
)

var catalog = map[string][2]string{}

// add registers a screen's strings; a key defined twice is a programming error.
func add(entries map[string][2]string) bool {
	for k, v := range entries {
		if _, dup := catalog[k]; dup {
			panic("i18n: duplicate key " + k)
		}
		catalog[k] = v
	}
	return true
}

type ctxKey struct{}

// WithLang returns a context carrying the request's language.
func WithLang(ctx context.Context, lang string) context.Context {
	return context.WithValue(ctx, ctxKey{}, Normalize(lang))
}

// Lang is the language carried by ctx, English when none.
func Lang(ctx context.Context) string {
	if l, ok := ctx.Value(ctxKey{}).(string); ok {
		return l
	}
	return EN
}

// Normalize maps anything but "es" to "en".
func Normalize(lang string) string {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(lang)), ES) {
		return ES
	}
	return EN
}

// T translates key into ctx's language; args fill fmt verbs in the text.
func T(ctx context.Context, key string, args ...any) string { return In(Lang(ctx), key, args...) }

// In translates key into lang. An unknown key shows itself, so it is noticed.
func In(lang, key string, args ...any) string {
	v, ok := catalog[key]
	if !ok {
		return key
	}
	s := v[0]
	if lang == ES {
		s = v[1]
	}
	if len(args) > 0 {
		return fmt.Sprintf(s, args...)
	}
	return s
}

// N translates the form of key that agrees with the count n into ctx's
// language; args fill fmt verbs in the text (pass n too when it shows).
func N(ctx context.Context, key string, n int, args ...any) string {
	return InN(Lang(ctx), key, n, args...)
}

// InN translates into lang the form of key that agrees with n: key+".one"
// for exactly one, key+".other" for any other count. English and Spanish
// agree on this rule ("0 sessions", "0 sesiones"; "1 session", "1 sesión").
func InN(lang, key string, n int, args ...any) string {
	if n == 1 {
		return In(lang, key+".one", args...)
	}
	return In(lang, key+".other", args...)
}

// Negotiate picks en or es from an Accept-Language header by quality.
func Negotiate(header string) string {
	best, bestQ := EN, -1.0
	for _, part := range strings.Split(header, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		base := strings.ToLower(strings.SplitN(tag, "-", 2)[0])
		if (base == EN || base == ES) && q > bestQ {
			best, bestQ = base, q
		}
	}
	return best
}
