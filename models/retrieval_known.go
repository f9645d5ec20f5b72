package models

import (
	"sync"
	"time"
)

// A term a check found in the material is taken as known, without asking
// PostgreSQL again, for knownFor: a class asks about the same few dozen
// words over and over (the class benchmark's 200 questions hold about
// 30), and each question's check was a batched statement on its answer's
// critical path. Only known terms are remembered. A term unknown now may
// be known as soon as a lesson holding it is published, and "the lessons
// do not cover this" must not outlive that; a known term that stops being
// known (its only lesson deleted) is at worst not flagged for knownFor,
// and its search finds nothing to cite anyway.
const (
	knownFor = time.Minute
	// knownMax bounds the memory: the known terms are the lessons'
	// words and their prefixes, but the map is emptied whole when full
	// rather than tracked entry by entry.
	knownMax = 50_000
)

// knownTerms is the terms a check found, each until it expires.
type knownTerms struct {
	mu    sync.Mutex
	until map[string]time.Time
}

// unchecked is terms, in order, without the ones known at now.
func (k *knownTerms) unchecked(terms []string, now time.Time) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := terms[:0:0]
	for _, t := range terms {
		if until, ok := k.until[t]; !ok || now.After(until) {
			out = append(out, t)
		}
	}
	return out
}

// learn remembers the checked terms that are not among unknown as known
// from now on.
func (k *knownTerms) learn(checked []string, unknown []UnknownTerm, now time.Time) {
	missing := make(map[string]bool, len(unknown))
	for _, u := range unknown {
		missing[u.Term] = true
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.until == nil || len(k.until)+len(checked) > knownMax {
		k.until = make(map[string]time.Time)
	}
	for _, t := range checked {
		if !missing[t] {
			k.until[t] = now.Add(knownFor)
		}
	}
}
