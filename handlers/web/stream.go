package web

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/markdown"
	"aula/models"
	"aula/tutor/stream"
	"aula/views"
)

// stream is the SSE stream of one assistant message:
// `chunk` events (escaped text; id = the byte offset after it), `slow`,
// then `done` (the finished bubble) or `error` (the failed bubble with
// Retry). Last-Event-ID, or ?offset=, resumes without loss or doubling.
func (a *App) stream(c echo.Context) error {
	ctx := c.Request().Context()
	u := handlers.UserFrom(c)
	offset, err := streamOffset(c)
	if err != nil {
		return err
	}
	sub, err := a.Streams.Subscribe(ctx, u.ID, c.Param("mid"), offset)
	if err != nil {
		return err
	}
	defer sub.Close()
	a.Metrics.StreamOpened()
	defer a.Metrics.StreamClosed()
	inPanel := c.QueryParam("panel") == "1"

	w := c.Response()
	handlers.StartEventStream(w)
	fmt.Fprint(w, "retry: 1000\n\n")
	w.Flush()

	// One loop reads the subscription and the slow timer: Ready wakes it
	// when there is text or an end, so no goroutine runs per connection.
	slow := time.NewTimer(a.SlowAfter)
	defer slow.Stop()
	slowShown := false
	for {
		text, at, final, ok, err := sub.Poll()
		switch {
		case err != nil:
			return nil
		case final != nil:
			return a.writeFinal(c, w, final, inPanel)
		case ok:
			writeEvent(w, "chunk", strconv.Itoa(at+len(text)), html.EscapeString(text))
			if slowShown {
				writeEvent(w, "slow", "", "")
				slowShown = false
			}
			slow.Reset(a.SlowAfter)
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-slow.C:
			writeEvent(w, "slow", "", t(c, "chat.slow"))
			slowShown = true
		case <-sub.Ready():
		}
	}
}

// writeFinal sends the finished bubble as `done`, or as `error` when the answer failed.
func (a *App) writeFinal(c echo.Context, w *echo.Response, f *stream.Final, inPanel bool) error {
	ctx := c.Request().Context()
	m := f.Message
	if m == nil {
		m = &models.Message{Status: f.Status, Content: f.Content, ErrorCode: f.ErrorCode}
	}
	conv, _ := a.Conversations.Get(ctx, handlers.UserFrom(c).ID, m.ConversationID)
	mv := []views.MessageView{{ID: m.ID, Role: models.RoleAssistant, Status: m.Status, Content: m.Content, ErrorCode: m.ErrorCode}}
	if conv != nil {
		var err error
		if mv, err = a.messageViews(ctx, m.UserID, conv, []models.Message{*m}, inPanel); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := views.FinishedAnswer(mv[0]).Render(ctx, &buf); err != nil {
		return err
	}
	if m.Status == models.StatusComplete {
		_ = views.Announce(markdown.AnswerText(m.Content)).Render(ctx, &buf)
	}
	event := "done"
	if m.Status == models.StatusFailed {
		event = "error"
	}
	writeEvent(w, event, "", buf.String())
	return nil
}

// writeEvent writes one SSE event; every line of data gets its own
// `data:` field (EventSource joins them with newlines) and a lone CR,
// which SSE would read as a line break, becomes a newline.
func writeEvent(w *echo.Response, event, id, data string) {
	var b strings.Builder
	b.WriteString("event: " + event + "\n")
	if id != "" {
		b.WriteString("id: " + id + "\n")
	}
	data = strings.ReplaceAll(strings.ReplaceAll(data, "\r\n", "\n"), "\r", "\n")
	for _, line := range strings.Split(data, "\n") {
		b.WriteString("data: " + line + "\n")
	}
	b.WriteString("\n")
	_, _ = io.WriteString(w, b.String())
	w.Flush()
}

// streamOffset is where the subscriber resumes: Last-Event-ID (the
// browser's own reconnect) wins over ?offset= (the page's initial text).
func streamOffset(c echo.Context) (int, error) {
	v := c.Request().Header.Get("Last-Event-ID")
	if v == "" {
		v = c.QueryParam("offset")
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, echo.NewHTTPError(http.StatusBadRequest, "offset must be a byte offset")
	}
	return n, nil
}
