package web

import (
	"bytes"
	"context"
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
// With ?render=1 (the site's bubble) `md` events carry the text so far
// rendered (see draft).
func (a *App) stream(c echo.Context) error {
	u := handlers.UserFrom(c)
	offset, err := streamOffset(c)
	if err != nil {
		return err
	}
	r := a.newReader(c, c.Param("mid"), offset)
	sub, err := a.Streams.Subscribe(c.Request().Context(), u.ID, r.mid, r.draft.from(offset))
	if err != nil {
		return err
	}
	defer a.startStream(c)()
	return a.relay(c, r, sub)
}

// reader is one reader of an answer's stream: the answer, the bubble its
// events are drawn into, and the draft of its Markdown.
type reader struct {
	mid, bubble string
	// idPrefix goes before each chunk's offset in its event id: the
	// stream of a page's next answer names the answer there, so a
	// reconnect resumes it (stream_next.go).
	idPrefix string
	offset   int
	chunks   int // chunks written, for coalesce
	inPanel  bool
	draft    *draft
}

func (a *App) newReader(c echo.Context, mid string, offset int) *reader {
	return &reader{mid: mid, bubble: mid, offset: offset, inPanel: c.QueryParam("panel") == "1",
		draft: newDraft(c.QueryParam("render") == "1", a.RenderEvery)}
}

// startStream answers with an event stream whose reconnects come a second
// apart. The stream counts in the open-streams metric from before the
// browser hears it is open (a reader that sees 200 sees it counted)
// until the returned func runs.
func (a *App) startStream(c echo.Context) (closed func()) {
	a.Metrics.StreamOpened()
	w := c.Response()
	handlers.StartEventStream(w)
	fmt.Fprint(w, "retry: 1000\n\n")
	w.Flush()
	return a.Metrics.StreamClosed
}

// relay writes sub to the reader until the answer's end or the reader's.
func (a *App) relay(c echo.Context, r *reader, sub *stream.Subscription) error {
	ctx := c.Request().Context()
	d := r.draft
	defer d.timer.Stop()
	defer sub.Close()
	w := c.Response()
	// One loop reads the subscription and the timers: Ready wakes it
	// when there is text or an end, so no goroutine runs per connection.
	slow, hold := time.NewTimer(a.SlowAfter), newStoppedTimer()
	defer slow.Stop()
	defer hold.Stop()
	slowShown, holding := false, false
	for {
		text, at, final, ok, err := sub.Poll()
		switch {
		case err != nil:
			return nil
		case final != nil:
			return a.writeFinal(c, w, final, r.inPanel)
		case ok:
			d.add(text)
			r.offset = writeChunk(w, r.idPrefix, text, at, r.offset)
			if slowShown {
				writeEvent(w, "slow", "", "")
				slowShown = false
			}
			slow.Reset(a.SlowAfter)
			if holding = a.coalesce(r); holding {
				hold.Reset(coalesceEvery)
			}
			continue
		}
		// All text read: render it now if the last render is old enough.
		if now := time.Now(); d.due(now, a.Metrics.OpenStreams()) {
			a.writeDraft(c, w, r, now)
		}
		ready := sub.Ready()
		if holding {
			ready = nil // the tokens arriving meanwhile go out together
		}
		select {
		case <-ctx.Done():
			return nil
		case <-slow.C:
			writeEvent(w, "slow", "", t(c, "chat.slow"))
			slowShown = true
		case <-d.timer.C:
		case <-hold.C:
			holding = false
		case <-ready:
		}
	}
}

// While a crowd of answers streams, each token written alone costs its
// own event, write and flush (a system call) per reader: a class of a
// thousand spent about 15 % of the process's CPU there. Past the first
// chunk, which always goes at once, a reader in a crowd then waits
// coalesceEvery before the next write, and the tokens that arrived
// meanwhile share it: at 50 tokens a second, two or three to a write.
const (
	coalesceCrowd = 100
	coalesceEvery = 50 * time.Millisecond
)

// coalesce counts a chunk written to r and says whether the next should
// wait: not the first chunk, and only while coalesceCrowd streams are open.
func (a *App) coalesce(r *reader) bool {
	r.chunks++
	return r.chunks > 1 && a.Metrics.OpenStreams() >= coalesceCrowd
}

// newStoppedTimer is a timer that has not started.
func newStoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

// writeChunk sends the part of text (read at byte at) after offset, the
// reader's end, and returns the new end.
func writeChunk(w *echo.Response, idPrefix, text string, at, offset int) int {
	end := at + len(text)
	if end <= offset {
		return offset
	}
	writeEvent(w, "chunk", idPrefix+strconv.Itoa(end), html.EscapeString(text[max(offset-at, 0):]))
	return end
}

// writeDraft sends the text so far rendered as `md`: the blocks finished
// since the last, added to the bubble's, and its open part anew.
func (a *App) writeDraft(c echo.Context, w *echo.Response, r *reader, now time.Time) {
	d := r.draft
	step := d.render(now, a.linksFor(c.Request().Context(), d, handlers.UserFrom(c).ID, r.mid, r.inPanel))
	var buf bytes.Buffer
	_ = views.DraftStep(r.bubble, step).Render(c.Request().Context(), &buf)
	writeEvent(w, "md", "", buf.String())
}

// writeFinal sends the finished bubble as `done`, or as `error` when the answer failed.
func (a *App) writeFinal(c echo.Context, w *echo.Response, f *stream.Final, inPanel bool) error {
	ctx := c.Request().Context()
	m := f.Message
	if m == nil {
		m = &models.Message{Status: f.Status, Content: f.Content, ErrorCode: f.ErrorCode}
	}
	mv, err := a.answerView(ctx, handlers.UserFrom(c).ID, m, inPanel)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := views.FinishedAnswer(mv).Render(ctx, &buf); err != nil {
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

// answerView is one answer's bubble, drawn as in its thread (bare when
// the thread is gone).
func (a *App) answerView(ctx context.Context, userID string, m *models.Message, inPanel bool) (views.MessageView, error) {
	conv, _ := a.Conversations.Get(ctx, userID, m.ConversationID)
	if conv == nil {
		return views.MessageView{ID: m.ID, Role: models.RoleAssistant, Status: m.Status, Content: m.Content, ErrorCode: m.ErrorCode}, nil
	}
	mv, err := a.messageViews(ctx, userID, conv, []models.Message{*m}, inPanel)
	if err != nil {
		return views.MessageView{}, err
	}
	return mv[0], nil
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
