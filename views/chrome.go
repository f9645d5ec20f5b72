// Package views holds the templ components: the layout, every page and the
// fragments HTMX swaps. Views never query the database: handlers pass in
// what they show.
package views

import (
	"context"

	"aula/models"
)

// Chrome is the request-scoped data every page's frame needs.
type Chrome struct {
	User         *models.User // nil when signed out
	CSRF         string       // token for the hidden _csrf field
	Path         string       // the request's path and query, for `next`
	AssetVersion string       // content hash of the static files, for cache busting
	RequestID    string
}

type chromeKey struct{}

// WithChrome returns a context carrying the page frame's data.
func WithChrome(ctx context.Context, c *Chrome) context.Context {
	return context.WithValue(ctx, chromeKey{}, c)
}

// ChromeFrom returns the page frame's data carried by ctx.
func ChromeFrom(ctx context.Context) *Chrome {
	if c, ok := ctx.Value(chromeKey{}).(*Chrome); ok {
		return c
	}
	return &Chrome{}
}

// Asset is the URL of a static file, versioned so it can be cached for a year.
func Asset(ctx context.Context, name string) string {
	return "/static/" + name + "?v=" + ChromeFrom(ctx).AssetVersion
}

// IsAdmin reports whether the signed-in user may open the admin pages.
func IsAdmin(ctx context.Context) bool {
	u := ChromeFrom(ctx).User
	return u != nil && models.IsAdminPlan(u.Plan)
}
