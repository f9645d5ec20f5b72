package web

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/urls"
)

// The stream of a page's next answer (see tutor/stream/await.go): the
// page opens it under a ticket before the question is asked, and the ask
// carrying the ticket hands its answer to it, so the first token comes
// without a second request. A class asking at once had waited a whole
// round trip (the ask's answer, then the stream's request) for it.

// newTicket names a page's next answer: 128 random bits, which only
// reach that page.
func newTicket() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// validTicket is a ticket as newTicket makes them.
var validTicket = regexp.MustCompile(`^[0-9a-f]{32}$`)

// nextAnswerHeader tells the page which of its bubbles the ask handed
// its answer to (the ticket), nextIDHeader the answer's id, and
// nextStopHeader where its Stop posts.
const (
	nextAnswerHeader = "Aula-Next-Answer"
	nextIDHeader     = "Aula-Next-Id"
	nextStopHeader   = "Aula-Next-Stop"
)

// streamNext waits for the answer the page's ticket names and relays it
// as stream does. Each chunk's id names the answer ("<id>.<offset>"), so
// the browser's reconnect resumes that answer rather than waiting again.
func (a *App) streamNext(c echo.Context) error {
	ticket := c.Param("ticket")
	if !validTicket.MatchString(ticket) {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	u := handlers.UserFrom(c)
	mid, offset, resumed := resumeNext(c.Request().Header.Get("Last-Event-ID"))
	if !resumed {
		// Registered before the page hears the stream is open.
		wait := a.Streams.Await(u.ID, ticket)
		defer wait.Close()
		defer a.startStream(c)()
		var err error
		if mid, err = wait.Wait(c.Request().Context()); err != nil {
			return nil
		}
	} else {
		defer a.startStream(c)()
	}
	r := a.newReader(c, mid, offset)
	r.idPrefix = mid + "."
	sub, err := a.Streams.Subscribe(c.Request().Context(), u.ID, mid, r.draft.from(offset))
	if err != nil {
		writeEvent(c.Response(), "done", "", "") // someone else's id: the bubble goes
		return nil
	}
	if !resumed {
		// The answer's id, before its first chunk: the page names the
		// bubble after it, and a reconnect from here on resumes it.
		writeEvent(c.Response(), "answer", mid+".0", mid)
	}
	return a.relay(c, r, sub)
}

// resumeNext reads a next answer's Last-Event-ID, "<message id>.<offset>".
func resumeNext(v string) (mid string, offset int, ok bool) {
	mid, off, found := strings.Cut(v, ".")
	n, err := strconv.Atoi(off)
	if !found || err != nil || n < 0 || len(mid) != 36 {
		return "", 0, false
	}
	return mid, n, true
}

// handNext gives the answer just asked to the page's stream for it, when
// that stream waits here; the page is told through the headers. False:
// the ask's answer draws its own bubble, as without JavaScript.
func (a *App) handNext(c echo.Context, userID, mid string) bool {
	ticket := c.FormValue("next")
	if !validTicket.MatchString(ticket) || !a.Streams.Hand(userID, ticket, mid) {
		return false
	}
	h := c.Response().Header()
	h.Set(nextAnswerHeader, ticket)
	h.Set(nextIDHeader, mid)
	h.Set(nextStopHeader, urls.MessageCancel(mid))
	return true
}
