// Package htmx names the HTMX request and response headers aula reads and
// writes, and reads a request's, so no handler spells a header itself.
package htmx

import "net/http"

// Request headers HTMX sends.
const (
	// HeaderRequest is "true" on every request HTMX makes.
	HeaderRequest = "HX-Request"
	// HeaderBoosted is "true" when a boosted link or form made the request.
	HeaderBoosted = "HX-Boosted"
	// HeaderHistoryRestoreRequest is "true" when HTMX restores a page from history.
	HeaderHistoryRestoreRequest = "HX-History-Restore-Request"
	// HeaderTarget is the id of the element the response will be swapped into.
	HeaderTarget = "HX-Target"
)

// Response headers HTMX obeys.
const (
	// HeaderRedirect makes HTMX load another page instead of swapping.
	HeaderRedirect = "HX-Redirect"
	// HeaderRetarget swaps the response into another element (a CSS selector).
	HeaderRetarget = "HX-Retarget"
	// HeaderReswap changes how the response is swapped.
	HeaderReswap = "HX-Reswap"
)

// Request is what an HTMX request says about itself.
type Request struct {
	// Enabled is set on any request HTMX made.
	Enabled bool
	// Boosted is set when a boosted link or form made it (it wants a page).
	Boosted bool
	// HistoryRestore is set when HTMX restores a page (it wants a page).
	HistoryRestore bool
	// Target is the id of the element the response goes into.
	Target string
}

// FromRequest reads the HTMX headers of r.
func FromRequest(r *http.Request) Request {
	h := r.Header
	return Request{
		Enabled:        h.Get(HeaderRequest) == "true",
		Boosted:        h.Get(HeaderBoosted) == "true",
		HistoryRestore: h.Get(HeaderHistoryRestoreRequest) == "true",
		Target:         h.Get(HeaderTarget),
	}
}

// WantsFragment reports whether the request wants a piece of a page rather
// than a whole one: HTMX made it, and neither boosted nor restoring history.
func (r Request) WantsFragment() bool {
	return r.Enabled && !r.Boosted && !r.HistoryRestore
}
