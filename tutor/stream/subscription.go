package stream

import (
	"context"
	"errors"
	"sync"
	"unicode/utf8"
)

// ErrClosed is returned by Next after the final state was delivered.
var ErrClosed = errors.New("stream closed")

// Subscription reads one answer from a byte offset: first what was
// missed, then live text, then the final state. A reader that also waits
// on something else (a timer, a client going away) selects on Ready and
// calls Poll, so no goroutine is needed per reader; others call Next or,
// to read to the end, Wait.
type Subscription struct {
	st     *Stream
	off    int
	notify chan struct{}
	done   bool
	// onClose stops what feeds a remote subscription's private stream.
	onClose   func()
	closeOnce sync.Once
}

// Offset is the byte offset of the next text Poll or Next returns.
func (s *Subscription) Offset() int { return s.off }

// Ready receives when Poll may have something new; it is closed once the
// answer has ended, so a reader that selects on it never misses the end.
func (s *Subscription) Ready() <-chan struct{} { return s.notify }

// Poll returns, without waiting, the text after the current offset (with
// the offset it starts at) or, once all text was read, the final state;
// ok is false when there is nothing new yet. After the final state it
// returns ErrClosed.
func (s *Subscription) Poll() (text string, at int, final *Final, ok bool, err error) {
	if s.done {
		return "", s.off, nil, false, ErrClosed
	}
	st := s.st
	st.mu.Lock()
	defer st.mu.Unlock()
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
		return text, at, nil, true, nil
	}
	if st.final != nil {
		s.done = true
		return "", s.off, st.final, true, nil
	}
	return "", s.off, nil, false, nil
}

// Next blocks until there is text after the current offset (returned with
// the offset it starts at) or the answer has ended (final set, text "").
// After the final state it returns ErrClosed; when ctx ends it closes the
// subscription and returns ctx's error.
func (s *Subscription) Next(ctx context.Context) (text string, at int, final *Final, err error) {
	for {
		text, at, final, ok, err := s.Poll()
		if ok || err != nil {
			return text, at, final, err
		}
		select {
		case <-s.notify:
		case <-ctx.Done():
			s.Close()
			return "", s.off, nil, ctx.Err()
		}
	}
}

// Wait reads the answer to its end and returns its final state.
func (s *Subscription) Wait(ctx context.Context) (*Final, error) {
	for {
		_, _, final, err := s.Next(ctx)
		if err != nil {
			return nil, err
		}
		if final != nil {
			return final, nil
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
