// Package stream carries the answers being generated to their readers:
// the in-memory hub of this process, byte-offset subscriptions, the relay
// that lets other processes follow an answer through PostgreSQL
// (LISTEN/NOTIFY and the row's text), the leases that tell a live owner
// from a dead one, and the drain on shutdown. The tutor engine writes
// into it; the fronts read from it, all through one Subscription type.
package stream

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"unicode/utf8"

	"aula/models"
)

// Final is how an answer ended.
type Final struct {
	Status    string          // models.StatusComplete, StatusFailed or StatusCancelled
	Content   string          // the whole answer text as stored
	ErrorCode string          // set when Status is failed
	Message   *models.Message // the stored row, receipt included
}

// FinalOf is the final state of a stored answer.
func FinalOf(m *models.Message) *Final {
	return &Final{Status: m.Status, Content: m.Content, ErrorCode: m.ErrorCode, Message: m}
}

// Hub holds the answers being generated, keyed by assistant message id,
// so any number of subscribers can join at any byte offset. Generators
// append and never wait for subscribers: each subscriber is woken through
// a one-slot channel and reads what it missed from the shared buffer.
type Hub struct {
	mu      sync.Mutex
	streams map[string]*Stream
}

// NewHub returns an empty hub.
func NewHub() *Hub { return &Hub{streams: map[string]*Stream{}} }

// Stream is one answer's text so far and, at the end, its final state.
type Stream struct {
	id     string
	userID string
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	buf     []byte
	pub     int // bytes visible to subscribers: never ends inside a rune
	final   *Final
	waiters map[chan struct{}]struct{}
}

func newStream(id, userID string, cancel context.CancelCauseFunc) *Stream {
	if cancel == nil {
		cancel = func(error) {}
	}
	return &Stream{id: id, userID: userID, cancel: cancel, waiters: map[chan struct{}]struct{}{}}
}

// Open registers a generation before its row is visible, so a subscriber
// that sees the streaming row always finds it here. It refuses (false) when
// one is already in flight for msgID, so two retries cannot both run.
func (h *Hub) Open(msgID, userID string, cancel context.CancelCauseFunc) (*Stream, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, busy := h.streams[msgID]; busy {
		return nil, false
	}
	st := newStream(msgID, userID, cancel)
	h.streams[msgID] = st
	return st, true
}

// Remove frees a generation's buffer; subscribers already attached keep
// reading their copy of the pointer.
func (h *Hub) Remove(st *Stream) {
	h.mu.Lock()
	if h.streams[st.id] == st {
		delete(h.streams, st.id)
	}
	h.mu.Unlock()
}

// Get is the generation of msgID in flight here, nil if none.
func (h *Hub) Get(msgID string) *Stream {
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
	st := h.Get(msgID)
	if st == nil {
		return nil, false
	}
	return st.Subscribe(offset), true
}

// ID is the assistant message the stream carries.
func (st *Stream) ID() string { return st.id }

// UserID is the owner of the answer.
func (st *Stream) UserID() string { return st.userID }

// Cancel ends the generation with cause (nil: it ended on its own).
func (st *Stream) Cancel(cause error) { st.cancel(cause) }

// Append adds text and wakes every subscriber without blocking on any.
// The text is made storable (Clean) before it is published, so the
// buffer's bytes are exactly what the database stores and other
// processes replay: byte offsets mean the same on every process, and what
// a student saw is what is stored.
func (st *Stream) Append(text string) {
	st.mu.Lock()
	st.buf = append(st.buf, text...)
	n := CompleteRunes(st.buf)
	if fresh := st.buf[st.pub:n]; !utf8.Valid(fresh) || bytes.IndexByte(fresh, 0) >= 0 {
		clean := Clean(string(fresh))
		tail := string(st.buf[n:])
		st.buf = append(append(st.buf[:st.pub], clean...), tail...)
		n = st.pub + len(clean)
	}
	st.pub = n
	st.wake()
	st.mu.Unlock()
}

// wake signals every subscriber; st.mu is held.
func (st *Stream) wake() {
	for w := range st.waiters {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

// Len is the number of bytes appended so far.
func (st *Stream) Len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.buf)
}

// Text is the text appended so far.
func (st *Stream) Text() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return string(st.buf)
}

// Finish publishes the final state; the content in f replaces the buffer
// so late readers see exactly what was stored.
func (st *Stream) Finish(f *Final) {
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

// Subscribe reads the stream from a byte offset.
func (st *Stream) Subscribe(offset int) *Subscription {
	notify := make(chan struct{}, 1)
	st.mu.Lock()
	if st.final == nil {
		st.waiters[notify] = struct{}{}
	} else {
		close(notify)
	}
	st.mu.Unlock()
	return &Subscription{st: st, off: max(offset, 0), notify: notify}
}

// finished serves a stored answer through the same Subscription.
func finished(m *models.Message, offset int) *Subscription {
	st := newStream(m.ID, m.UserID, nil)
	st.Finish(FinalOf(m))
	return st.Subscribe(offset)
}

// Clean makes model text storable in PostgreSQL text: invalid UTF-8
// becomes U+FFFD and NUL characters, which text cannot hold, are dropped.
func Clean(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// CompleteRunes is the length of b without a trailing incomplete UTF-8
// sequence, so a chunk never splits a rune even if a provider does.
func CompleteRunes(b []byte) int {
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
