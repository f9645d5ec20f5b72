package main

import (
	"slices"
	"testing"
)

// The collector runs at busyGCPercent from busyStreams answers in flight
// until fewer than half as many remain, then at what was set before.
func TestGCPacerFollowsAnswersInFlight(t *testing.T) {
	tests := []struct {
		name     string
		inFlight []int
		want     []int // GOGC values set, in order
	}{
		{"a few answers leave it alone", []int{0, 1, 20, busyStreams - 1, 0}, nil},
		{"a class lowers it once", []int{10, busyStreams, 600, 1000, 400}, []int{busyGCPercent}},
		{"its end restores it", []int{busyStreams, 1000, busyStreams / 2, busyStreams/2 - 1, 0}, []int{busyGCPercent, 100}},
		{"between the two thresholds it stays", []int{busyStreams, busyStreams - 1, busyStreams / 2, busyStreams + 5},
			[]int{busyGCPercent}},
		{"a second class lowers it again", []int{busyStreams, 0, 0, busyStreams}, []int{busyGCPercent, 100, busyGCPercent}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			current := 100
			var set []int
			p := &gcPacer{set: func(percent int) int {
				set = append(set, percent)
				prev := current
				current = percent
				return prev
			}}
			for _, n := range tt.inFlight {
				p.observe(n)
			}
			if !slices.Equal(set, tt.want) {
				t.Errorf("GOGC set to %v, want %v", set, tt.want)
			}
		})
	}
}
