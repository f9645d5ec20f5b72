// Package views holds the templ components: the layout, every page and the
// fragments HTMX swaps. Views never query the database: handlers pass in
// what they show.
package views

import (
	"context"
	"time"

	"aula/models"
)

// Frame is the request-scoped data the frame around every page needs
// (navigation, CSRF field, asset URLs); the web handlers put it in the
// request's context once, when they load the session.
type Frame struct {
	User         *models.User // nil when signed out
	CSRF         string       // token for the hidden _csrf field
	Path         string       // the request's path and query, for `next`
	AssetVersion string       // content hash of the static files, for cache busting
	RequestID    string
	Now          time.Time // the request's time, for relative dates ("2 h ago")
}

type frameKey struct{}

// WithFrame returns a context carrying the page frame's data.
func WithFrame(ctx context.Context, c *Frame) context.Context {
	return context.WithValue(ctx, frameKey{}, c)
}

// FrameFrom returns the page frame's data carried by ctx.
func FrameFrom(ctx context.Context) *Frame {
	if c, ok := ctx.Value(frameKey{}).(*Frame); ok {
		return c
	}
	return &Frame{}
}

// Asset is the URL of a static file, versioned so it can be cached for a year.
func Asset(ctx context.Context, name string) string {
	return "/static/" + name + "?v=" + FrameFrom(ctx).AssetVersion
}

// IsAdmin reports whether the signed-in user may open the admin pages.
func IsAdmin(ctx context.Context) bool {
	u := FrameFrom(ctx).User
	return u != nil && models.IsAdminPlan(u.Plan)
}
