package models

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// Orders of the completion matrix's members.
const (
	// MatrixByName orders members by name (then id).
	MatrixByName = "name"
	// MatrixByDone orders members by how many assigned lessons they have done (then name and id).
	MatrixByDone = "done"
)

// MatrixPageSize is the number of members a matrix page holds unless asked otherwise.
const MatrixPageSize = 50

// MatrixQuery chooses the completion matrix's rows: the members of a group
// (GroupID 0: the whole organization), their order and the page.
type MatrixQuery struct {
	GroupID int64
	Sort    string // MatrixByName (default) or MatrixByDone
	Desc    bool
	// After is the Next of the previous page ("" for the first); a cursor
	// of another order is ErrBadCursor.
	After string
	// Limit is the members per page, 1 to 200 (0: MatrixPageSize).
	Limit int
}

// MatrixLesson is one column of the matrix: a lesson assigned to the
// members shown (a path's assignment brings each of its lessons).
type MatrixLesson struct {
	ID, Title, Language, PathSlug string
}

// MatrixCell is one member's state on one lesson of the matrix.
type MatrixCell struct {
	// Assigned is false when the lesson is not assigned to this member
	// (only to another group); the other fields are then empty.
	Assigned bool
	// State is StateNotStarted, StateRead, StateChecked or StateMastered,
	// as on the member's own Assigned to you.
	State string
	// Passed reports a knowledge check passed on the lesson.
	Passed bool
	// CheckRequired reports that an assignment of the lesson to this
	// member requires its check.
	CheckRequired bool
}

// Done reports whether the cell counts as done: assigned and read, or its
// check passed when one is required (AssignedLesson.Done).
func (c MatrixCell) Done() bool {
	return c.Assigned && AssignedLesson{State: c.State, Passed: c.Passed}.Done(c.CheckRequired)
}

// MatrixRow is one member of the matrix and their cells, one per column.
type MatrixRow struct {
	UserID, Name, Email string
	// Done and Assigned count the member's lessons done and assigned among the columns.
	Done, Assigned int
	Cells          []MatrixCell
	// sortName is the name as the order compares it, for the next page's cursor.
	sortName string
}

// OrgMatrix is a page of the completion matrix: members × assigned lessons.
type OrgMatrix struct {
	// Group is the group shown, nil for the whole organization.
	Group   *Group
	Lessons []MatrixLesson
	Rows    []MatrixRow
	// Next is the cursor of the next page, "" on the last.
	Next string
}

// matrixCursor is where a page of the matrix starts: after the member
// with these keys, in the order it was read in.
type matrixCursor struct {
	Sort string `json:"s"`
	Desc bool   `json:"r,omitempty"`
	Done int    `json:"d"`
	Name string `json:"n"`
	ID   string `json:"u"`
}

// encode writes the cursor for a page link.
func (c matrixCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// parseMatrixCursor reads a cursor encode wrote for the order of q; "" is
// the first page, anything else ErrBadCursor.
func parseMatrixCursor(q MatrixQuery) (*matrixCursor, error) {
	if q.After == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(q.After)
	var c matrixCursor
	if err != nil || json.Unmarshal(b, &c) != nil || c.Sort != q.Sort || c.Desc != q.Desc || !validID(c.ID) {
		return nil, ErrBadCursor
	}
	return &c, nil
}

// normalize fills in the defaults and refuses an unknown order (ErrBadCursor).
func (q MatrixQuery) normalize() (MatrixQuery, error) {
	if q.Sort == "" {
		q.Sort = MatrixByName
	}
	if q.Sort != MatrixByName && q.Sort != MatrixByDone {
		return q, ErrBadCursor
	}
	if q.Limit == 0 {
		q.Limit = MatrixPageSize
	}
	q.Limit = min(max(q.Limit, 1), 200)
	return q, nil
}

// coveredLessons lists one row per lesson each assignment (aliased a)
// where cond holds covers: its lesson, or each lesson of its path. A
// UNION rather than Assigned to you's OR join, so that a thousand members
// × fifty lessons hash-join instead of testing every pair.
func coveredLessons(cond string) string {
	return `SELECT a.id, a.group_id, a.due_on, a.check_required, a.lesson_id FROM organization_assignments a
			WHERE a.lesson_id IS NOT NULL AND ` + cond + `
		UNION ALL
		SELECT a.id, a.group_id, a.due_on, a.check_required, l.id FROM organization_assignments a
			JOIN modules m ON m.path_id = a.path_id JOIN lessons l ON l.module_id = m.id
			WHERE ` + cond
}

// matrixScope is the condition keeping the assignments the matrix shows:
// the organization's, to everyone or (with a group) to that group.
const matrixScope = `a.organization_id = @org AND (@group = 0 OR a.group_id IS NULL OR a.group_id = @group)`

// matrixCTEs computes, for the members in scope (the organization's, or a
// group's), each assigned lesson's counters (cells) and each member's
// totals: set-based, so the statement is one whatever the numbers of
// members and lessons. The SQL twin of MatrixCell.Done counts done.
var matrixCTEs = `WITH scope AS (
		SELECT om.user_id, u.name, u.email FROM organization_members om JOIN users u ON u.id = om.user_id
		WHERE om.organization_id = @org AND (@group = 0 OR EXISTS (SELECT 1 FROM organization_group_members g
			WHERE g.group_id = @group AND g.user_id = om.user_id))
	), covered AS (` + coveredLessons(matrixScope) + `
	), assigned AS (
		SELECT x.user_id, x.lesson_id, bool_or(x.check_required) AS check_required FROM (
			SELECT s.user_id, c.lesson_id, c.check_required FROM scope s CROSS JOIN covered c WHERE c.group_id IS NULL
			UNION ALL
			SELECT s.user_id, c.lesson_id, c.check_required FROM covered c
			JOIN organization_group_members gm ON gm.group_id = c.group_id JOIN scope s ON s.user_id = gm.user_id
		) x GROUP BY x.user_id, x.lesson_id
	), cells AS (
		SELECT x.user_id, x.lesson_id, x.check_required, r.user_id IS NOT NULL AS read,
			coalesce(sm.checked, 0) AS checked, coalesce(sm.mastered, 0) AS mastered, coalesce(sm.passed, 0) AS passed
		FROM assigned x
		LEFT JOIN lesson_reads r ON r.user_id = x.user_id AND r.lesson_id = x.lesson_id
		LEFT JOIN (` + sectionCounts("sm.user_id IN (SELECT user_id FROM scope)") + `) sm ON sm.user_id = x.user_id AND sm.lesson_id = x.lesson_id
	), totals AS (
		SELECT s.user_id, s.name, lower(s.name) AS sort_name, s.email, count(c.lesson_id) AS assigned,
			count(c.lesson_id) FILTER (WHERE CASE WHEN c.check_required THEN c.passed > 0 ELSE c.read OR c.checked > 0 END) AS done
		FROM scope s LEFT JOIN cells c ON c.user_id = s.user_id
		GROUP BY s.user_id, s.name, s.email
	)`

// matrixRowsSQL is the statement reading the matrix's members, in order,
// each with its cells (one row per cell, one row with no lesson for a
// member with none): keyset is the page's start and limit its size.
func matrixRowsSQL(q MatrixQuery, keyset, limit string) string {
	order := matrixOrder(q)
	return matrixCTEs + `, page AS (SELECT t.* FROM totals t WHERE ` + keyset + ` ORDER BY ` + order + limit + `)
		SELECT t.user_id, t.name, t.sort_name, t.email, t.assigned, t.done, coalesce(c.lesson_id, '') AS lesson_id,
			coalesce(c.check_required, false) AS check_required, coalesce(c.read, false) AS read,
			coalesce(c.checked, 0) AS checked, coalesce(c.mastered, 0) AS mastered, coalesce(c.passed, 0) AS passed
		FROM page t LEFT JOIN cells c ON c.user_id = t.user_id
		ORDER BY ` + order + `, c.lesson_id`
}

// matrixOrder is the members' order (on alias t): by name, or by lessons
// done with names A to Z among equals.
func matrixOrder(q MatrixQuery) string {
	dir := ""
	if q.Desc {
		dir = " DESC"
	}
	if q.Sort == MatrixByDone {
		return "t.done" + dir + ", t.sort_name, t.user_id"
	}
	return "t.sort_name" + dir + ", t.user_id" + dir
}

// matrixKeyset is the condition keeping the members after the cursor, in
// the order matrixOrder gives.
func matrixKeyset(q MatrixQuery, c *matrixCursor) string {
	switch {
	case c == nil:
		return "true"
	case q.Sort == MatrixByDone && q.Desc:
		return "(t.done < @cdone OR (t.done = @cdone AND (t.sort_name, t.user_id) > (@cname, CAST(@cid AS uuid))))"
	case q.Sort == MatrixByDone:
		return "(t.done, t.sort_name, t.user_id) > (@cdone, @cname, CAST(@cid AS uuid))"
	case q.Desc:
		return "(t.sort_name, t.user_id) < (@cname, CAST(@cid AS uuid))"
	}
	return "(t.sort_name, t.user_id) > (@cname, CAST(@cid AS uuid))"
}

// matrixCellRow is one row matrixRowsSQL returns.
type matrixCellRow struct {
	UserID, Name, Email string
	SortName            string
	Assigned, Done      int
	LessonID            string
	CheckRequired       bool
	Progress            lessonCounters `gorm:"embedded"`
}

// Matrix returns a page of the organization's completion matrix: the
// lessons assigned to the members shown (to the whole organization or the
// group) and each member's state on each, in at most three statements
// whatever the numbers of members and lessons. Another organization's
// group is ErrNotFound; a cursor of another order ErrBadCursor.
func (s *Organizations) Matrix(ctx context.Context, orgID string, q MatrixQuery) (*OrgMatrix, error) {
	q, err := q.normalize()
	if err != nil {
		return nil, err
	}
	after, err := parseMatrixCursor(q)
	if err != nil {
		return nil, err
	}
	m, err := s.matrixColumns(ctx, orgID, q.GroupID)
	if err != nil {
		return nil, err
	}
	var rows []matrixCellRow
	err = conn(ctx, s.db).Raw(matrixRowsSQL(q, matrixKeyset(q, after), fmt.Sprintf(" LIMIT %d", q.Limit+1)),
		matrixParams(orgID, q, after)).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("matrix: %w", err)
	}
	f := newMatrixFolder(m.Lessons)
	for _, r := range rows {
		f.add(r)
	}
	m.Rows = f.done()
	if len(m.Rows) > q.Limit {
		last := m.Rows[q.Limit-1]
		m.Rows = m.Rows[:q.Limit]
		m.Next = matrixCursor{Sort: q.Sort, Desc: q.Desc, Done: last.Done, Name: last.sortName, ID: last.UserID}.encode()
	}
	return m, nil
}

// MatrixEach streams the whole completion matrix for q's group and order
// (no page: q.After and q.Limit are ignored), in at most three statements:
// head gets the matrix's group and columns (no rows) before the first
// member, then row gets each member as its cells are read. The first
// error of either stops it; another organization's group is ErrNotFound,
// before head is called.
func (s *Organizations) MatrixEach(ctx context.Context, orgID string, q MatrixQuery, head func(*OrgMatrix) error, row func(MatrixRow) error) error {
	q.After, q.Limit = "", 1
	q, err := q.normalize()
	if err != nil {
		return err
	}
	m, err := s.matrixColumns(ctx, orgID, q.GroupID)
	if err != nil {
		return err
	}
	rows, err := conn(ctx, s.db).Raw(matrixRowsSQL(q, "true", ""), matrixParams(orgID, q, nil)).Rows()
	if err != nil {
		return fmt.Errorf("matrix rows: %w", err)
	}
	defer rows.Close()
	if err := head(m); err != nil {
		return err
	}
	return foldMatrixRows(rows, m.Lessons, row)
}

// foldMatrixRows reads the rows of matrixRowsSQL into members and hands
// each to emit once its last cell is read. It scans the columns in their
// order itself: a thousand members × fifty lessons are 50,000 rows.
func foldMatrixRows(rows *sql.Rows, lessons []MatrixLesson, emit func(MatrixRow) error) error {
	f := newMatrixFolder(lessons)
	for rows.Next() {
		var r matrixCellRow
		p := &r.Progress
		if err := rows.Scan(&r.UserID, &r.Name, &r.SortName, &r.Email, &r.Assigned, &r.Done, &r.LessonID,
			&r.CheckRequired, &p.Read, &p.Checked, &p.Mastered, &p.Passed); err != nil {
			return fmt.Errorf("matrix row: %w", err)
		}
		if f.current != nil && f.current.UserID != r.UserID {
			if err := emit(*f.current); err != nil {
				return err
			}
			f.rows = f.rows[:0]
		}
		f.add(r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("matrix rows: %w", err)
	}
	if f.current != nil {
		return emit(*f.current)
	}
	return nil
}

// matrixParams are the named parameters of matrixRowsSQL.
func matrixParams(orgID string, q MatrixQuery, c *matrixCursor) map[string]any {
	p := map[string]any{"org": orgID, "group": q.GroupID, "cdone": 0, "cname": "", "cid": "00000000-0000-0000-0000-000000000000"}
	if c != nil {
		p["cdone"], p["cname"], p["cid"] = c.Done, c.Name, c.ID
	}
	return p
}

// matrixColumns checks the group is the organization's (ErrNotFound) and
// reads the lessons assigned to the whole organization or to the group
// (with none, to any group), by their earliest due date, then assignment
// and place in their path.
func (s *Organizations) matrixColumns(ctx context.Context, orgID string, groupID int64) (*OrgMatrix, error) {
	if !validID(orgID) {
		return nil, ErrNotFound
	}
	m := &OrgMatrix{}
	if groupID != 0 {
		g, err := s.Group(ctx, orgID, groupID)
		if err != nil {
			return nil, err
		}
		m.Group = g
	}
	err := conn(ctx, s.db).Raw(`SELECT l.id, l.title, l.language, lp.slug AS path_slug
		FROM (`+coveredLessons(matrixScope)+`) a
		JOIN lessons l ON l.id = a.lesson_id
		JOIN modules lm ON lm.id = l.module_id
		JOIN paths lp ON lp.id = lm.path_id
		GROUP BY l.id, l.title, l.language, lp.slug, lm.position, l.position
		ORDER BY min(a.due_on) NULLS LAST, min(a.id), lm.position, l.position, l.id`,
		map[string]any{"org": orgID, "group": groupID}).Scan(&m.Lessons).Error
	if err != nil {
		return nil, fmt.Errorf("matrix lessons: %w", err)
	}
	return m, nil
}

// matrixFolder folds the rows of matrixRowsSQL, ordered by member, into
// matrix rows with one cell per column.
type matrixFolder struct {
	column  map[string]int
	width   int
	rows    []MatrixRow
	current *MatrixRow
}

func newMatrixFolder(lessons []MatrixLesson) *matrixFolder {
	f := &matrixFolder{column: make(map[string]int, len(lessons)), width: len(lessons)}
	for i, l := range lessons {
		f.column[l.ID] = i
	}
	return f
}

// add puts one cell in its member's row, starting the row at its first cell.
func (f *matrixFolder) add(r matrixCellRow) {
	if f.current == nil || f.current.UserID != r.UserID {
		f.rows = append(f.rows, MatrixRow{UserID: r.UserID, Name: r.Name, Email: r.Email, sortName: r.SortName,
			Done: r.Done, Assigned: r.Assigned, Cells: make([]MatrixCell, f.width)})
		f.current = &f.rows[len(f.rows)-1]
	}
	i, ok := f.column[r.LessonID]
	if !ok {
		return
	}
	l := r.Progress.lesson()
	f.current.Cells[i] = MatrixCell{Assigned: true, State: l.State, Passed: l.Passed, CheckRequired: r.CheckRequired}
}

// done returns the rows folded.
func (f *matrixFolder) done() []MatrixRow { return f.rows }
