package webtest

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
)

// SSEEvent is one event as a browser's EventSource dispatches it.
type SSEEvent struct {
	Type  string // "message" when the stream named none
	ID    string // the last event id in force when it was dispatched
	Data  string
	Retry int // the last retry value seen, 0 if none
}

// SSEReader parses a text/event-stream the way the WHATWG HTML standard
// (§9.2.6, "Interpreting an event stream") says a user agent must: lines
// end in CRLF, LF or CR; a leading BOM is dropped; "data" fields are joined
// with LF; one space after the colon is removed; an id with NUL is ignored;
// a blank line dispatches; an event with no data is not dispatched; an
// event left unterminated at the end of the stream is discarded. Tests use
// it to read what aula streams as a browser would.
type SSEReader struct {
	r       *bufio.Reader
	started bool
	lastID  string
	retry   int
}

// NewSSEReader reads events from r.
func NewSSEReader(r io.Reader) *SSEReader { return &SSEReader{r: bufio.NewReader(r)} }

// readLine returns one line without its terminator; io.EOF when the stream
// ended (a last line without terminator is not a line).
func (p *SSEReader) readLine() (string, error) {
	var b []byte
	for {
		c, err := p.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return "", io.EOF
			}
			return "", err
		}
		switch c {
		case '\n':
			return string(b), nil
		case '\r':
			if n, err := p.r.Peek(1); err == nil && n[0] == '\n' {
				_, _ = p.r.ReadByte()
			}
			return string(b), nil
		}
		b = append(b, c)
	}
}

// Next returns the next dispatched event.
func (p *SSEReader) Next() (SSEEvent, error) {
	var typ string
	var data strings.Builder
	hasData := false
	for {
		line, err := p.readLine()
		if err != nil {
			return SSEEvent{}, err
		}
		if !p.started {
			p.started = true
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		line = strings.ToValidUTF8(line, "\uFFFD")
		if line == "" {
			if !hasData {
				typ = ""
				continue
			}
			d := strings.TrimSuffix(data.String(), "\n")
			if typ == "" {
				typ = "message"
			}
			return SSEEvent{Type: typ, ID: p.lastID, Data: d, Retry: p.retry}, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "event":
			typ = value
		case "data":
			data.WriteString(value)
			data.WriteByte('\n')
			hasData = true
		case "id":
			if !strings.ContainsRune(value, 0) {
				p.lastID = value
			}
		case "retry":
			if n, err := strconv.Atoi(value); err == nil && n >= 0 && strings.Trim(value, "0123456789") == "" {
				p.retry = n
			}
		}
	}
}
