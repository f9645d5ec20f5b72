package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
	GroupID       *int64 // nil for the whole organization
	GroupName     string // "" for the whole organization
	PathID        *int64 // nil when a lesson is assigned
	PathTitle     string // "" when a lesson is assigned
	PathSlug      string // "" when a lesson is assigned
	LessonID      *string
	LessonTitle   string // "" when a path is assigned
	DueOn         *time.Time
	CheckRequired bool
	CreatedAt     time.Time
}

// assignmentSelect reads Assignment rows (the caller adds WHERE and ORDER).
const assignmentSelect = `SELECT a.id, a.group_id, coalesce(g.name, '') AS group_name, a.path_id,
		coalesce(p.title, '') AS path_title, coalesce(p.slug, '') AS path_slug, a.lesson_id, coalesce(l.title, '') AS lesson_title,
		a.due_on, a.check_required, a.created_at
	FROM organization_assignments a
	LEFT JOIN organization_groups g ON g.id = a.group_id
	LEFT JOIN paths p ON p.id = a.path_id
	LEFT JOIN lessons l ON l.id = a.lesson_id`

// ParseDueDay reads an assignment's due date as typed (YYYY-MM-DD, years
// 2000 to 2100); "" is none, anything else ErrAssignDue.
func ParseDueDay(s string) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	day, err := time.Parse(time.DateOnly, s)
	if err != nil || day.Year() < 2000 || day.Year() > 2100 {
		return nil, ErrAssignDue
	}
	return &day, nil
}

// Assign records the assignment: one row for the path, or one per lesson,
// all at once or none. It returns the new rows' ids, in the order given.
func (s *Organizations) Assign(ctx context.Context, orgID, by string, n NewAssignment, now time.Time) ([]int64, error) {
	if (n.PathID == 0) == (len(n.LessonIDs) == 0) {
		return nil, ErrAssignWhat
	}
	if !validID(orgID) {
		return nil, ErrNotFound
	}
	if n.GroupID != 0 {
		if _, err := s.Group(ctx, orgID, n.GroupID); err != nil {
			return nil, ErrAssignGroup
		}
	}
	var ids []int64
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		if n.PathID != 0 {
			id, err := s.assignOne(ctx, orgID, by, n, &n.PathID, nil, now)
			ids = append(ids, id)
			return err
		}
		for _, l := range n.LessonIDs {
			id, err := s.assignOne(ctx, orgID, by, n, nil, &l, now)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// assignOne inserts one assignment row and returns its id, mapping a
// missing path or lesson and a repeated assignment to the errors a person
// can read.
func (s *Organizations) assignOne(ctx context.Context, orgID, by string, n NewAssignment, pathID *int64, lessonID *string, now time.Time) (int64, error) {
	var group *int64
	if n.GroupID != 0 {
		group = &n.GroupID
	}
	var id int64
	err := conn(ctx, s.db).Raw(`INSERT INTO organization_assignments
		(organization_id, group_id, path_id, lesson_id, due_on, check_required, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, orgID, group, pathID, lessonID, n.DueOn, n.CheckRequired, by, now).
		Row().Scan(&id)
	switch {
	case err == nil:
		return id, nil
	case uniqueViolation(err):
		return 0, ErrAssignTaken
	case foreignKeyViolation(err), IsInvalidText(err):
		return 0, ErrAssignUnknown
	}
	return 0, fmt.Errorf("assign: %w", err)
}

// Assignments lists the organization's assignments by due date (undated last).
func (s *Organizations) Assignments(ctx context.Context, orgID string) ([]Assignment, error) {
	if !validID(orgID) {
		return nil, ErrNotFound
	}
	var out []Assignment
	err := conn(ctx, s.db).Raw(assignmentSelect+` WHERE a.organization_id = ? ORDER BY a.due_on NULLS LAST, a.id`, orgID).
		Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("assignments: %w", err)
	}
	return out, nil
}

// Assignment returns one of the organization's assignments; another
// organization's is ErrNotFound.
func (s *Organizations) Assignment(ctx context.Context, orgID string, id int64) (*Assignment, error) {
	if !validID(orgID) {
		return nil, ErrNotFound
	}
	var a Assignment
	err := conn(ctx, s.db).Raw(assignmentSelect+` WHERE a.organization_id = ? AND a.id = ?`, orgID, id).Take(&a).Error
	if err != nil {
		return nil, fmt.Errorf("assignment: %w", notFound(err))
	}
	return &a, nil
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
