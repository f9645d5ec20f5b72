package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// StartEventStream answers 200 with the headers of a server-sent event
// stream that no proxy may buffer or transform (each event must reach the
// reader as it is written), and flushes them. The site's SSE and the JSON
// API's stream both start this way.
func StartEventStream(w *echo.Response) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	w.Flush()
}
