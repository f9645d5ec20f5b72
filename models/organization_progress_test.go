package models_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

// matrixFixture is organization A (Ana in group Red, bob, Cy) and B (Zed)
// on progressContent: the net path is assigned to all of A, g1 and l1 to
// Red with the check required, l3 to B. Ana read l1 and l2, failed a check
// on l1 and mastered g1; bob and Cy read l3.
type matrixFixture struct {
	db        *pgtest.DB
	orgs      *models.Organizations
	a, b      string
	red, blue int64
	ana, bob  string
	cy, zed   string
	now       time.Time
	by        string // who assigns (no member: a member would be a row)
}

func newMatrixFixture(t *testing.T) *matrixFixture {
	t.Helper()
	db := pgtest.New(t)
	progressContent(t, db)
	f := &fx{t: t, db: db}
	ctx, now := context.Background(), time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	m := &matrixFixture{db: db, orgs: models.NewOrganizations(db.DB), now: now}
	m.a, m.b = newOrg(t, m.orgs, "a", 10).ID, newOrg(t, m.orgs, "b", 10).ID
	member := func(org, name string) string {
		id := f.user(models.PlanCorporateUser)
		f.exec(`UPDATE users SET name = ? WHERE id = ?`, name, id)
		f.exec(`INSERT INTO organization_members (organization_id, user_id) VALUES (?, ?)`, org, id)
		return id
	}
	m.by = f.user(models.PlanFree)
	m.ana, m.bob, m.cy, m.zed = member(m.a, "Ana"), member(m.a, "bob"), member(m.a, "Cy"), member(m.b, "Zed")
	red, err := m.orgs.CreateGroup(ctx, m.a, "Red", now)
	if err != nil {
		t.Fatal(err)
	}
	blue, err := m.orgs.CreateGroup(ctx, m.b, "Blue", now)
	if err != nil {
		t.Fatal(err)
	}
	m.red, m.blue = red.ID, blue.ID
	if _, err := m.orgs.AddToGroup(ctx, m.a, m.red, []string{m.ana}, now); err != nil {
		t.Fatal(err)
	}
	for _, as := range []struct {
		org string
		n   models.NewAssignment
	}{
		{m.a, models.NewAssignment{PathID: 1}},
		{m.a, models.NewAssignment{GroupID: m.red, LessonIDs: []string{"g1", "l1"}, CheckRequired: true}},
		{m.b, models.NewAssignment{LessonIDs: []string{"l3"}}},
	} {
		if _, err := m.orgs.Assign(ctx, as.org, m.by, as.n, now); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []struct{ user, lesson string }{{m.ana, "l1"}, {m.ana, "l2"}, {m.bob, "l3"}, {m.cy, "l3"}} {
		f.exec(`INSERT INTO lesson_reads (user_id, lesson_id, read_at) VALUES (?, ?, ?)`, r.user, r.lesson, now)
	}
	f.exec(`INSERT INTO section_mastery (user_id, lesson_id, anchor, streak, last_verdict, mastered_at, last_checked_at, due_at) VALUES
		(?, 'l1', 'vlans', 0, 'not_yet', NULL, ?, ?), (?, 'g1', 'zero', 2, 'correct', ?, ?, ?)`,
		m.ana, now, now.Add(-time.Hour), m.ana, now, now, now.AddDate(0, 0, 5))
	return m
}

// matrixText writes a matrix as "name done/assigned: state… " per row, a
// cell as its state's first letters ("-" not assigned, "*" done).
func matrixText(m *models.OrgMatrix) string {
	var b strings.Builder
	for _, r := range m.Rows {
		b.WriteString(r.Name + " " + strconv.Itoa(r.Done) + "/" + strconv.Itoa(r.Assigned) + ":")
		for _, c := range r.Cells {
			switch {
			case !c.Assigned:
				b.WriteString(" -")
			case c.Done():
				b.WriteString(" " + c.State[:2] + "*")
			default:
				b.WriteString(" " + c.State[:2])
			}
		}
		b.WriteString("; ")
	}
	return b.String()
}

// The matrix shows each member's state on each assigned lesson (a path
// brings its lessons; a group's assignment only its members'), counts a
// lesson done as Assigned to you does (the check when required), filters
// by group and sorts both ways by name and by lessons done.
func TestOrgMatrixStatesFilterAndSort(t *testing.T) {
	m := newMatrixFixture(t)
	ctx := context.Background()
	all, err := m.orgs.Matrix(ctx, m.a, models.MatrixQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, l := range all.Lessons {
		cols = append(cols, l.ID)
	}
	if strings.Join(cols, ",") != "l1,l2,l3,g1" || all.Group != nil || all.Next != "" {
		t.Fatalf("columns %v, group %v, next %q", cols, all.Group, all.Next)
	}
	for _, tc := range []struct {
		name string
		q    models.MatrixQuery
		want string
	}{
		{"by name", models.MatrixQuery{}, "Ana 2/4: ch re* no ma*; bob 1/3: no no re* -; Cy 1/3: no no re* -; "},
		{"by name, Z to A", models.MatrixQuery{Desc: true}, "Cy 1/3: no no re* -; bob 1/3: no no re* -; Ana 2/4: ch re* no ma*; "},
		{"most done first", models.MatrixQuery{Sort: models.MatrixByDone, Desc: true}, "Ana 2/4: ch re* no ma*; bob 1/3: no no re* -; Cy 1/3: no no re* -; "},
		{"least done first", models.MatrixQuery{Sort: models.MatrixByDone}, "bob 1/3: no no re* -; Cy 1/3: no no re* -; Ana 2/4: ch re* no ma*; "},
		{"group Red", models.MatrixQuery{GroupID: m.red}, "Ana 2/4: ch re* no ma*; "},
	} {
		got, err := m.orgs.Matrix(ctx, m.a, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if s := matrixText(got); s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, s, tc.want)
		}
		for _, r := range got.Rows {
			n := 0
			for _, c := range r.Cells {
				if c.Done() {
					n++
				}
			}
			if n != r.Done {
				t.Errorf("%s: %s has %d cells done, the order counted %d", tc.name, r.Name, n, r.Done)
			}
		}
	}
	if b, err := m.orgs.Matrix(ctx, m.b, models.MatrixQuery{}); err != nil || matrixText(b) != "Zed 0/1: no; " {
		t.Errorf("organization B's matrix: %q %v", matrixText(b), err)
	}
}

// Pages follow each other by keyset in every order, ties on lessons done
// included, and together hold what the streamed whole matrix holds.
func TestOrgMatrixPagesAndStream(t *testing.T) {
	m := newMatrixFixture(t)
	ctx := context.Background()
	for _, q := range []models.MatrixQuery{{}, {Desc: true}, {Sort: models.MatrixByDone}, {Sort: models.MatrixByDone, Desc: true}} {
		var paged []string
		q.Limit = 1
		for range 5 {
			p, err := m.orgs.Matrix(ctx, m.a, q)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			for _, r := range p.Rows {
				paged = append(paged, r.Name)
			}
			if q.After = p.Next; p.Next == "" {
				break
			}
		}
		var streamed []string
		if err := m.orgs.MatrixEach(ctx, m.a, q, func(*models.OrgMatrix) error { return nil }, func(r models.MatrixRow) error {
			streamed = append(streamed, r.Name)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if strings.Join(paged, ",") != strings.Join(streamed, ",") || len(paged) != 3 {
			t.Errorf("%s desc=%v: pages %v, stream %v", q.Sort, q.Desc, paged, streamed)
		}
	}
}

// Another organization's group is not found; a cursor of another order,
// a forged one or an unknown order is refused.
func TestOrgMatrixRefusals(t *testing.T) {
	m := newMatrixFixture(t)
	ctx := context.Background()
	first, err := m.orgs.Matrix(ctx, m.a, models.MatrixQuery{Limit: 1})
	if err != nil || first.Next == "" {
		t.Fatalf("first page: %v, next %q", err, first.Next)
	}
	for _, tc := range []struct {
		name string
		q    models.MatrixQuery
		want error
	}{
		{"B's group", models.MatrixQuery{GroupID: m.blue}, models.ErrNotFound},
		{"no such group", models.MatrixQuery{GroupID: 999999}, models.ErrNotFound},
		{"a cursor of the name order sorting by done", models.MatrixQuery{Sort: models.MatrixByDone, After: first.Next}, models.ErrBadCursor},
		{"a cursor of A to Z for Z to A", models.MatrixQuery{Desc: true, After: first.Next}, models.ErrBadCursor},
		{"a forged cursor", models.MatrixQuery{After: "eyJzIjoibmFtZSJ9"}, models.ErrBadCursor},
		{"not base64", models.MatrixQuery{After: "%%%"}, models.ErrBadCursor},
		{"an unknown order", models.MatrixQuery{Sort: "email"}, models.ErrBadCursor},
	} {
		if _, err := m.orgs.Matrix(ctx, m.a, tc.q); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if err := m.orgs.MatrixEach(ctx, m.a, models.MatrixQuery{GroupID: m.blue}, nil, nil); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("streaming B's group: %v", err)
	}
	if _, err := m.orgs.Matrix(ctx, "not-an-id", models.MatrixQuery{}); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("a malformed organization id: %v", err)
	}
}

// The report on a member: activity, usage and progress counts, sections
// due and overdue assignments; another organization's member is not found.
func TestOrgMemberReport(t *testing.T) {
	m := newMatrixFixture(t)
	ctx := context.Background()
	f := &fx{t: t, db: m.db}
	f.exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 7), (?, ?, 40)`,
		m.ana, models.Period(m.now), m.ana, models.Period(m.now).AddDate(0, -1, 0))
	late := m.now.Add(2 * time.Hour)
	f.conv(m.ana, 0, "", late)
	due := m.now.AddDate(0, 0, -3)
	if _, err := m.orgs.Assign(ctx, m.a, m.by, models.NewAssignment{LessonIDs: []string{"l2"}, DueOn: &due}, m.now); err != nil {
		t.Fatal(err)
	}
	r, err := m.orgs.MemberReport(ctx, m.a, m.ana, m.now)
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "Ana" || r.Groups != "Red" || r.LastActive == nil || !r.LastActive.Equal(late) || r.QuestionsThisMonth != 7 {
		t.Errorf("Ana: %q in %q, last active %v, %d questions", r.Name, r.Groups, r.LastActive, r.QuestionsThisMonth)
	}
	if r.LessonsRead != 2 || r.LessonsChecked != 2 || r.LessonsMastered != 1 || r.SectionsDue != 1 {
		t.Errorf("Ana: read %d, checked %d, mastered %d, due %d; want 2, 2, 1, 1",
			r.LessonsRead, r.LessonsChecked, r.LessonsMastered, r.SectionsDue)
	}
	// l2 is read (done, not overdue); the Red assignment is undated.
	if len(r.Assignments) != 4 || r.Overdue != 0 {
		t.Errorf("Ana: %d assignments, %d overdue", len(r.Assignments), r.Overdue)
	}
	cy, err := m.orgs.MemberReport(ctx, m.a, m.cy, m.now)
	if err != nil || cy.Overdue != 1 || cy.LastActive == nil || cy.LessonsRead != 1 || cy.QuestionsThisMonth != 0 {
		t.Errorf("Cy: %+v %v", cy, err)
	}
	for _, tc := range []struct{ name, org, user string }{
		{"A's member asked by B", m.b, m.ana},
		{"B's member asked by A", m.a, m.zed},
		{"a malformed id", m.a, "x"},
		{"no such user", m.a, "00000000-0000-0000-0000-000000000001"},
	} {
		if _, err := m.orgs.MemberReport(ctx, tc.org, tc.user, m.now); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
