package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Errors of assignments; the fronts translate them.
var (
	// ErrAssignWhat is an assignment naming neither a path nor a lesson, or both.
	ErrAssignWhat = errors.New("choose a path or some lessons")
	// ErrAssignUnknown is a path or lesson that does not exist.
	ErrAssignUnknown = errors.New("the path or lesson does not exist")
	// ErrAssignGroup is a group that is not one of the organization's.
	ErrAssignGroup = errors.New("the group is not one of the organization's")
	// ErrAssignDue is a due date that cannot be read or is out of range.
	ErrAssignDue = errors.New("a due date is a day (YYYY-MM-DD)")
	// ErrAssignTaken is the same path or lesson assigned to the same people already.
	ErrAssignTaken = errors.New("already assigned to them")
)

// Lesson states of an assigned lesson, from least to most.
const (
	StateNotStarted = "not_started"
	StateRead       = "read"
	StateChecked    = "checked"
	StateMastered   = "mastered"
)

// NewAssignment is what an organization's admin assigns: a path or some
// lessons, to a group (GroupID 0: the whole organization).
type NewAssignment struct {
	GroupID       int64
	PathID        int64
	LessonIDs     []string
	DueOn         *time.Time
	CheckRequired bool
}

// Assignment is one row of the organization's assignment list.
type Assignment struct {
	ID            int64
	GroupName     string // "" for the whole organization
	PathTitle     string // "" when a lesson is assigned
	LessonTitle   string // "" when a path is assigned
	DueOn         *time.Time
	CheckRequired bool
}

// Assign records the assignment: one row for the path, or one per lesson,
// all at once or none.
func (s *Organizations) Assign(ctx context.Context, orgID, by string, n NewAssignment, now time.Time) error {
	if (n.PathID == 0) == (len(n.LessonIDs) == 0) {
		return ErrAssignWhat
	}
	if !validID(orgID) {
		return ErrNotFound
	}
	if n.GroupID != 0 {
		if _, err := s.Group(ctx, orgID, n.GroupID); err != nil {
			return ErrAssignGroup
		}
	}
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		if n.PathID != 0 {
			return s.assignOne(ctx, orgID, by, n, &n.PathID, nil, now)
		}
		for _, l := range n.LessonIDs {
			if err := s.assignOne(ctx, orgID, by, n, nil, &l, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// assignOne inserts one assignment row, mapping a missing path or lesson
// and a repeated assignment to the errors a person can read.
func (s *Organizations) assignOne(ctx context.Context, orgID, by string, n NewAssignment, pathID *int64, lessonID *string, now time.Time) error {
	var group *int64
	if n.GroupID != 0 {
		group = &n.GroupID
	}
	err := conn(ctx, s.db).Exec(`INSERT INTO organization_assignments
		(organization_id, group_id, path_id, lesson_id, due_on, check_required, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, orgID, group, pathID, lessonID, n.DueOn, n.CheckRequired, by, now).Error
	switch {
	case err == nil:
		return nil
	case uniqueViolation(err):
		return ErrAssignTaken
	case foreignKeyViolation(err), IsInvalidText(err):
		return ErrAssignUnknown
	}
	return fmt.Errorf("assign: %w", err)
}

// Assignments lists the organization's assignments by due date (undated last).
func (s *Organizations) Assignments(ctx context.Context, orgID string) ([]Assignment, error) {
	if !validID(orgID) {
		return nil, ErrNotFound
	}
	var out []Assignment
	err := conn(ctx, s.db).Raw(`SELECT a.id, coalesce(g.name, '') AS group_name, coalesce(p.title, '') AS path_title,
			coalesce(l.title, '') AS lesson_title, a.due_on, a.check_required
		FROM organization_assignments a
		LEFT JOIN organization_groups g ON g.id = a.group_id
		LEFT JOIN paths p ON p.id = a.path_id
		LEFT JOIN lessons l ON l.id = a.lesson_id
		WHERE a.organization_id = ? ORDER BY a.due_on NULLS LAST, a.id`, orgID).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("assignments: %w", err)
	}
	return out, nil
}

// DeleteAssignment deletes one of the organization's assignments.
func (s *Organizations) DeleteAssignment(ctx context.Context, orgID string, id int64) error {
	if !validID(orgID) {
		return ErrNotFound
	}
	res := conn(ctx, s.db).Exec(`DELETE FROM organization_assignments WHERE organization_id = ? AND id = ?`, orgID, id)
	if res.Error != nil {
		return fmt.Errorf("delete assignment: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// foreignKeyViolation reports whether PostgreSQL refused a row pointing at nothing.
func foreignKeyViolation(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23503"
}
