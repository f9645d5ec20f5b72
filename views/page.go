package views

import (
	"context"

	"github.com/a-h/templ"

	"aula/i18n"
)

// Page is a full page: its title and its content. The web door's render
// helper frames the content in the Layout unless the request wants only
// a fragment.
type Page struct {
	// Title is the page's title in the request's language.
	Title func(ctx context.Context) string
	// Body is what goes inside the layout's <main>.
	Body templ.Component
}

// titled is a title from the i18n key.
func titled(key string) func(context.Context) string {
	return func(ctx context.Context) string { return i18n.T(ctx, key) }
}

// plain is a title given as is (a lesson's or a path's own).
func plain(s string) func(context.Context) string {
	return func(context.Context) string { return s }
}
