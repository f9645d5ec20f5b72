package models

import "sync"

// A question's answer can be prepared while the question is recorded
// only when its thread is known beforehand (see tutor.Known), and reading
// the thread first puts one more statement in front of every question of
// a class asking at once. The threads this process created, read or
// recorded a question in lately are remembered instead. What is
// remembered is only ever a guess: the recorded turn says whether it
// still holds (a question asked from another process, a style changed
// there), and a wrong guess costs the preparation, never the answer.
// Nothing is authorised from it: the turn statement checks the thread's
// owner as always.

// recentMax bounds how many threads a process remembers (about 300 bytes
// each); a full memory forgets one at random for each new one.
const recentMax = 5000

// recent is the memory of threads, by user and id.
type recent struct {
	mu sync.Mutex
	m  map[convKey]Conversation
}

// put remembers c as it is now.
func (r *recent) put(c Conversation) {
	k, ok := keyOf(c.UserID, c.ID)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[convKey]Conversation{}
	}
	if _, known := r.m[k]; !known && len(r.m) >= recentMax {
		for old := range r.m { // map order is random enough to pick one
			delete(r.m, old)
			break
		}
	}
	r.m[k] = c
}

// forget drops the user's thread id.
func (r *recent) forget(userID, id string) {
	if k, ok := keyOf(userID, id); ok {
		r.mu.Lock()
		delete(r.m, k)
		r.mu.Unlock()
	}
}

// Remembered returns a copy of the user's thread as this process last
// saw it, or nil. It is a guess to prepare with, never a permission:
// see above.
func (s *Conversations) Remembered(userID, id string) *Conversation {
	k, ok := keyOf(userID, id)
	if !ok {
		return nil
	}
	s.recent.mu.Lock()
	defer s.recent.mu.Unlock()
	c, ok := s.recent.m[k]
	if !ok {
		return nil
	}
	return &c
}

// Remember notes the thread as a recorded question left it.
func (s *Conversations) Remember(c Conversation) { s.recent.put(c) }
