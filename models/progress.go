package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// LessonProgress is one student's progress on one lesson: whether it is
// read, and how many of its sections they have been checked on and have
// mastered.
type LessonProgress struct {
	LessonID string
	Read     bool
	// Sections is the lesson's number of sections (distinct heading anchors).
	Sections int
	// Checked counts the sections with at least one graded check answer.
	Checked int
	// Mastered counts the sections mastered and not lost since.
	Mastered int
}

// ProgressTotals sums the progress of several lessons: a module's or a path's.
type ProgressTotals struct {
	Lessons, Read, Sections, Checked, Mastered int
}

// add counts one lesson's progress in the totals.
func (t *ProgressTotals) add(p LessonProgress) {
	t.Lessons++
	t.Sections += p.Sections
	t.Checked += p.Checked
	t.Mastered += p.Mastered
	if p.Read {
		t.Read++
	}
}

// Started reports whether the student has read or been checked on anything counted.
func (t ProgressTotals) Started() bool { return t.Read > 0 || t.Checked > 0 }

// ProgressMap is a student's progress by lesson id; a lesson missing from
// it has no progress yet.
type ProgressMap map[string]LessonProgress

// Lesson is the progress on one lesson.
func (m ProgressMap) Lesson(id string) LessonProgress { return m[id] }

// Module sums the progress on a module's lessons.
func (m ProgressMap) Module(mod Module) ProgressTotals {
	var t ProgressTotals
	for _, l := range mod.Lessons {
		t.add(m[l.ID])
	}
	return t
}

// Path sums the progress on a path's lessons.
func (m ProgressMap) Path(p Path) ProgressTotals {
	var t ProgressTotals
	for _, mod := range p.Modules {
		for _, l := range mod.Lessons {
			t.add(m[l.ID])
		}
	}
	return t
}

// LessonState is what the lesson page shows of the student's progress on it.
type LessonState struct {
	Read bool
	// Sections is the student's state on each section checked, by anchor
	// (the intro, before the first heading, is "").
	Sections map[string]SectionState
}

// SectionState is a student's standing on one section they were checked on.
type SectionState struct {
	Mastered bool
	// Due reports whether the section is due for review.
	Due bool
}

// Resume is what /learn and /dashboard offer to go on with: the lesson
// opened last (LessonID "" when none) and the number of sections due.
type Resume struct {
	LessonID, LessonTitle string
	PathSlug, PathTitle   string
	// Language is the lesson's language, for the lang attribute of its title.
	Language string
	// Read reports whether the lesson opened last is read already.
	Read bool
	// Due is the number of sections due for review.
	Due int
}

// Progress is the store of what each student has read, visited and mastered.
type Progress struct{ db *gorm.DB }

// NewProgress returns the progress store.
func NewProgress(db *gorm.DB) *Progress { return &Progress{db: db} }

// Lessons returns a student's progress on every lesson of the path with
// pathID (0: of every path) in one statement, whatever the number of lessons.
func (s *Progress) Lessons(ctx context.Context, userID string, pathID int64) (ProgressMap, error) {
	var rows []LessonProgress
	// Mastery of a section the lesson no longer has (edited away) does not count.
	err := conn(ctx, s.db).Raw(`SELECT l.id AS lesson_id, r.user_id IS NOT NULL AS read,
			coalesce(c.sections, 0) AS sections, coalesce(sm.checked, 0) AS checked, coalesce(sm.mastered, 0) AS mastered
		FROM lessons l JOIN modules m ON m.id = l.module_id
		LEFT JOIN lesson_reads r ON r.user_id = @user AND r.lesson_id = l.id
		LEFT JOIN (SELECT lesson_id, count(DISTINCT anchor) AS sections FROM lesson_chunks GROUP BY lesson_id) c
			ON c.lesson_id = l.id
		LEFT JOIN (SELECT sm.lesson_id, count(*) AS checked, count(sm.mastered_at) AS mastered
				FROM section_mastery sm
				WHERE sm.user_id = @user AND `+sectionExists+`
				GROUP BY sm.lesson_id) sm ON sm.lesson_id = l.id
		WHERE l.status = 'published' AND (@path = 0 OR m.path_id = @path)`,
		map[string]any{"user": userID, "path": pathID}).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("lesson progress: %w", err)
	}
	out := make(ProgressMap, len(rows))
	for _, r := range rows {
		out[r.LessonID] = r
	}
	return out, nil
}

// sectionExists keeps the section_mastery rows (aliased sm) of sections
// the lesson still has.
const sectionExists = `EXISTS (SELECT 1 FROM lesson_chunks c WHERE c.lesson_id = sm.lesson_id AND c.anchor = sm.anchor)`

// VisitLesson records that the student opened the lesson at now (the one
// "Continue where you left off" offers) and returns their state on it and
// on each of its sections at now, in one statement: the lesson page's
// whole cost of progress.
func (s *Progress) VisitLesson(ctx context.Context, userID, lessonID string, now time.Time) (*LessonState, error) {
	// One row per section checked (or one row not Checked), each
	// carrying whether the lesson is read. The intro's anchor is "".
	var rows []struct {
		Read, Checked bool
		Anchor        string
		Mastered, Due bool
	}
	err := conn(ctx, s.db).Raw(`WITH visit AS (
			INSERT INTO lesson_visits (user_id, lesson_id, visited_at) VALUES (@user, @lesson, @now)
			ON CONFLICT (user_id) DO UPDATE SET lesson_id = excluded.lesson_id, visited_at = excluded.visited_at)
		SELECT EXISTS (SELECT 1 FROM lesson_reads WHERE user_id = @user AND lesson_id = @lesson) AS read,
			sm.user_id IS NOT NULL AS checked, coalesce(sm.anchor, '') AS anchor, sm.mastered_at IS NOT NULL AS mastered, coalesce(sm.due_at <= @now, false) AS due
		FROM (SELECT 1) one
		LEFT JOIN section_mastery sm ON sm.user_id = @user AND sm.lesson_id = @lesson`,
		map[string]any{"user": userID, "lesson": lessonID, "now": now}).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("visit lesson: %w", err)
	}
	st := &LessonState{Sections: map[string]SectionState{}}
	for _, r := range rows {
		st.Read = r.Read
		if r.Checked {
			st.Sections[r.Anchor] = SectionState{Mastered: r.Mastered, Due: r.Due}
		}
	}
	return st, nil
}

// Due returns up to limit of the student's sections due for review at
// now, the longest due first, in one statement.
func (s *Progress) Due(ctx context.Context, userID string, now time.Time, limit int) ([]SectionRef, error) {
	var out []SectionRef
	err := conn(ctx, s.db).Raw(`SELECT sm.lesson_id, sm.anchor FROM section_mastery sm
		WHERE sm.user_id = ? AND sm.due_at <= ? AND `+sectionExists+`
		ORDER BY sm.due_at, sm.lesson_id, sm.anchor LIMIT ?`, userID, now, limit).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("sections due: %w", err)
	}
	return out, nil
}

// MarkRead records that the student read the lesson with that id in the
// path with that slug, at now the first time; marking it again keeps the
// first time. A lesson that is not in that path is ErrNotFound.
func (s *Progress) MarkRead(ctx context.Context, userID, pathSlug, lessonID string, now time.Time) error {
	// The no-op update makes RETURNING yield the row when it was read
	// before, so no row at all means no such lesson.
	res := conn(ctx, s.db).Exec(`INSERT INTO lesson_reads (user_id, lesson_id, read_at)
		SELECT @user, l.id, @now FROM lessons l JOIN modules m ON m.id = l.module_id JOIN paths p ON p.id = m.path_id
		WHERE l.id = @lesson AND p.slug = @path AND l.status = 'published'
		ON CONFLICT (user_id, lesson_id) DO UPDATE SET read_at = lesson_reads.read_at`,
		map[string]any{"user": userID, "lesson": lessonID, "path": pathSlug, "now": now})
	if res.Error != nil {
		return fmt.Errorf("mark lesson read: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// Resume returns where the student goes on, and how many of their sections
// are due for review at now, in one statement: the lesson they opened
// last, or, once that one is read, the next lesson of its path they have
// not read (the read one itself when none is left).
func (s *Progress) Resume(ctx context.Context, userID string, now time.Time) (*Resume, error) {
	var r Resume
	err := conn(ctx, s.db).Raw(`WITH last AS (
			SELECT l.id, l.title, l.language, l.position, m.position AS module_position, m.path_id,
				EXISTS (SELECT 1 FROM lesson_reads r WHERE r.user_id = @user AND r.lesson_id = l.id) AS read
			FROM lesson_visits v JOIN lessons l ON l.id = v.lesson_id JOIN modules m ON m.id = l.module_id
			WHERE v.user_id = @user),
		next AS (
			SELECT nl.id, nl.title, nl.language FROM last
			JOIN modules nm ON nm.path_id = last.path_id JOIN lessons nl ON nl.module_id = nm.id
			WHERE last.read AND nl.status = 'published' AND (nm.position, nl.position, nl.id) > (last.module_position, last.position, last.id)
			  AND NOT EXISTS (SELECT 1 FROM lesson_reads r WHERE r.user_id = @user AND r.lesson_id = nl.id)
			ORDER BY nm.position, nl.position, nl.id LIMIT 1)
		SELECT coalesce(next.id, last.id, '') AS lesson_id, coalesce(next.title, last.title, '') AS lesson_title,
			coalesce(p.slug, '') AS path_slug, coalesce(p.title, '') AS path_title,
			coalesce(next.language, last.language, '') AS language,
			coalesce(last.read AND next.id IS NULL, false) AS read,
			(SELECT count(*) FROM section_mastery sm WHERE sm.user_id = @user AND sm.due_at <= @now AND `+sectionExists+`) AS due
		FROM (SELECT 1) one
		LEFT JOIN last ON true
		LEFT JOIN next ON true
		LEFT JOIN paths p ON p.id = last.path_id`,
		map[string]any{"user": userID, "now": now}).Scan(&r).Error
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	return &r, nil
}
