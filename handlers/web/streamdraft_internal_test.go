package web

import (
	"testing"
	"time"

	"aula/markdown"
)

// The pause between two renderings of a draft grows with the streams
// open in the process: a class reading at once gets its formatting less
// often, not its words later.
func TestDraftPauseGrowsWithTheStreamsOpen(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		open  int
		after time.Duration
		due   bool
	}{
		{"alone, after the pause", 1, 150 * time.Millisecond, true},
		{"alone, too soon", 1, 50 * time.Millisecond, false},
		{"99 open, after the pause", 99, 150 * time.Millisecond, true},
		{"150 open, twice the pause not yet over", 150, 150 * time.Millisecond, false},
		{"150 open, after twice the pause", 150, 250 * time.Millisecond, true},
		{"1,000 open, after a second", 1000, time.Second, false},
		{"1,000 open, after eleven pauses", 1000, 1100 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDraft(true, 100*time.Millisecond)
			t.Cleanup(func() { d.timer.Stop() })
			d.add("Hello")
			d.render(t0, markdown.SectionLinks{})
			d.add(" there")
			if got := d.due(t0.Add(tc.after), tc.open); got != tc.due {
				t.Errorf("due %v after the last rendering with %d streams open: %v, want %v", tc.after, tc.open, got, tc.due)
			}
		})
	}
}
