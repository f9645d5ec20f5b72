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

	"aula/markdown"
	"aula/models"
	"aula/tutor"
	"aula/views"
)

// stream is the SSE stream of one assistant message:
// `chunk` events (escaped text; id = the byte offset after it), `slow`,
// then `done` (the finished bubble) or `error` (the failed bubble with
// Retry). Last-Event-ID, or ?offset=, resumes without loss or doubling.
func (a *App) stream(c echo.Context) error {
	ctx := c.Request().Context()
	u := chrome(c).User
	offset, err := streamOffset(c)
	if err != nil {
		return err
	}
	sub, err := a.Tutor.Stream(ctx, u.ID, c.Param("mid"), offset)
	if err != nil {
		return err
	}
	defer sub.Close()
	a.Metrics.StreamOpened()
	defer a.Metrics.StreamClosed()
	inPanel := c.QueryParam("panel") == "1"

	w := c.Response()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 1000\n\n")
	w.Flush()

	type next struct {
		text  string
		at    int
		final *tutor.Final
		err   error
	}
	items := make(chan next)
	go func() {
		for {
			text, at, final, err := sub.Next(ctx)
			select {
			case items <- next{text, at, final, err}:
			case <-ctx.Done():
				return
			}
			if final != nil || err != nil {
				return
			}
		}
	}()
	slow := time.NewTimer(a.SlowAfter)
	defer slow.Stop()
	slowShown := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-slow.C:
			writeEvent(w, "slow", "", t(c, "chat.slow"))
			slowShown = true
		case it := <-items:
			if it.err != nil {
				return nil
			}
			if it.final != nil {
				return a.writeFinal(c, w, it.final, inPanel)
			}
			writeEvent(w, "chunk", strconv.Itoa(it.at+len(it.text)), html.EscapeString(it.text))
			if slowShown {
				writeEvent(w, "slow", "", "")
				slowShown = false
			}
			slow.Reset(a.SlowAfter)
		}
	}
}

// writeFinal sends the finished bubble as `done`, or as `error` when the answer failed.
func (a *App) writeFinal(c echo.Context, w *echo.Response, f *tutor.Final, inPanel bool) error {
	ctx := c.Request().Context()
	m := f.Message
	if m == nil {
		m = &models.Message{Status: f.Status, Content: f.Content, ErrorCode: f.ErrorCode}
	}
	conv, _ := a.Conversations.Get(ctx, chrome(c).User.ID, m.ConversationID)
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
