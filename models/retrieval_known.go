package models

import (
	"sync"
	"time"
)

// ContentChannel is where PostgreSQL says that a statement changed lesson
// or help sections (payload "lesson" or "help"; migration 00114): every
// process's LISTEN connection follows it, and its retrieval forgets the
// terms it checked (Chunks.ContentChanged).
const ContentChannel = "aula_content"

// A check's answer for a term is remembered for a while instead of
// asking PostgreSQL again: a class asks about the same few dozen words
// over and over (the class benchmark's 200 questions hold about 30),
// and each question's check was a batched statement on its answer's
// critical path. A known term is remembered for knownFor; a known term
// that stops being known (its only lesson deleted) is at worst not
// flagged for that long, and its search finds nothing to cite anyway. An
// unknown term, for unknownFor only: a lesson published a moment ago must
// not be "not covered" for long, but a class's burst (every question
// holding "relate", which no lesson does) asks it once.
const (
	knownFor   = time.Minute
	unknownFor = 10 * time.Second
	// checkedMax bounds the memory: the terms are the lessons' words,
	// their prefixes and what students type, and the memory is emptied
	// whole when full rather than tracked entry by entry.
	checkedMax = 50_000
)

// checked is one term's remembered answer: unknown with its near word,
// or known, until it expires.
type checked struct {
	until   time.Time
	unknown bool
	near    string
}

// checkMemory is the terms checked lately, lesson or help.
type checkMemory struct {
	mu    sync.Mutex
	terms map[string]checked
}

// recall splits terms into the unknown ones remembered at now (with
// their near word) and the ones to ask about, each in terms' order;
// terms remembered known are in neither.
func (m *checkMemory) recall(terms []string, now time.Time) (unknown []UnknownTerm, ask []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range terms {
		c, ok := m.terms[t]
		switch {
		case !ok || now.After(c.until):
			ask = append(ask, t)
		case c.unknown:
			unknown = append(unknown, UnknownTerm{Term: t, Near: c.near})
		}
	}
	return unknown, ask
}

// learn remembers the answer for the asked terms: the ones in unknown
// are unknown, the others known.
func (m *checkMemory) learn(asked []string, unknown []UnknownTerm, now time.Time) {
	found := make(map[string]UnknownTerm, len(unknown))
	for _, u := range unknown {
		found[u.Term] = u
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.terms == nil || len(m.terms)+len(asked) > checkedMax {
		m.terms = make(map[string]checked)
	}
	for _, t := range asked {
		if u, ok := found[t]; ok {
			m.terms[t] = checked{until: now.Add(unknownFor), unknown: true, near: u.Near}
		} else {
			m.terms[t] = checked{until: now.Add(knownFor)}
		}
	}
}

// forget empties the memory.
func (m *checkMemory) forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.terms = nil
}

// inOrder is the unknown terms of a and b in terms' order.
func inOrder(terms []string, a, b []UnknownTerm) []UnknownTerm {
	if len(a) == 0 || len(b) == 0 {
		return append(a, b...)
	}
	by := make(map[string]UnknownTerm, len(a)+len(b))
	for _, u := range append(a, b...) {
		by[u.Term] = u
	}
	out := make([]UnknownTerm, 0, len(by))
	for _, t := range terms {
		if u, ok := by[t]; ok {
			out = append(out, u)
			delete(by, t)
		}
	}
	return out
}
