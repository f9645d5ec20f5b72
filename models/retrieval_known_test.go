package models

import (
	"slices"
	"testing"
	"time"
)

// A check's answers are remembered per term: a question mixing terms
// remembered known, remembered unknown and new ones asks only about the
// new ones and gets its unknown terms back in its own order, each with
// its near word; an answer past its time is asked again.
func TestCheckMemoryAsksOnlyWhatItForgot(t *testing.T) {
	start := time.Now()
	var m checkMemory
	m.learn([]string{"'vlan':*", "'bufered':*", "'relate':*"},
		[]UnknownTerm{{Term: "'bufered':*", Near: "buffer"}, {Term: "'relate':*"}}, start)

	tests := []struct {
		name        string
		at          time.Duration
		terms       []string
		wantUnknown []UnknownTerm
		wantAsk     []string
	}{
		{"all remembered", time.Second, []string{"'relate':*", "'vlan':*", "'bufered':*"},
			[]UnknownTerm{{Term: "'relate':*"}, {Term: "'bufered':*", Near: "buffer"}}, nil},
		{"a new term", time.Second, []string{"'trunk':*", "'relate':*"},
			[]UnknownTerm{{Term: "'relate':*"}}, []string{"'trunk':*"}},
		{"unknown forgotten first", unknownFor + time.Second, []string{"'vlan':*", "'relate':*"},
			nil, []string{"'relate':*"}},
		{"all forgotten", knownFor + time.Second, []string{"'vlan':*"}, nil, []string{"'vlan':*"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			unknown, ask := m.recall(tc.terms, start.Add(tc.at))
			if !slices.Equal(unknown, tc.wantUnknown) || !slices.Equal(ask, tc.wantAsk) {
				t.Errorf("recall = %v, ask %v; want %v, ask %v", unknown, ask, tc.wantUnknown, tc.wantAsk)
			}
		})
	}
	got := inOrder([]string{"a", "b", "c", "d"}, []UnknownTerm{{Term: "d"}, {Term: "b"}}, []UnknownTerm{{Term: "c", Near: "x"}})
	if want := []UnknownTerm{{Term: "b"}, {Term: "c", Near: "x"}, {Term: "d"}}; !slices.Equal(got, want) {
		t.Errorf("inOrder = %v, want %v", got, want)
	}
}
