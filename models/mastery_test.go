package models_test

import (
	"testing"
	"time"

	"aula/models"
)

// The review schedule with a fixed clock: each step is a verdict at a
// given day, and what the mastery is after it.
func TestNextReviewSchedule(t *testing.T) {
	day0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	at := func(d int) time.Time { return day0.AddDate(0, 0, d) }
	type want struct {
		streak, step int
		mastered     bool
		due          time.Time
	}
	tests := []struct {
		name  string
		steps []string // verdicts, one per day starting at day 0
		want  want
	}{
		{"first correct is due a day later", []string{"correct"}, want{1, 1, false, at(1)}},
		{"two correct in a row master, due 3 days later", []string{"correct", "correct"}, want{2, 2, true, at(1 + 3)}},
		{"third correct is due 7 days later", []string{"correct", "correct", "correct"}, want{3, 2, true, at(2 + 7)}},
		{"the ladder stops at 7 days", []string{"correct", "correct", "correct", "correct"}, want{4, 2, true, at(3 + 7)}},
		{"partly is due the next day and breaks the streak", []string{"correct", "partly"}, want{0, 1, false, at(1 + 1)}},
		{"partly keeps a mastery", []string{"correct", "correct", "partly"}, want{0, 2, true, at(2 + 1)}},
		{"not yet is due the same day and resets", []string{"correct", "correct", "not_yet"}, want{0, 0, false, at(2)}},
		{"after not yet the ladder starts again", []string{"not_yet", "correct"}, want{1, 1, false, at(1 + 1)}},
		{"an unknown verdict changes nothing", []string{"correct", "maybe"}, want{1, 1, false, at(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m models.SectionMastery
			for d, v := range tt.steps {
				m = models.NextReview(m, v, at(d))
			}
			got := want{m.Streak, m.Step, m.Mastered(), m.DueAt}
			if got != tt.want {
				t.Fatalf("after %v: got %+v, want %+v", tt.steps, got, tt.want)
			}
		})
	}
}
