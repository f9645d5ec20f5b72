package models_test

import (
	"context"
	"reflect"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// The ratings page reads totals a trigger keeps; they must follow every
// change of a rating, not only the first one.
func TestRatingTotalsFollowChanges(t *testing.T) {
	db := pgtest.New(t)
	f := &fx{t: t, db: db}
	f.content()
	u := f.user("PRO")
	now := utc("2025-03-05 12:00:00")
	conv := f.conv(u, 1, "l1-vlans", now)
	meta := `{"citations":[{"kind":"lesson","lessonId":"l1-vlans","heading":"H what","anchor":"what"},
		{"kind":"lesson","lessonId":"l1-vlans","heading":"H what","anchor":"what"}]}`
	mid := f.id(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status, metadata, created_at)
		VALUES (?, ?, 1, 'assistant', 'a', 'complete', ?, ?) RETURNING id`, conv, u, meta, now)
	msgs := models.NewMessages(db.DB)
	stats := models.NewStats(db.DB)
	ctx := context.Background()

	type want struct {
		up, down int
		lessons  []models.LessonRating
		sections []models.SectionRating
	}
	steps := []struct {
		name                    string
		rating, reason, comment string
		want                    want
	}{
		{"up", "up", "", "", want{1, 0,
			[]models.LessonRating{{LessonID: "l1-vlans", Title: "VLANs", Up: 1}}, nil}},
		{"changed to down, unclear", "down", "lesson_unclear", "hm", want{0, 1,
			[]models.LessonRating{{LessonID: "l1-vlans", Title: "VLANs", Down: 1, Unclear: 1}},
			// The answer cites the section twice (two chunks of it): it counts once.
			[]models.SectionRating{{LessonID: "l1-vlans", LessonTitle: "VLANs", Heading: "H what", Anchor: "what", Down: 1, Unclear: 1}}}},
		{"reason changed to wrong", "down", "answer_wrong", "", want{0, 1,
			[]models.LessonRating{{LessonID: "l1-vlans", Title: "VLANs", Down: 1, Wrong: 1}},
			[]models.SectionRating{{LessonID: "l1-vlans", LessonTitle: "VLANs", Heading: "H what", Anchor: "what", Down: 1, Wrong: 1}}}},
		{"cleared", "", "", "", want{0, 0, nil, nil}},
	}
	for _, st := range steps {
		if err := msgs.Rate(ctx, u, mid, st.rating, st.reason, st.comment); err != nil {
			t.Fatalf("%s: rate: %v", st.name, err)
		}
		r, err := stats.AdminRatings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r.Up != st.want.up || r.Down != st.want.down {
			t.Errorf("%s: up/down %d/%d, want %d/%d", st.name, r.Up, r.Down, st.want.up, st.want.down)
		}
		if !reflect.DeepEqual(r.Lessons, st.want.lessons) {
			t.Errorf("%s: lessons %+v, want %+v", st.name, r.Lessons, st.want.lessons)
		}
		if !reflect.DeepEqual(r.Sections, st.want.sections) {
			t.Errorf("%s: sections %+v, want %+v", st.name, r.Sections, st.want.sections)
		}
	}

	// A regenerated answer loses its rating and its citations change with it.
	if err := msgs.Rate(ctx, u, mid, "down", "other", ""); err != nil {
		t.Fatal(err)
	}
	f.exec(`UPDATE messages SET rating = NULL, rating_reason = NULL, metadata = '{}' WHERE id = ?`, mid)
	var rows int
	f.db.Raw(`SELECT count(*) FROM section_rating_totals WHERE down <> 0`).Scan(&rows)
	if rows != 0 {
		t.Errorf("%d sections still count a 👎 that was cleared by a retry", rows)
	}
	// A deleted message leaves the totals.
	if err := msgs.Rate(ctx, u, mid, "up", "", ""); err != nil {
		t.Fatal(err)
	}
	f.exec(`DELETE FROM messages WHERE id = ?`, mid)
	r, err := stats.AdminRatings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Up != 0 || len(r.Lessons) != 0 {
		t.Errorf("after delete: up %d, lessons %+v", r.Up, r.Lessons)
	}
}

// TestDownChargesCitedSectionsOnly: an answer given five sections that
// links two is charged a 👎 on those two only; one citing none charges
// no section (its lesson's total takes it).
func TestDownChargesCitedSectionsOnly(t *testing.T) {
	db := pgtest.New(t)
	f := &fx{t: t, db: db}
	f.content()
	u := f.user("PRO")
	now := utc("2025-03-05 12:00:00")
	conv := f.conv(u, 1, "l1-vlans", now)
	cit := func(anchor string, cited bool) string {
		return `{"kind":"lesson","lessonId":"l1-vlans","heading":"H ` + anchor + `","anchor":"` + anchor + `","cited":` +
			map[bool]string{true: "true", false: "false"}[cited] + `}`
	}
	msgs := models.NewMessages(db.DB)
	ctx := context.Background()
	for i, meta := range []string{
		`{"citations":[` + cit("a", true) + `,` + cit("b", false) + `,` + cit("c", true) + `,` + cit("d", false) + `,` + cit("e", false) + `]}`,
		`{"citations":[` + cit("a", false) + `,` + cit("b", false) + `]}`,
	} {
		mid := f.id(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status, metadata, created_at)
			VALUES (?, ?, ?, 'assistant', 'a', 'complete', ?, ?) RETURNING id`, conv, u, 2*i+1, meta, now)
		if err := msgs.Rate(ctx, u, mid, "down", "answer_wrong", ""); err != nil {
			t.Fatal(err)
		}
	}
	r, err := models.NewStats(db.DB).AdminRatings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range r.Sections {
		got = append(got, s.Anchor)
	}
	if len(got) != 2 || got[0] == got[1] || (got[0] != "a" && got[0] != "c") || (got[1] != "a" && got[1] != "c") {
		t.Fatalf("sections charged %v, want a and c", got)
	}
	if len(r.Lessons) != 1 || r.Lessons[0].Down != 2 {
		t.Fatalf("lesson totals %+v, want both 👎 on the lesson", r.Lessons)
	}
}
