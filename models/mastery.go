package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Verdicts of a graded check answer, as stored in check_items.verdict.
const (
	VerdictCorrect = "correct"
	VerdictPartly  = "partly"
	VerdictNotYet  = "not_yet"
)

// ValidVerdict reports whether v is correct, partly or not_yet.
func ValidVerdict(v string) bool {
	return v == VerdictCorrect || v == VerdictPartly || v == VerdictNotYet
}

// MasteryStreak is how many correct answers in a row master a section.
const MasteryStreak = 2

// reviewDays are the days until the next review after a correct answer at
// step 0, 1 and 2 and beyond: spaced repetition, short enough for a course.
var reviewDays = []int{1, 3, 7}

// SectionMastery is what a student has shown of one lesson section.
type SectionMastery struct {
	UserID        string `gorm:"type:uuid;primaryKey"`
	LessonID      string `gorm:"primaryKey"`
	Anchor        string `gorm:"primaryKey"`
	Streak        int    // correct answers in a row
	Step          int    // position on the review ladder (reviewDays)
	LastVerdict   string
	MasteredAt    *time.Time
	LastCheckedAt time.Time
	DueAt         time.Time
}

// TableName maps SectionMastery to section_mastery.
func (SectionMastery) TableName() string { return "section_mastery" }

// Mastered reports whether the section counts as mastered.
func (m SectionMastery) Mastered() bool { return m.MasteredAt != nil }

// NextReview is the schedule, in one pure function: a correct answer
// lengthens the streak and is due again 1, 3, then 7 days later (step 0,
// 1, 2), mastering the section at MasteryStreak in a row; a partly keeps
// the step but breaks the streak and is due the next day; a not yet loses
// the mastery, goes back to the first step and is due at once (the same
// day). An unknown verdict changes nothing.
func NextReview(m SectionMastery, verdict string, now time.Time) SectionMastery {
	if !ValidVerdict(verdict) {
		return m
	}
	m.LastVerdict, m.LastCheckedAt = verdict, now
	switch verdict {
	case VerdictCorrect:
		m.Streak++
		step := min(max(m.Step, 0), len(reviewDays)-1)
		m.DueAt = now.AddDate(0, 0, reviewDays[step])
		m.Step = min(step+1, len(reviewDays)-1)
		if m.Streak >= MasteryStreak && m.MasteredAt == nil {
			t := now
			m.MasteredAt = &t
		}
	case VerdictPartly:
		m.Streak = 0
		m.DueAt = now.AddDate(0, 0, 1)
	case VerdictNotYet:
		m.Streak, m.Step, m.MasteredAt = 0, 0, nil
		m.DueAt = now
	}
	return m
}

// applyMastery moves the user's mastery of a section by one verdict; call
// it inside the grading transaction (the row is locked while it is read).
func applyMastery(ctx context.Context, db *gorm.DB, userID, lessonID, anchor, verdict string, now time.Time) error {
	tx := conn(ctx, db)
	m := SectionMastery{UserID: userID, LessonID: lessonID, Anchor: anchor}
	var rows []SectionMastery
	if err := tx.Raw(`SELECT * FROM section_mastery WHERE user_id = ? AND lesson_id = ? AND anchor = ? FOR UPDATE`,
		userID, lessonID, anchor).Scan(&rows).Error; err != nil {
		return fmt.Errorf("read mastery: %w", err)
	}
	if len(rows) == 1 {
		m = rows[0]
	}
	m = NextReview(m, verdict, now)
	err := tx.Exec(`INSERT INTO section_mastery (user_id, lesson_id, anchor, streak, step, last_verdict, mastered_at, last_checked_at, due_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id, lesson_id, anchor) DO UPDATE SET streak = excluded.streak, step = excluded.step,
		    last_verdict = excluded.last_verdict, mastered_at = excluded.mastered_at,
		    last_checked_at = excluded.last_checked_at, due_at = excluded.due_at`,
		userID, lessonID, anchor, m.Streak, m.Step, m.LastVerdict, m.MasteredAt, m.LastCheckedAt, m.DueAt).Error
	if err != nil {
		return fmt.Errorf("write mastery: %w", err)
	}
	return nil
}

// Mastery returns the user's mastery of the sections of a lesson, by anchor.
func (s *Checks) Mastery(ctx context.Context, userID, lessonID string) (map[string]SectionMastery, error) {
	out := map[string]SectionMastery{}
	if !validID(userID) {
		return out, nil
	}
	var rows []SectionMastery
	if err := conn(ctx, s.db).Where("user_id = ? AND lesson_id = ?", userID, lessonID).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read mastery: %w", err)
	}
	for _, r := range rows {
		out[r.Anchor] = r
	}
	return out, nil
}
