package stream

import (
	"context"
	"sync"
)

// A page opens the stream of its next answer before the question is
// asked, under a ticket of its own (a random name the page was given):
// the question's request then returns only the question's bubble, and
// the first token reaches the stream already open instead of waiting for
// a second request (a class asking at once waited a whole round trip for
// it). The ask that carries the ticket hands its answer to the readers
// awaiting it in this process; when none waits here (the page has no
// JavaScript, or its stream reached another process) the ask answers as
// before, with a bubble that opens its own stream. A ticket names no row:
// a replayed or guessed one reaches only its own user's readers, and
// writes nothing.

// awaiter is one reader waiting for the answer of a ticket.
type awaiter struct {
	key  string
	wake chan string // the answer's message id
}

// awaits are the readers waiting here, by user and ticket.
type awaits struct {
	mu  sync.Mutex
	by  map[string][]*awaiter
	len int
}

func awaitKey(userID, ticket string) string { return userID + "/" + ticket }

// add registers a reader of userID waiting for ticket's answer.
func (a *awaits) add(userID, ticket string) *awaiter {
	w := &awaiter{key: awaitKey(userID, ticket), wake: make(chan string, 1)}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.by == nil {
		a.by = map[string][]*awaiter{}
	}
	a.by[w.key] = append(a.by[w.key], w)
	a.len++
	return w
}

// remove forgets a reader that stopped waiting.
func (a *awaits) remove(w *awaiter) {
	a.mu.Lock()
	defer a.mu.Unlock()
	list := a.by[w.key]
	for i, x := range list {
		if x == w {
			list = append(list[:i], list[i+1:]...)
			a.len--
			break
		}
	}
	if len(list) == 0 {
		delete(a.by, w.key)
	} else {
		a.by[w.key] = list
	}
}

// hand gives msgID to the readers of key and forgets them; false when
// none waits.
func (a *awaits) hand(key, msgID string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	list := a.by[key]
	delete(a.by, key)
	a.len -= len(list)
	for _, w := range list {
		w.wake <- msgID // one slot, and each is handed once
	}
	return len(list) > 0
}

// Awaited is a reader's wait for the answer of a ticket, registered
// before the reader is told it may ask (so no ask can come first).
type Awaited struct {
	b *Broker
	w *awaiter
}

// Await registers a reader of userID waiting for ticket's answer; Wait
// for it, and Close when done.
func (b *Broker) Await(userID, ticket string) *Awaited {
	return &Awaited{b: b, w: b.awaits.add(userID, ticket)}
}

// Wait returns the answer's message id once an ask hands it over (Hand),
// or an error when ctx ends or the process stops first.
func (a *Awaited) Wait(ctx context.Context) (string, error) {
	select {
	case id := <-a.w.wake:
		return id, nil
	case <-ctx.Done():
		return "", ctx.Err()
	case <-a.b.bgCtx.Done():
		return "", ErrShutdown
	}
}

// Close stops waiting.
func (a *Awaited) Close() { a.b.awaits.remove(a.w) }

// Hand gives the user's answer msgID, just asked with ticket, to the
// readers awaiting it here; false when none does (the asker then sends a
// bubble that opens the answer's own stream).
func (b *Broker) Hand(userID, ticket, msgID string) bool {
	if ticket == "" {
		return false
	}
	return b.awaits.hand(awaitKey(userID, ticket), msgID)
}

// Awaiting is the number of readers waiting for an answer here.
func (b *Broker) Awaiting() int {
	b.awaits.mu.Lock()
	defer b.awaits.mu.Unlock()
	return b.awaits.len
}
