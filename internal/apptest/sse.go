package apptest

import (
	"bufio"
	"context"
	"html"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"aula/internal/webtest"
)

// SSEEvent is one event of a text/event-stream.
type SSEEvent struct{ Name, ID, Data string }

// SSEConn is an SSE response read event by event.
type SSEConn struct {
	// Resp is the response, its body being read.
	Resp   *http.Response
	r      *bufio.Reader
	cancel context.CancelFunc
}

// OpenSSE opens GET /messages/{mid}/stream as c, with a Last-Event-ID when lastID is set.
func OpenSSE(t testing.TB, c *webtest.Client, mid, lastID, query string) *SSEConn {
	t.Helper()
	return OpenSSEAt(t, c, "/messages/"+mid+"/stream"+query, lastID)
}

// OpenSSEAt opens the event stream at path as c, with a Last-Event-ID when lastID is set.
func OpenSSEAt(t testing.TB, c *webtest.Client, path, lastID string) *SSEConn {
	t.Helper()
	// The bound only keeps a broken test from hanging; nothing is timed.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.Base+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("open stream: %v", err)
	}
	conn := &SSEConn{Resp: resp, r: bufio.NewReader(resp.Body), cancel: cancel}
	t.Cleanup(conn.Close)
	return conn
}

// Close ends the stream.
func (s *SSEConn) Close() {
	s.cancel()
	s.Resp.Body.Close()
}

// Next reads the next event (a `retry:`-only block is skipped); io.EOF at the end.
func (s *SSEConn) Next() (SSEEvent, error) {
	var ev SSEEvent
	var data []string
	seen := false
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			if err == io.EOF && seen {
				return ev, io.ErrUnexpectedEOF
			}
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			if !seen {
				continue
			}
			ev.Data = strings.Join(data, "\n")
			return ev, nil
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.Name, seen = value, true
		case "id":
			ev.ID, seen = value, true
		case "data":
			data, seen = append(data, value), true
		}
	}
}

// Must reads the next event and checks its name.
func (s *SSEConn) Must(t testing.TB, name string) SSEEvent {
	t.Helper()
	ev, err := s.Next()
	if err != nil {
		t.Fatalf("waiting for %q: %v", name, err)
	}
	if ev.Name != name {
		t.Fatalf("event %q (id %q data %.200q), want %q", ev.Name, ev.ID, ev.Data, name)
	}
	return ev
}

// Rest reads chunks up to the end event and returns the text and that event.
func (s *SSEConn) Rest(t testing.TB) (string, SSEEvent) {
	t.Helper()
	var b strings.Builder
	for {
		ev, err := s.Next()
		if err != nil {
			t.Fatalf("stream ended without done: %v (text so far %q)", err, b.String())
		}
		switch ev.Name {
		case "chunk":
			b.WriteString(html.UnescapeString(ev.Data))
		case "slow":
		default:
			return b.String(), ev
		}
	}
}
