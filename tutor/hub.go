package tutor

import (
	"context"
	"errors"
	"strings"
	"sync"
	"unicode/utf8"

	"aula/models"
)

// ErrStreamClosed is returned by Next after the final state was delivered.
var ErrStreamClosed = errors.New("stream closed")

// Final is how an answer ended.
type Final struct {
	Status    string          // models.StatusComplete, StatusFailed or StatusCancelled
	Content   string          // the whole answer text as stored
	ErrorCode string          // set when Status is failed
	Message   *models.Message // the stored row, receipt included
}

// Hub holds the answers being generated, keyed by assistant message id,
// so any number of subscribers can join at any byte offset. Generators
// append and never wait for subscribers: each subscriber is woken through
// a one-slot channel and reads what it missed from the shared buffer.
type Hub struct {
	mu      sync.Mutex
	streams map[string]*stream
}

// NewHub returns an empty hub.
func NewHub() *Hub { return &Hub{streams: map[string]*stream{}} }

type stream struct {
	userID string
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	buf     []byte
	pub     int // bytes visible to subscribers: never ends inside a rune
	final   *Final
	waiters map[chan struct{}]struct{}
}

// open registers a generation before its row is visible, so a subscriber
// that sees the streaming row always finds it here. It refuses (false) when
// one is already in flight for msgID, so two retries cannot both run.
func (h *Hub) open(msgID, userID string, cancel context.CancelCauseFunc) (*stream, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, busy := h.streams[msgID]; busy {
		return nil, false
	}
	st := &stream{userID: userID, cancel: cancel, waiters: map[chan struct{}]struct{}{}}
	h.streams[msgID] = st
	return st, true
}

// remove frees a generation's buffer; subscribers already attached keep
// reading their copy of the pointer.
func (h *Hub) remove(msgID string, st *stream) {
	h.mu.Lock()
	if h.streams[msgID] == st {
		delete(h.streams, msgID)
	}
	h.mu.Unlock()
}

func (h *Hub) get(msgID string) *stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streams[msgID]
}

// ids lists the generations in flight (the leases to renew).
func (h *Hub) ids() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.streams))
	for id := range h.streams {
		out = append(out, id)
	}
	return out
}

// Active is the number of generations in flight.
func (h *Hub) Active() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.streams)
}

// Subscribe joins the generation of msgID at byte offset; ok is false
// when nothing is in flight for it (read the stored message instead).
func (h *Hub) Subscribe(msgID string, offset int) (sub *Subscription, ok bool) {
	st := h.get(msgID)
	if st == nil {
		return nil, false
	}
	return st.subscribe(offset), true
}

// append adds text and wakes every subscriber without blocking on any.
// Invalid UTF-8 is replaced before it is published, so the buffer's bytes
// are exactly what the database stores and other processes replay: byte
// offsets mean the same on every process.
func (st *stream) append(text string) {
	st.mu.Lock()
	st.buf = append(st.buf, text...)
	n := completeRunes(st.buf)
	if fresh := st.buf[st.pub:n]; !utf8.Valid(fresh) {
		clean := strings.ToValidUTF8(string(fresh), "\uFFFD")
		tail := string(st.buf[n:])
		st.buf = append(append(st.buf[:st.pub], clean...), tail...)
		n = st.pub + len(clean)
	}
	st.pub = n
	for w := range st.waiters {
		select {
		case w <- struct{}{}:
		default:
		}
	}
	st.mu.Unlock()
}

// len is the number of bytes appended so far.
func (st *stream) len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.buf)
}

func (st *stream) text() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return string(st.buf)
}

// finish publishes the final state; the content in f replaces the buffer
// so late readers see exactly what was stored.
func (st *stream) finish(f *Final) {
	st.mu.Lock()
	st.final = f
	st.buf = []byte(f.Content)
	st.pub = len(st.buf)
	for w := range st.waiters {
		close(w)
	}
	st.waiters = nil
	st.mu.Unlock()
}

func (st *stream) subscribe(offset int) *Subscription {
	notify := make(chan struct{}, 1)
	st.mu.Lock()
	if st.final == nil {
		st.waiters[notify] = struct{}{}
	}
	st.mu.Unlock()
	return &Subscription{st: st, off: max(offset, 0), notify: notify}
}

// completeRunes is the length of b without a trailing incomplete UTF-8
// sequence, so a chunk never splits a rune even if a provider does.
func completeRunes(b []byte) int {
	n := len(b)
	for i := n - 1; i >= 0 && i >= n-utf8.UTFMax; i-- {
		if !utf8.RuneStart(b[i]) {
			continue
		}
		if !utf8.FullRune(b[i:]) {
			return i
		}
		return n
	}
	return n
}

// Subscription reads one answer from an offset: first what was missed,
// then live text, then the final state.
type Subscription struct {
	st     *stream
	off    int
	notify chan struct{}
	done   bool
	// onClose stops what feeds a remote subscription's private stream.
	onClose   func()
	closeOnce sync.Once
}

// Offset is the byte offset of the next text Next returns.
func (s *Subscription) Offset() int { return s.off }

// Next blocks until there is text after the current offset (returned with
// the offset it starts at) or the answer has ended (final set, text "").
// After the final state it returns ErrStreamClosed.
func (s *Subscription) Next(ctx context.Context) (text string, at int, final *Final, err error) {
	if s.done {
		return "", s.off, nil, ErrStreamClosed
	}
	for {
		st := s.st
		st.mu.Lock()
		if s.off > st.pub && st.final != nil {
			s.off = st.pub // past the end of the finished answer: nothing left
		}
		for s.off > 0 && s.off < st.pub && !utf8.RuneStart(st.buf[s.off]) {
			s.off-- // an offset inside a rune rewinds to its start
		}
		if s.off < st.pub {
			at = s.off
			text = string(st.buf[s.off:st.pub])
			s.off = st.pub
			st.mu.Unlock()
			return text, at, nil, nil
		}
		if st.final != nil {
			f := st.final
			st.mu.Unlock()
			s.done = true
			return "", s.off, f, nil
		}
		st.mu.Unlock()
		select {
		case <-s.notify:
		case <-ctx.Done():
			s.Close()
			return "", s.off, nil, ctx.Err()
		}
	}
}

// Close detaches the subscriber; the generation goes on.
func (s *Subscription) Close() {
	st := s.st
	st.mu.Lock()
	if st.waiters != nil {
		delete(st.waiters, s.notify)
	}
	st.mu.Unlock()
	if s.onClose != nil {
		s.closeOnce.Do(s.onClose)
	}
}

// finishedSubscription serves a stored answer through the same API.
func finishedSubscription(m *models.Message, offset int) *Subscription {
	st := &stream{userID: m.UserID}
	st.finish(finalOf(m))
	return st.subscribe(offset)
}

func finalOf(m *models.Message) *Final {
	return &Final{Status: m.Status, Content: m.Content, ErrorCode: m.ErrorCode, Message: m}
}
