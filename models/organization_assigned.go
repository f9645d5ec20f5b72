package models

import (
	"context"
	"fmt"
	"time"
)

// MyAssignment is one assignment as the member it is for sees it on /learn
// and /dashboard: what, until when, and their state on each of its lessons.
type MyAssignment struct {
	ID            int64
	Title         string // the path's or the lesson's title
	Language      string // the title's language
	DueOn         *time.Time
	CheckRequired bool
	Lessons       []AssignedLesson
}

// AssignedLesson is one lesson of an assignment and the member's state on it.
type AssignedLesson struct {
	ID, Title, PathSlug, Language string
	State                         string
	// Passed reports a knowledge check passed: a section's last answer correct, or mastered.
	Passed bool
}

// Done reports whether the lesson counts as done for its assignment: read,
// or, when a check is required, its knowledge check passed.
func (l AssignedLesson) Done(checkRequired bool) bool {
	if checkRequired {
		return l.Passed
	}
	return l.State != StateNotStarted
}

// Done reports whether every lesson of the assignment is done.
func (a MyAssignment) Done() bool {
	for _, l := range a.Lessons {
		if !l.Done(a.CheckRequired) {
			return false
		}
	}
	return true
}

// Overdue reports whether the due date is before today (UTC) with lessons left to do.
func (a MyAssignment) Overdue(now time.Time) bool {
	if a.DueOn == nil || a.Done() {
		return false
	}
	today := now.UTC().Format(time.DateOnly)
	return a.DueOn.UTC().Format(time.DateOnly) < today
}

// assignedRow is one lesson of one assignment with the member's progress on it.
type assignedRow struct {
	ID            int64
	Title         string
	TitleLanguage string
	DueOn         *time.Time
	CheckRequired bool
	LessonID      string
	LessonTitle   string
	PathSlug      string
	Language      string
	Progress      lessonCounters `gorm:"embedded"`
}

// lessonCounters is a member's progress on one lesson as the assigned
// lessons and the completion matrix read it: read or not, and how many of
// its sections were checked, mastered and passed.
type lessonCounters struct {
	Read     bool
	Checked  int
	Passed   int
	Mastered int
}

// state is the single state a lesson's progress shows: mastered once a
// section is mastered, checked once one was checked, else read or not started.
func (r lessonCounters) state() string {
	switch {
	case r.Mastered > 0:
		return StateMastered
	case r.Checked > 0:
		return StateChecked
	case r.Read:
		return StateRead
	}
	return StateNotStarted
}

// lesson is the counters as an AssignedLesson's state (its title left to the caller).
func (r lessonCounters) lesson() AssignedLesson {
	return AssignedLesson{State: r.state(), Passed: r.Passed > 0}
}

// assignmentLessons joins the lessons (aliased l) an assignment (aliased
// a) covers: its lesson, or every lesson of its path.
const assignmentLessons = `l.id = a.lesson_id OR l.module_id IN (SELECT id FROM modules WHERE path_id = a.path_id)`

// assignedToUser holds when the assignment (aliased a) is meant for the
// member whose id is the column userCol: the whole organization's, or one
// of their groups'.
func assignedToUser(userCol string) string {
	return `(a.group_id IS NULL OR EXISTS (SELECT 1 FROM organization_group_members gm
		WHERE gm.group_id = a.group_id AND gm.user_id = ` + userCol + `))`
}

// sectionCounts sums section_mastery (aliased sm) per user and lesson, on
// the sections the lessons still have, for the rows where whose holds:
// checked, mastered, and passed (the last answer correct, or mastered).
func sectionCounts(whose string) string {
	return `SELECT sm.user_id, sm.lesson_id, count(*) AS checked, count(sm.mastered_at) AS mastered,
			count(*) FILTER (WHERE sm.last_verdict = 'correct' OR sm.mastered_at IS NOT NULL) AS passed
		FROM section_mastery sm WHERE ` + whose + ` AND ` + sectionExists + `
		GROUP BY sm.user_id, sm.lesson_id`
}

// AssignedTo returns the assignments of the user's organization meant for
// them (the whole organization's and their groups'), by due date (undated
// last), with their state on every lesson, in one statement whatever the
// number of assignments or lessons; none when they belong to no organization.
func (s *Organizations) AssignedTo(ctx context.Context, userID string) ([]MyAssignment, error) {
	if !validID(userID) {
		return nil, nil
	}
	var rows []assignedRow
	err := conn(ctx, s.db).Raw(`SELECT a.id, coalesce(p.title, al.title) AS title, coalesce(p.language, al.language) AS title_language, a.due_on, a.check_required,
			l.id AS lesson_id, l.title AS lesson_title, lp.slug AS path_slug, l.language,
			r.user_id IS NOT NULL AS read, coalesce(sm.checked, 0) AS checked, coalesce(sm.mastered, 0) AS mastered,
			coalesce(sm.passed, 0) AS passed
		FROM organization_members om
		JOIN organization_assignments a ON a.organization_id = om.organization_id AND `+assignedToUser("om.user_id")+`
		LEFT JOIN paths p ON p.id = a.path_id
		LEFT JOIN lessons al ON al.id = a.lesson_id
		JOIN lessons l ON `+assignmentLessons+`
		JOIN modules lm ON lm.id = l.module_id
		JOIN paths lp ON lp.id = lm.path_id
		LEFT JOIN lesson_reads r ON r.user_id = om.user_id AND r.lesson_id = l.id
		LEFT JOIN (`+sectionCounts("sm.user_id = @user")+`) sm ON sm.lesson_id = l.id
		WHERE om.user_id = @user
		ORDER BY a.due_on NULLS LAST, a.id, lm.position, l.position, l.id`,
		map[string]any{"user": userID}).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("assigned to: %w", err)
	}
	return groupAssigned(rows), nil
}

// groupAssigned folds the rows, ordered by assignment, into assignments.
func groupAssigned(rows []assignedRow) []MyAssignment {
	var out []MyAssignment
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].ID != r.ID {
			out = append(out, MyAssignment{ID: r.ID, Title: r.Title, Language: r.TitleLanguage, DueOn: r.DueOn, CheckRequired: r.CheckRequired})
		}
		last := &out[len(out)-1]
		l := r.Progress.lesson()
		l.ID, l.Title, l.PathSlug, l.Language = r.LessonID, r.LessonTitle, r.PathSlug, r.Language
		last.Lessons = append(last.Lessons, l)
	}
	return out
}
