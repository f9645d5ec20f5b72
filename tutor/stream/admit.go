package stream

import "sync"

// DefaultStreamsPerUser is how many event streams one user may hold open
// at once by default: several tabs, each with an answer or two streaming,
// stay well within it, while one account cannot hold hundreds of
// connections (and their goroutines and buffers) open.
const DefaultStreamsPerUser = 32

// openStreams counts the event streams each user holds open.
type openStreams struct {
	mu     sync.Mutex
	max    int
	byUser map[string]int
}

// Admit counts an event stream the user opens, unless they already hold
// Config.StreamsPerUser open on this process: ok is false then. release,
// called once when the stream ends (however it ends), frees its place.
func (b *Broker) Admit(userID string) (release func(), ok bool) {
	o := &b.open
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.byUser[userID] >= o.max {
		return nil, false
	}
	o.byUser[userID]++
	var once sync.Once
	return func() { once.Do(func() { o.leave(userID) }) }, true
}

// leave frees one of the user's places.
func (o *openStreams) leave(userID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.byUser[userID]--; o.byUser[userID] <= 0 {
		delete(o.byUser, userID) // the map holds only users with streams open
	}
}

// StreamsPerUser is the cap Admit enforces.
func (b *Broker) StreamsPerUser() int { return b.open.max }
