package models_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

// progressContent creates two paths: net (modules sw with l1, l2 and rt
// with l3) and go (module basics with g1), each lesson with its sections
// (l1's "vlans" section is split in two chunks, and counts once).
func progressContent(t *testing.T, db *pgtest.DB) {
	t.Helper()
	f := &fx{t: t, db: db}
	f.exec(`INSERT INTO paths (id, slug, title, language, position) VALUES (1, 'net', 'Networking', 'en', 1), (2, 'go', 'Go', 'en', 2)`)
	f.exec(`INSERT INTO modules (id, path_id, slug, title, position) VALUES
		(1, 1, 'sw', 'Switching', 1), (2, 1, 'rt', 'Routing', 2), (3, 2, 'basics', 'Basics', 1)`)
	f.exec(`INSERT INTO lessons (id, module_id, title, position, language, content_md, content_hash) VALUES
		('l1', 1, 'VLANs', 1, 'en', 'x', 'h'), ('l2', 1, 'Trunks', 2, 'en', 'x', 'h'),
		('l3', 2, 'Subnets', 1, 'en', 'x', 'h'), ('g1', 3, 'Variables', 1, 'en', 'x', 'h')`)
	f.exec(`INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash) VALUES
		('l1', 0, 'VLANs', '', 't', 'a'), ('l1', 1, 'VLANs', 'vlans', 't', 'b'), ('l1', 2, 'VLANs', 'vlans', 't', 'c'),
		('l1', 3, 'Tags', 'tags', 't', 'd'),
		('l2', 0, 'Trunks', 'intro', 't', 'e'), ('l2', 1, 'Native', 'native', 't', 'f'),
		('l3', 0, 'Subnets', 'intro', 't', 'g'),
		('g1', 0, 'Variables', 'intro', 't', 'h'), ('g1', 1, 'Zero', 'zero', 't', 'i')`)
}

func TestProgressFiguresPerPath(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	progressContent(t, db)
	f := &fx{t: t, db: db}
	ana, bob := f.user(models.PlanFree), f.user(models.PlanFree)
	p := models.NewProgress(db.DB)
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for _, r := range []struct{ user, path, lesson string }{
		{ana, "net", "l1"}, {ana, "net", "l3"}, {ana, "net", "l1"}, // twice: read once
		{bob, "net", "l2"}, {bob, "go", "g1"},
	} {
		if err := p.MarkRead(ctx, r.user, r.path, r.lesson, now); err != nil {
			t.Fatalf("mark %s read: %v", r.lesson, err)
		}
	}
	// Mastery as grading leaves it: ana checked l1's intro (anchor "", mastered),
	// vlans and tags (tags due), l3's intro and a section l3 no longer has
	// (not counted); bob mastered g1's zero.
	f.exec(`INSERT INTO section_mastery (user_id, lesson_id, anchor, streak, mastered_at, last_checked_at, due_at) VALUES
		(?, 'l1', '', 2, ?, ?, ?), (?, 'l1', 'vlans', 1, NULL, ?, ?), (?, 'l1', 'tags', 0, NULL, ?, ?),
		(?, 'l3', 'intro', 0, NULL, ?, ?), (?, 'l3', 'gone', 0, NULL, ?, ?),
		(?, 'g1', 'zero', 2, ?, ?, ?)`,
		ana, now, now, now.AddDate(0, 0, 3), ana, now, now.AddDate(0, 0, 1), ana, now, now.Add(-time.Hour),
		ana, now, now, ana, now, now.Add(-time.Hour),
		bob, now, now, now.Add(-time.Hour))
	var rows int
	db.Raw(`SELECT count(*) FROM lesson_reads`).Row().Scan(&rows)
	if rows != 4 {
		t.Fatalf("%d lesson_reads rows, want 4 (a second mark keeps one row)", rows)
	}

	catalog, err := models.NewContent(db.DB).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		user   string
		pathID int64
		want   map[string]models.ProgressTotals // by path slug
		module map[string]models.ProgressTotals // by module slug
	}{
		{"ana, every path", ana, 0,
			map[string]models.ProgressTotals{"net": {Lessons: 3, Read: 2, Sections: 6, Checked: 4, Mastered: 1}, "go": {Lessons: 1, Sections: 2}},
			map[string]models.ProgressTotals{"sw": {Lessons: 2, Read: 1, Sections: 5, Checked: 3, Mastered: 1}, "rt": {Lessons: 1, Read: 1, Sections: 1, Checked: 1}}},
		{"bob, every path", bob, 0,
			map[string]models.ProgressTotals{"net": {Lessons: 3, Read: 1, Sections: 6}, "go": {Lessons: 1, Read: 1, Sections: 2, Checked: 1, Mastered: 1}},
			map[string]models.ProgressTotals{"sw": {Lessons: 2, Read: 1, Sections: 5}, "rt": {Lessons: 1, Sections: 1}}},
		{"ana, the go path alone", ana, 2,
			map[string]models.ProgressTotals{"go": {Lessons: 1, Sections: 2}}, nil},
		{"bob, the net path alone", bob, 1,
			map[string]models.ProgressTotals{"net": {Lessons: 3, Read: 1, Sections: 6}}, nil},
		{"someone without a row", f.user(models.PlanFree), 1,
			map[string]models.ProgressTotals{"net": {Lessons: 3, Sections: 6}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := p.Lessons(ctx, tt.user, tt.pathID)
			if err != nil {
				t.Fatal(err)
			}
			for _, path := range catalog {
				want, ok := tt.want[path.Slug]
				if !ok {
					continue
				}
				if got := m.Path(path); got != want {
					t.Errorf("path %s: %+v, want %+v", path.Slug, got, want)
				}
				for _, mod := range path.Modules {
					if want, ok := tt.module[mod.Slug]; ok && m.Module(mod) != want {
						t.Errorf("module %s: %+v, want %+v", mod.Slug, m.Module(mod), want)
					}
				}
			}
		})
	}

	for _, tt := range []struct {
		user string
		want []models.SectionRef
	}{
		{ana, []models.SectionRef{{LessonID: "l1", Anchor: "tags"}, {LessonID: "l3", Anchor: "intro"}}},
		{bob, []models.SectionRef{{LessonID: "g1", Anchor: "zero"}}},
	} {
		due, err := p.Due(ctx, tt.user, now, 10)
		if err != nil || !reflect.DeepEqual(due, tt.want) {
			t.Errorf("due: %v %v, want %v", due, err, tt.want)
		}
		if r, err := p.Resume(ctx, tt.user, now); err != nil || r.Due != len(tt.want) {
			t.Errorf("resume counts %d due (%v), want %d", r.Due, err, len(tt.want))
		}
	}
	if due, _ := p.Due(ctx, ana, now, 1); len(due) != 1 || due[0].Anchor != "tags" {
		t.Errorf("due with a limit of 1: %v", due)
	}
	st, err := p.VisitLesson(ctx, ana, "l1", now)
	wantSections := map[string]models.SectionState{"": {Mastered: true}, "vlans": {}, "tags": {Due: true}}
	if err != nil || !st.Read || !reflect.DeepEqual(st.Sections, wantSections) {
		t.Errorf("ana on l1: %+v %v, want read and %v", st, err, wantSections)
	}
	if st, err := p.VisitLesson(ctx, bob, "l1", now); err != nil || len(st.Sections) != 0 || st.Read {
		t.Errorf("bob on l1: %+v %v, want nothing of ana's", st, err)
	}

	if err := p.MarkRead(ctx, ana, "go", "l1", now); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("a lesson marked under another path: %v, want ErrNotFound", err)
	}
	if err := p.MarkRead(ctx, ana, "net", "nope", now); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("an unknown lesson: %v, want ErrNotFound", err)
	}
}

func TestProgressVisitAndResume(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	progressContent(t, db)
	f := &fx{t: t, db: db}
	ana, bob := f.user(models.PlanFree), f.user(models.PlanFree)
	p := models.NewProgress(db.DB)
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

	if r, err := p.Resume(ctx, ana, now); err != nil || *r != (models.Resume{}) {
		t.Fatalf("resume before any visit: %+v %v, want nothing", r, err)
	}
	steps := []struct {
		user, lesson string
		wantRead     bool
	}{
		{ana, "l1", false},
		{bob, "g1", false},
		{ana, "l3", true}, // read before the visit
	}
	if err := p.MarkRead(ctx, ana, "net", "l3", now); err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		st, err := p.VisitLesson(ctx, s.user, s.lesson, now)
		if err != nil || st.Read != s.wantRead {
			t.Fatalf("visit %s: %+v %v, want read %v", s.lesson, st, err, s.wantRead)
		}
	}
	var visits int
	db.Raw(`SELECT count(*) FROM lesson_visits`).Row().Scan(&visits)
	if visits != 2 {
		t.Errorf("%d lesson_visits rows, want one per student (2)", visits)
	}
	exp, err := models.NewUsers(db.DB).Export(ctx, ana, now)
	if err != nil || len(exp.LessonsRead) != 1 || exp.LessonsRead[0].LessonID != "l3" ||
		len(exp.LessonVisits) != 1 || exp.LessonVisits[0].LessonID != "l3" {
		t.Errorf("ana's export: reads %v visits %v (%v), want l3 read and visited last", exp.LessonsRead, exp.LessonVisits, err)
	}
	// carol read the lesson she opened last: she goes on with the path's next one.
	carol := f.user(models.PlanFree)
	if err := p.MarkRead(ctx, carol, "net", "l1", now); err != nil {
		t.Fatal(err)
	}
	if _, err := p.VisitLesson(ctx, carol, "l1", now); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		user string
		want models.Resume
	}{
		{ana, models.Resume{LessonID: "l3", LessonTitle: "Subnets", PathSlug: "net", PathTitle: "Networking", Language: "en", Read: true}},
		{carol, models.Resume{LessonID: "l2", LessonTitle: "Trunks", PathSlug: "net", PathTitle: "Networking", Language: "en"}},
		{bob, models.Resume{LessonID: "g1", LessonTitle: "Variables", PathSlug: "go", PathTitle: "Go", Language: "en"}},
	} {
		if r, err := p.Resume(ctx, tt.user, now); err != nil || *r != tt.want {
			t.Errorf("resume: %+v %v, want %+v", r, err, tt.want)
		}
	}
}
