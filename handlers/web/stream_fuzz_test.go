package web

import (
	"bytes"
	"errors"
	"html"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"aula/internal/webtest"
)

// sseEvents are the event names aula's streams send.
var sseEvents = []string{"chunk", "slow", "done", "error"}

// FuzzWriteEvent: whatever text an event carries, a standard SSE parser
// reads back the same event name, id and data (line breaks normalised to
// LF, which is all SSE can carry) — so no answer text can end an event
// early, inject a field or forge another event. A chunk's text survives
// html escaping and the browser's unescaping exactly.
func FuzzWriteEvent(f *testing.F) {
	for _, s := range []string{"", "a", "Hello", "line1\nline2", "\r\n", "\r", "a\rb\r\nc\n", "\n\n\n", "trailing\n",
		"data: forged", "event: done\ndata: x", ": comment", "id: 7", "retry: 1", "<script>alert(1)</script>",
		"\x00", "\uFEFFbom", "ñandú 🦀 日本", "&amp; &lt;", " leading space", "\tTab"} {
		f.Add(uint8(0), uint32(len(s)), s)
	}
	f.Add(uint8(2), uint32(0), "<p>final</p>\n<div>x</div>")
	f.Fuzz(func(t *testing.T, kind uint8, offset uint32, text string) {
		if !utf8.ValidString(text) {
			// Answers reach writeEvent as valid UTF-8 (the hub never splits a rune).
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		event := sseEvents[int(kind)%len(sseEvents)]
		id := ""
		data := text
		if event == "chunk" {
			id = strconv.FormatUint(uint64(offset), 10)
			data = html.EscapeString(text)
		}
		rec := httptest.NewRecorder()
		w := echo.NewResponse(rec, echo.New())
		_, _ = io.WriteString(w, "retry: 1000\n\n")
		writeEvent(w, event, id, data)
		writeEvent(w, "done", "", "end")

		r := webtest.NewSSEReader(bytes.NewReader(rec.Body.Bytes()))
		got, err := r.Next()
		if err != nil {
			t.Fatalf("no event parsed from %q: %v", rec.Body.String(), err)
		}
		want := strings.ReplaceAll(strings.ReplaceAll(data, "\r\n", "\n"), "\r", "\n")
		if got.Type != event || got.ID != id || got.Data != want || got.Retry != 1000 {
			t.Fatalf("wrote %s id=%q data=%q, parsed %+v from %q", event, id, want, got, rec.Body.String())
		}
		if event == "chunk" {
			plain := strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
			if u := html.UnescapeString(got.Data); u != plain {
				t.Fatalf("chunk text %q came back as %q", plain, u)
			}
		}
		end, err := r.Next()
		if err != nil || end.Type != "done" || end.Data != "end" {
			t.Fatalf("the event after it is %+v, %v: the first one leaked into it (%q)", end, err, rec.Body.String())
		}
		if _, err := r.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("extra events after the last one: %v in %q", err, rec.Body.String())
		}
	})
}
