package models_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

// fx inserts the rows of a hand-computed fixture.
type fx struct {
	t  *testing.T
	db *pgtest.DB
	n  int
}

func (f *fx) exec(q string, args ...any) {
	f.t.Helper()
	if err := f.db.Exec(q, args...).Error; err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
}

func (f *fx) id(q string, args ...any) string {
	f.t.Helper()
	var id string
	if err := f.db.Raw(q, args...).Row().Scan(&id); err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
	return id
}

func (f *fx) user(plan string) string {
	f.n++
	return f.id(`INSERT INTO users (email, password_hash, name, plan) VALUES (?, 'x', ?, ?) RETURNING id`,
		fmt.Sprintf("u%d@example.com", f.n), fmt.Sprintf("User %d", f.n), plan)
}

// content creates a path with modules Switching (1) and Routing (2) and
// lessons l1-vlans (Switching) and l2-subnets (Routing).
func (f *fx) content() {
	f.exec(`INSERT INTO paths (id, slug, title, language) VALUES (1, 'net', 'Networking', 'en')`)
	f.exec(`INSERT INTO modules (id, path_id, slug, title, position) VALUES (1, 1, 'sw', 'Switching', 1), (2, 1, 'rt', 'Routing', 2)`)
	f.exec(`INSERT INTO lessons (id, module_id, title, language, content_md, content_hash) VALUES
		('l1-vlans', 1, 'VLANs', 'en', '# x', 'h1'), ('l2-subnets', 2, 'Subnets', 'en', '# y', 'h2')`)
}

// conv creates a conversation; module 0 means none, lesson "" none.
func (f *fx) conv(user string, module int64, lesson string, last time.Time) string {
	var mod *int64
	if module != 0 {
		mod = &module
	}
	var les *string
	mode := "tutor"
	if lesson != "" {
		les, mode = &lesson, "lesson"
	}
	return f.id(`INSERT INTO conversations (user_id, mode, lesson_id, module_id, next_seq, created_at, last_activity_at, title)
		VALUES (?, ?, ?, ?, 100, ?, ?, 'T') RETURNING id`, user, mode, les, mod, last.Add(-time.Hour), last)
}

// ask inserts a question at `at` and its answer with status.
func (f *fx) ask(conv, user string, at time.Time, status string) {
	f.t.Helper()
	f.n++
	seq := f.n * 2
	f.exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status, created_at) VALUES (?, ?, ?, 'user', 'q', 'complete', ?)`,
		conv, user, seq, at)
	f.exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status, created_at) VALUES (?, ?, ?, 'assistant', 'a', ?, ?)`,
		conv, user, seq+1, status, at.Add(time.Second))
}

func utc(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func TestStudentStatsAgainstHandComputedFixture(t *testing.T) {
	db := pgtest.New(t)
	f := &fx{t: t, db: db}
	f.content()
	u, other := f.user("FREE"), f.user("FREE")
	// Now is Wednesday 5 March 2025: the week began Monday 3 March, the month Saturday 1 March.
	now := utc("2025-03-05 12:00:00")
	c1 := f.conv(u, 1, "l1-vlans", utc("2025-03-05 09:00:00")) // Switching
	c2 := f.conv(u, 2, "", utc("2025-03-03 00:00:00"))         // Routing
	c3 := f.conv(u, 0, "", utc("2025-03-04 10:00:00"))         // no module
	c4 := f.conv(u, 2, "", utc("2025-03-04 11:00:00"))         // Routing, deleted below
	co := f.conv(other, 2, "", now)
	f.ask(c1, u, utc("2025-01-12 23:59:59"), "complete") // the week before the 8 weeks: nowhere
	f.ask(c1, u, utc("2025-01-13 00:00:00"), "complete") // first second of the first week
	f.ask(c1, u, utc("2025-02-28 23:59:59"), "complete") // February: week of 24 Feb only
	f.ask(c1, u, utc("2025-03-01 00:00:00"), "complete") // March 1 (Saturday), week of 24 Feb
	f.ask(c2, u, utc("2025-03-01 18:00:00"), "complete") // same day: one session
	f.ask(c2, u, utc("2025-03-02 23:59:59"), "complete") // Sunday, last second of the week of 24 Feb
	f.ask(c2, u, utc("2025-03-03 00:00:00"), "complete") // Monday: this week
	f.ask(c3, u, utc("2025-03-04 10:00:00"), "complete") // no module
	f.ask(c4, u, utc("2025-03-04 11:00:00"), "complete") // deleted thread still counts
	f.ask(c1, u, utc("2025-03-05 09:00:00"), "failed")   // refunded: not counted
	f.ask(co, other, utc("2025-03-04 12:00:00"), "complete")
	f.exec(`UPDATE conversations SET deleted_at = ? WHERE id = ?`, now, c4)

	st, err := models.NewStats(db.DB).Student(context.Background(), u, now)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: March days with a counted question are 1, 2, 3 and 4 (the
	// 5th has only the failed one); March questions are 6; Routing has 4
	// of them (two on c2 on the 1st and 2nd, one on the 3rd, c4), Switching 1.
	if st.SessionsThisMonth != 4 || st.QuestionsThisMonth != 6 || st.TopModule != "Routing" || st.TopModuleQuestions != 4 {
		t.Errorf("sessions %d questions %d top %q (%d), want 4, 6, Routing (4)",
			st.SessionsThisMonth, st.QuestionsThisMonth, st.TopModule, st.TopModuleQuestions)
	}
	var got []int
	var starts []string
	for _, w := range st.Weeks {
		got = append(got, w.Questions)
		starts = append(starts, w.Start.Format("01-02"))
	}
	if want := []int{1, 0, 0, 0, 0, 0, 4, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("weekly %v, want %v", got, want)
	}
	if want := []string{"01-13", "01-20", "01-27", "02-03", "02-10", "02-17", "02-24", "03-03"}; !reflect.DeepEqual(starts, want) {
		t.Errorf("week starts %v, want %v", starts, want)
	}

	// At the first second of April, March is over: no session yet this month.
	st, err = models.NewStats(db.DB).Student(context.Background(), u, utc("2025-04-01 00:00:00"))
	if err != nil {
		t.Fatal(err)
	}
	if st.SessionsThisMonth != 0 || st.QuestionsThisMonth != 0 || st.TopModule != "" {
		t.Errorf("on 1 April: %+v, want an empty month", st)
	}
	// The other user sees only their own.
	st, _ = models.NewStats(db.DB).Student(context.Background(), other, now)
	if st.QuestionsThisMonth != 1 || st.SessionsThisMonth != 1 {
		t.Errorf("other user: %+v", st)
	}
}

func TestHistoryKeysetNewestFirst(t *testing.T) {
	db := pgtest.New(t)
	f := &fx{t: t, db: db}
	f.content()
	u, other := f.user("FREE"), f.user("FREE")
	tie := utc("2025-03-04 10:00:00")
	c1 := f.conv(u, 1, "l1-vlans", utc("2025-03-05 09:00:00"))
	c3 := f.conv(u, 0, "", tie)
	c5 := f.conv(u, 1, "", tie)
	c2 := f.conv(u, 2, "", utc("2025-03-03 00:00:00"))
	gone := f.conv(u, 2, "", utc("2025-03-06 00:00:00"))
	f.exec(`UPDATE conversations SET deleted_at = now() WHERE id = ?`, gone)
	f.exec(`INSERT INTO conversations (user_id, next_seq, last_activity_at) VALUES (?, 0, ?)`, u, utc("2025-03-07 00:00:00")) // empty
	f.conv(other, 1, "", utc("2025-03-08 00:00:00"))
	first, second := c3, c5
	if c5 > c3 { // ties go by id, descending
		first, second = c5, c3
	}
	s := models.NewStats(db.DB)
	ctx := context.Background()
	var seen []string
	var cur *models.ConversationCursor
	for page := 0; ; page++ {
		items, next, err := s.History(ctx, u, cur, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			seen = append(seen, it.ID)
		}
		if page == 0 && (items[0].ModuleTitle != "Switching" || items[0].LessonTitle != "VLANs") {
			t.Errorf("first item module %q lesson %q", items[0].ModuleTitle, items[0].LessonTitle)
		}
		if next == nil {
			break
		}
		// The cursor survives its text form.
		cur, err = models.ParseCursor(models.EncodeCursor(*next))
		if err != nil || !cur.LastActivityAt.Equal(next.LastActivityAt) || cur.ID != next.ID {
			t.Fatalf("cursor round trip: %v %+v %+v", err, cur, next)
		}
	}
	if want := []string{c1, first, second, c2}; !reflect.DeepEqual(seen, want) {
		t.Errorf("history %v, want %v", seen, want)
	}
	for _, bad := range []string{"", "x", "!!!", "MTIz", models.EncodeCursor(models.ConversationCursor{ID: "nope"})} {
		if _, err := models.ParseCursor(bad); !errors.Is(err, models.ErrBadCursor) {
			t.Errorf("ParseCursor(%q) = %v, want ErrBadCursor", bad, err)
		}
	}
}

func TestAdminOverviewAgainstHandComputedFixture(t *testing.T) {
	db := pgtest.New(t)
	f := &fx{t: t, db: db}
	f.content()
	now := utc("2025-03-05 12:00:00")
	s1, s2, s3, s4, adm := f.user("FREE"), f.user("PRO"), f.user("STARTER"), f.user("STARTER"), f.user("SUPER_ADMIN")
	conv := map[string]string{}
	for _, u := range []string{s1, s2, s3, s4, adm} {
		conv[u] = f.conv(u, 1, "", now)
	}
	f.ask(conv[s1], s1, utc("2025-03-05 09:00:00"), "complete")
	f.ask(conv[s1], s1, utc("2025-02-10 08:00:00"), "failed")   // failures are still questions asked
	f.ask(conv[s2], s2, utc("2025-02-26 12:00:00"), "complete") // exactly 7 days ago: outside the 7
	f.ask(conv[s3], s3, utc("2025-02-03 12:00:00"), "complete") // exactly 30 days ago: outside both
	f.ask(conv[s4], s4, utc("2025-02-26 12:00:01"), "complete") // just inside the 7
	f.ask(conv[adm], adm, utc("2025-03-05 10:00:00"), "complete")
	f.exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, '2025-03-01', 5), (?, '2025-03-01', 7), (?, '2025-02-01', 9)`, s1, adm, s2)

	o, err := models.NewStats(db.DB).AdminOverview(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	if o.Active7 != 2 || o.Active30 != 3 {
		t.Errorf("active 7/30 = %d/%d, want 2/3 (s1, s4 / s1, s2, s4; admins are not students)", o.Active7, o.Active30)
	}
	if len(o.Days) != 30 || !o.Days[0].Day.Equal(utc("2025-02-04 00:00:00")) || !o.Days[29].Day.Equal(utc("2025-03-05 00:00:00")) {
		t.Fatalf("days %d from %v to %v, want 30 from 4 Feb to 5 Mar", len(o.Days), o.Days[0].Day, o.Days[len(o.Days)-1].Day)
	}
	want := make([]int, 30)
	want[6], want[22], want[29] = 1, 2, 2 // 10 Feb; 26 Feb (s2, s4); 5 Mar (s1, admin)
	var got []int
	for _, d := range o.Days {
		got = append(got, d.Questions)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("per day %v, want %v", got, want)
	}
	plans := map[string][2]int{}
	for _, p := range o.ByPlan {
		plans[p.Plan] = [2]int{p.Users, p.Questions}
	}
	if len(o.ByPlan) != len(models.Plans) || plans["FREE"] != [2]int{1, 5} || plans["PRO"] != [2]int{1, 0} ||
		plans["STARTER"] != [2]int{2, 0} || plans["SUPER_ADMIN"] != [2]int{1, 7} || plans["ELITE"] != [2]int{0, 0} {
		t.Errorf("by plan %v", plans)
	}
}

func TestAdminRatingsAgainstHandComputedFixture(t *testing.T) {
	db := pgtest.New(t)
	f := &fx{t: t, db: db}
	f.content()
	u := f.user("PRO")
	now := utc("2025-03-05 12:00:00")
	cA, cB, cC := f.conv(u, 1, "l1-vlans", now), f.conv(u, 2, "l2-subnets", now), f.conv(u, 0, "", now)
	cite := func(parts ...string) string {
		var cs []string
		for _, p := range parts {
			kind, rest, _ := strings.Cut(p, ":")
			lesson, anchor, _ := strings.Cut(rest, "#")
			cs = append(cs, fmt.Sprintf(`{"kind":%q,"chunkId":1,"lessonId":%q,"heading":"H %s","anchor":%q,"hash":"x"}`, kind, lesson, anchor, anchor))
		}
		return `{"citations":[` + strings.Join(cs, ",") + `]}`
	}
	seq := 0
	rate := func(conv, rating string, reason any, comment string, ratedAt time.Time, meta string) {
		seq++
		f.exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status, rating, rating_reason, rating_comment, rated_at, metadata, created_at)
			VALUES (?, ?, ?, 'assistant', 'a', 'complete', ?, ?, ?, ?, ?, ?)`, conv, u, seq, rating, reason, comment, ratedAt, meta, ratedAt)
	}
	rate(cA, "up", nil, "", now, cite("lesson:l1-vlans#what"))
	rate(cA, "up", nil, "", now, "{}")
	rate(cA, "down", "lesson_unclear", "confusing", now.Add(-3*time.Hour), cite("lesson:l1-vlans#what", "lesson:l1-vlans#why"))
	rate(cA, "down", "answer_wrong", "wrong mask", now.Add(-2*time.Hour), cite("lesson:l1-vlans#what"))
	rate(cA, "down", nil, "", now, "{}")
	rate(cB, "up", nil, "", now, "{}")
	rate(cB, "down", "answer_wrong", "bad", now.Add(-time.Hour), cite("lesson:l2-subnets#mask", "help:help-x#h"))
	rate(cC, "up", nil, "", now, "{}")
	rate(cC, "down", "other", "meh", now, cite("lesson:l1-vlans#why"))
	f.exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status, metadata) VALUES (?, ?, 99, 'assistant', 'a', 'complete', ?)`,
		cA, u, cite("lesson:l1-vlans#what")) // unrated: nowhere

	r, err := models.NewStats(db.DB).AdminRatings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Up != 4 || r.Down != 5 {
		t.Errorf("up/down %d/%d, want 4/5", r.Up, r.Down)
	}
	wantLessons := []models.LessonRating{
		{LessonID: "l1-vlans", Title: "VLANs", Up: 2, Down: 3, Unclear: 1, Wrong: 1, Other: 1},
		{LessonID: "l2-subnets", Title: "Subnets", Up: 1, Down: 1, Wrong: 1},
	}
	if !reflect.DeepEqual(r.Lessons, wantLessons) {
		t.Errorf("lessons %+v, want %+v", r.Lessons, wantLessons)
	}
	wantSections := []models.SectionRating{
		{LessonID: "l1-vlans", LessonTitle: "VLANs", Heading: "H what", Anchor: "what", Down: 2, Unclear: 1, Wrong: 1},
		{LessonID: "l1-vlans", LessonTitle: "VLANs", Heading: "H why", Anchor: "why", Down: 2, Unclear: 1, Other: 1},
		{LessonID: "l2-subnets", LessonTitle: "Subnets", Heading: "H mask", Anchor: "mask", Down: 1, Wrong: 1},
	}
	if !reflect.DeepEqual(r.Sections, wantSections) {
		t.Errorf("sections %+v, want %+v", r.Sections, wantSections)
	}
	var unclear, wrong []string
	for _, c := range r.Unclear {
		unclear = append(unclear, c.Comment)
	}
	for _, c := range r.Wrong {
		wrong = append(wrong, c.Comment+"@"+c.LessonTitle)
	}
	if !reflect.DeepEqual(unclear, []string{"confusing"}) || !reflect.DeepEqual(wrong, []string{"bad@Subnets", "wrong mask@VLANs"}) {
		t.Errorf("comments unclear %v wrong %v", unclear, wrong)
	}
}

func TestAdminLatencyAgainstHandComputedFixture(t *testing.T) {
	db := pgtest.New(t)
	f := &fx{t: t, db: db}
	u := f.user("PRO")
	now := utc("2025-03-05 12:00:00")
	c := f.conv(u, 0, "", now)
	seq := 0
	answer := func(provider, model, status string, ttft, total any, at time.Time, code string) {
		seq++
		f.exec(`INSERT INTO messages (conversation_id, user_id, seq, role, status, provider, model, ttft_ms, latency_ms, error_code, created_at)
			VALUES (?, ?, ?, 'assistant', ?, ?, ?, ?, ?, ?, ?)`, c, u, seq, status, provider, model, ttft, total, code, at)
	}
	for i, ms := range []int{100, 200, 300, 400} {
		answer("offline", "offline-tutor", "complete", ms, ms*10, now.Add(-time.Duration(i+1)*time.Hour), "")
	}
	answer("offline", "offline-tutor", "failed", nil, nil, now.Add(-30*time.Minute), "timeout")
	answer("openai", "gpt-4o-mini", "complete", 50, 500, now.Add(-time.Minute), "")
	answer("offline", "offline-tutor", "complete", 9000, 90000, now.Add(-8*24*time.Hour), "")          // older than 7 days
	answer("offline", "offline-tutor", "failed", nil, nil, now.Add(-8*24*time.Hour), "upstream_error") // old failure
	answer("", "", "streaming", nil, nil, now.Add(-time.Second), "")                                   // not finished

	l, err := models.NewStats(db.DB).AdminLatency(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Rows) != 2 {
		t.Fatalf("rows %+v, want offline and openai", l.Rows)
	}
	// percentile_cont over 100..400: p50 = 250; p95 = 300 + 0.85 × 100 = 385.
	off, oai := l.Rows[0], l.Rows[1]
	f64 := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return math.Round(*p)
	}
	if off.Provider != "offline" || off.Answers != 5 || off.Failed != 1 || f64(off.TTFTp50) != 250 || f64(off.TTFTp95) != 385 ||
		f64(off.Totalp50) != 2500 || f64(off.Totalp95) != 3850 {
		t.Errorf("offline %+v p50 %v p95 %v total %v %v", off, f64(off.TTFTp50), f64(off.TTFTp95), f64(off.Totalp50), f64(off.Totalp95))
	}
	if oai.Provider != "openai" || oai.Answers != 1 || oai.Failed != 0 || f64(oai.TTFTp50) != 50 || f64(oai.Totalp95) != 500 {
		t.Errorf("openai %+v", oai)
	}
	if l.Failed != 1 || len(l.Recent) != 2 || l.Recent[0].ErrorCode != "timeout" || l.Recent[1].ErrorCode != "upstream_error" {
		t.Errorf("failed %d recent %+v", l.Failed, l.Recent)
	}
}

func TestPlanChangeAudit(t *testing.T) {
	db := pgtest.New(t)
	f := &fx{t: t, db: db}
	adm, u := f.user("SUPER_ADMIN"), f.user("FREE")
	a := models.NewAudit(db.DB)
	ctx := context.Background()
	at := utc("2025-03-05 12:00:00")
	ch, err := a.ChangePlan(ctx, adm, u, "PRO", at)
	if err != nil || ch == nil || ch.FromPlan != "FREE" || ch.ToPlan != "PRO" {
		t.Fatalf("change: %+v %v", ch, err)
	}
	if ch, err := a.ChangePlan(ctx, adm, u, "PRO", at); err != nil || ch != nil {
		t.Errorf("same plan: %+v %v, want nothing recorded", ch, err)
	}
	if _, err := a.ChangePlan(ctx, adm, u, "GOLD", at); !errors.Is(err, models.ErrUnknownPlan) {
		t.Errorf("unknown plan: %v", err)
	}
	if _, err := a.ChangePlan(ctx, adm, "00000000-0000-0000-0000-000000000000", "PRO", at); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("unknown user: %v", err)
	}
	var plan string
	db.Raw(`SELECT plan FROM users WHERE id = ?`, u).Row().Scan(&plan)
	log, err := a.Recent(ctx, 10)
	if err != nil || plan != "PRO" || len(log) != 1 || log[0].ChangedByEmail != "u1@example.com" || log[0].UserEmail != "u2@example.com" ||
		!log[0].CreatedAt.Equal(at) || log[0].FromPlan != "FREE" || log[0].ToPlan != "PRO" {
		t.Errorf("plan %s, log %+v %v", plan, log, err)
	}
}

func TestSuggestionsSaveValidates(t *testing.T) {
	db := pgtest.New(t)
	f := &fx{t: t, db: db}
	f.content()
	s := models.NewSuggestions(db.DB)
	ctx := context.Background()
	ok := [3]string{" One? ", "Two?", strings.Repeat("é", 200)}
	if err := s.Save(ctx, "l1-vlans", ok); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][3]string{{"", "b", "c"}, {"a", "   ", "c"}, {"a", "b", strings.Repeat("x", 201)}} {
		if err := s.Save(ctx, "l1-vlans", bad); !errors.Is(err, models.ErrInvalidSuggestion) {
			t.Errorf("Save(%q) = %v, want ErrInvalidSuggestion", bad, err)
		}
	}
	if err := s.Save(ctx, "no-such", ok); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("unknown lesson: %v", err)
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != 2 || list[0].Suggestions != [3]string{"One?", "Two?", strings.Repeat("é", 200)} || list[1].Suggestions != [3]string{} {
		t.Errorf("list %+v %v", list, err)
	}
}
