package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/webtest"
)

// Without JavaScript, "Mark as done" is a plain form: it answers 303 to the
// lesson's end, which then says "Read ✓", and the path and the catalog
// count the lesson read.
func TestMarkLessonDoneWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "pass-phrase-1", "FREE")
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	lesson := c.Get("/learn/networking/vlan-basics")
	form := lesson.Doc.Find("form#read-state")
	if form.AttrOr("method", "") != "post" || form.AttrOr("action", "") != "/learn/networking/vlan-basics/read" || form.Find("#mark-done").Length() != 1 {
		t.Fatalf("no Mark as done form at the lesson's end: %q", lesson.Text("#lesson-end"))
	}
	if got := lesson.Text("#next-lesson"); got != "Configuring VLANs on Cisco IOS →" {
		t.Errorf("next lesson suggested: %q", got)
	}

	if r := postNoFollow(t, c, "/learn/networking/vlan-basics/read", lesson.CSRF()); r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/learn/networking/vlan-basics#lesson-end" {
		t.Fatalf("mark as done: %d to %q, want 303 to the lesson's end", r.StatusCode, r.Header.Get("Location"))
	}
	after := c.Get("/learn/networking/vlan-basics")
	if after.Text("#read-state") != "Read ✓" || after.Doc.Find("#mark-done").Length() != 0 {
		t.Errorf("after marking: %q", after.Text("#lesson-end"))
	}
	if got := c.Get("/learn/networking").Text("#li-vlan-basics .read-badge"); got != "Read ✓" {
		t.Errorf("the path does not show the lesson read: %q", got)
	}
	if got := c.Get("/learn").Text("#progress-networking .progress-read"); got != "1 of 4 lessons read" {
		t.Errorf("the catalog says %q", got)
	}

	// HTMX (the end scrolled into view) gets the read state alone.
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/learn/networking/subnetting/read", strings.NewReader("_csrf="+lesson.CSRF()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	if r := c.Do(req); r.Status != http.StatusOK || strings.Contains(r.Body, "<html") || r.Text("#read-state") != "Read ✓" {
		t.Errorf("HTMX mark: %d %.200s", r.Status, r.Body)
	}

	for _, bad := range []string{"/learn/go-basics/vlan-basics/read", "/learn/networking/nope/read"} {
		if r := c.Post(bad, url.Values{"_csrf": {lesson.CSRF()}}); r.Status != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", bad, r.Status)
		}
	}
	if r := c.Post("/learn/networking/routing-basics/read", nil); r.Status != http.StatusForbidden {
		t.Errorf("a mark without the CSRF token: %d, want 403", r.Status)
	}
	var reads int
	s.DB.Raw(`SELECT count(*) FROM lesson_reads`).Row().Scan(&reads)
	if reads != 2 {
		t.Errorf("%d lessons read, want the 2 marked", reads)
	}
}

// postNoFollow posts the CSRF token to path and returns the response itself, not where it redirects.
func postNoFollow(t *testing.T, c *webtest.Client, path, csrf string) *http.Response {
	t.Helper()
	hc := *c.HTTP
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	r, err := hc.PostForm(c.Base+path, url.Values{"_csrf": {csrf}})
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	return r
}

// /learn and /dashboard offer to go on with the lesson opened last, in
// the student's language; nothing before any lesson was opened.
func TestContinueWhereYouLeftOff(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "pass-phrase-1", "FREE")
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	for _, page := range []string{"/learn", "/dashboard"} {
		if c.Get(page).Doc.Find("#resume").Length() != 0 {
			t.Errorf("%s offers to continue before any lesson was opened", page)
		}
	}
	c.Get("/learn/networking/subnetting")
	c.Get("/learn/go-basics/go-functions-errors")
	tests := []struct {
		lang, page, wantLink, wantLesson string
	}{
		{"en", "/learn", "Continue where you left off", "Functions and errors"},
		{"en", "/dashboard", "Continue where you left off", "Functions and errors"},
		{"es", "/learn", "Continúa donde lo dejaste", "Functions and errors"},
		{"es", "/dashboard", "Continúa donde lo dejaste", "Functions and errors"},
	}
	for _, tt := range tests {
		t.Run(tt.lang+tt.page, func(t *testing.T) {
			c.Lang = tt.lang
			p := c.Get(tt.page)
			a := p.Doc.Find("#resume a#resume-link")
			if a.AttrOr("href", "") != "/learn/go-basics/go-functions-errors" || a.Text() != tt.wantLink {
				t.Errorf("continue link %q %q", a.AttrOr("href", ""), a.Text())
			}
			if !strings.Contains(p.Text("#resume"), tt.wantLesson) {
				t.Errorf("resume box %q lacks %q", p.Text("#resume"), tt.wantLesson)
			}
		})
	}
}

// One student's reads and visits never show on another's pages.
func TestProgressIsTheStudentsOwn(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "pass-phrase-1", "FREE")
	s.User(t, "bob@example.com", "pass-phrase-1", "FREE")
	ana := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	bob := s.SignIn(t, "bob@example.com", "pass-phrase-1")
	for _, l := range []string{"vlan-basics", "vlan-cisco-ios"} {
		ana.Submit(ana.Get("/learn/networking/"+l), "form#read-state", nil)
	}
	if got := ana.Get("/learn").Text("#progress-networking .progress-read"); got != "2 of 4 lessons read" {
		t.Fatalf("ana's catalog: %q", got)
	}
	pages := []struct{ url, sel, want string }{
		{"/learn", "#progress-networking .progress-read", "0 of 4 lessons read"},
		{"/learn/networking", "#progress-mod-switching .progress-read", "0 of 2 lessons read"},
		{"/learn/networking", ".read-badge", ""},
		{"/learn", "#resume", ""},
		{"/dashboard", "#resume", ""},
		{"/learn/networking/vlan-basics", "#read-state", "Mark as done"}, // last: it is a visit
	}
	for _, p := range pages {
		t.Run(p.url+" "+p.sel, func(t *testing.T) {
			if got := bob.Get(p.url).Text(p.sel); got != p.want {
				t.Errorf("bob sees %q, want %q", got, p.want)
			}
		})
	}
}

// The catalog, a path and /dashboard run a fixed number of statements with
// progress on them, however many lessons there are and however many the
// student has read or been checked on.
func TestProgressPagesStatementsDoNotGrowWithLessons(t *testing.T) {
	s := apptest.New(t)
	ana := s.User(t, "ana@example.com", "pass-phrase-1", "FREE")
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	pages := []struct {
		url  string
		max  int64
		want string
	}{
		{"/learn", 7, "#progress-go-basics"},
		{"/learn/go-basics", 7, "#progress-go-basics"},
		{"/dashboard", 8, "#resume"},
	}
	count := func(url, want string) int64 {
		t.Helper()
		s.SQLs.Store(0)
		p := c.Get(url)
		if p.Status != http.StatusOK || p.Doc.Find(want).Length() != 1 {
			t.Fatalf("%s: status %d, %s missing", url, p.Status, want)
		}
		return s.SQLs.Load()
	}
	c.Get("/learn/go-basics/go-concurrency") // warm the session, and something to continue
	before := map[string]int64{}
	for _, p := range pages {
		before[p.url] = count(p.url, p.want)
		t.Logf("%s runs %d SQL statements", p.url, before[p.url])
		if before[p.url] > p.max {
			t.Errorf("%s runs %d statements, want at most %d", p.url, before[p.url], p.max)
		}
	}
	files := map[string]string{}
	for i := 1; i <= 100; i++ {
		id := fmt.Sprintf("extra-%03d", i)
		files["extra/"+id+".md"] = goBasicsHeader(id, "extra", 2, i) + "\nExercise.\n\n## Part one\n\nText.\n"
	}
	importFiles(t, s, files)
	csrf := c.Get("/learn/go-basics").CSRF()
	for i := 1; i <= 100; i += 3 {
		c.Post(fmt.Sprintf("/learn/go-basics/extra-%03d/read", i), url.Values{"_csrf": {csrf}})
		masteryRow(t, s, ana.ID, fmt.Sprintf("extra-%03d", i), "part-one", nil, time.Now(), time.Now().Add(-time.Hour))
	}
	for _, p := range pages {
		if after := count(p.url, p.want); after != before[p.url] {
			t.Errorf("%s ran %d statements with 3 lessons and %d with 103", p.url, before[p.url], after)
		}
	}
	if got := c.Get("/learn/go-basics").Text("#progress-go-basics .progress-read"); got != "34 of 103 lessons read" {
		t.Errorf("after the reads: %q", got)
	}
	if got := c.Get("/dashboard").Text("#review-form button"); got != "Review 34 sections due" {
		t.Errorf("after the checks: %q", got)
	}
}

// masteryRow stores a student's mastery of a section as grading leaves it
// (mastered nil: not mastered).
func masteryRow(t *testing.T, s *apptest.Server, userID, lessonID, anchor string, mastered *time.Time, checked, due time.Time) {
	t.Helper()
	if err := s.DB.Exec(`INSERT INTO section_mastery (user_id, lesson_id, anchor, mastered_at, last_checked_at, due_at)
		VALUES (?, ?, ?, ?, ?, ?)`, userID, lessonID, anchor, mastered, checked, due).Error; err != nil {
		t.Fatal(err)
	}
}

// The lesson page marks each section the student was checked on, under
// its heading, in words: mastered, due for review, or checked; another
// student's lesson shows none of it.
func TestLessonMarksSectionsMasteredOrDue(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	s := apptest.New(t, at(now))
	ana := s.User(t, "ana@example.com", "pass-phrase-1", "FREE")
	s.User(t, "bob@example.com", "pass-phrase-1", "FREE")
	for _, m := range []struct {
		anchor   string
		mastered bool
		due      time.Time
	}{
		{"", false, now.AddDate(0, 0, 1)},                            // the intro, checked
		{"access-ports-and-trunk-ports", true, now.AddDate(0, 0, 3)}, // mastered
		{"vlans-and-ip-subnets", false, now.Add(-time.Hour)},         // due
		{"summary-of-key-terms", true, now.Add(-time.Minute)},        // mastered and due again
	} {
		var mastered *time.Time
		if m.mastered {
			mastered = &now
		}
		masteryRow(t, s, ana.ID, "vlan-basics", m.anchor, mastered, now, m.due)
	}
	tests := []struct {
		lang, anchor, want string
	}{
		{"en", "", "Checked"},
		{"en", "access-ports-and-trunk-ports", "Mastered ✓"},
		{"en", "vlans-and-ip-subnets", "Due for review"},
		{"en", "summary-of-key-terms", "Mastered ✓ Due for review"},
		{"es", "vlans-and-ip-subnets", "Toca repasar"},
		{"es", "access-ports-and-trunk-ports", "Dominada ✓"},
	}
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	for _, tt := range tests {
		t.Run(tt.lang+"/"+tt.anchor, func(t *testing.T) {
			c.Lang = tt.lang
			p := c.Get("/learn/networking/vlan-basics")
			st := p.Doc.Find(fmt.Sprintf(`.section-state[data-section=%q]`, tt.anchor))
			if got := strings.Join(strings.Fields(st.Text()), " "); got != tt.want {
				t.Errorf("section %q: %q, want %q", tt.anchor, got, tt.want)
			}
			if tt.anchor != "" && st.Prev().AttrOr("id", "") != tt.anchor {
				t.Errorf("section %q: the state follows %q, not its heading", tt.anchor, st.Prev().AttrOr("id", ""))
			}
		})
	}
	if n := c.Get("/learn/networking/vlan-basics").Doc.Find(".section-state").Length(); n != 4 {
		t.Errorf("%d section states, want the 4 checked", n)
	}
	var sections int
	s.DB.Raw(`SELECT count(DISTINCT (c.lesson_id, c.anchor)) FROM lesson_chunks c JOIN lessons l ON l.id = c.lesson_id
		JOIN modules m ON m.id = l.module_id JOIN paths p ON p.id = m.path_id WHERE p.slug = 'networking'`).Row().Scan(&sections)
	c.Lang = "en"
	if got, want := c.Get("/learn").Text("#progress-networking .progress-sections"), fmt.Sprintf("4 of %d sections checked, 2 mastered", sections); got != want {
		t.Errorf("the catalog says %q, want %q", got, want)
	}
	bob := s.SignIn(t, "bob@example.com", "pass-phrase-1")
	if n := bob.Get("/learn/networking/vlan-basics").Doc.Find(".section-state").Length(); n != 0 {
		t.Errorf("bob sees %d of ana's section states", n)
	}
}

// "Review N sections due" on /learn and /dashboard is a plain form: it
// starts a check over the due sections, longest due first, and 303s to it.
func TestReviewSectionsDue(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	s := apptest.New(t, at(now))
	ana := s.User(t, "ana@example.com", "pass-phrase-1", "FREE")
	s.User(t, "bob@example.com", "pass-phrase-1", "FREE")
	for _, m := range []struct {
		lesson, anchor string
		due            time.Time
	}{
		{"vlan-basics", "vlans-and-ip-subnets", now.Add(-time.Hour)},
		{"subnetting", "", now.Add(-2 * time.Hour)},
		{"vlan-basics", "access-ports-and-trunk-ports", now.AddDate(0, 0, 3)}, // not due yet
		{"vlan-basics", "a-section-an-edit-removed", now.Add(-3 * time.Hour)}, // gone: not counted
	} {
		masteryRow(t, s, ana.ID, m.lesson, m.anchor, nil, now, m.due)
	}
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	for _, tt := range []struct{ lang, page, want string }{
		{"en", "/learn", "Review 2 sections due"},
		{"en", "/dashboard", "Review 2 sections due"},
		{"es", "/dashboard", "Repasar 2 secciones pendientes"},
	} {
		c.Lang = tt.lang
		if got := c.Get(tt.page).Text("#review-form button"); got != tt.want {
			t.Errorf("%s %s: %q, want %q", tt.lang, tt.page, got, tt.want)
		}
	}
	c.Lang = "en"
	bob := s.SignIn(t, "bob@example.com", "pass-phrase-1")
	if bob.Get("/dashboard").Doc.Find("#review-form").Length() != 0 {
		t.Error("bob is offered ana's review")
	}
	p := bob.Post("/review", url.Values{"_csrf": {bob.Get("/dashboard").CSRF()}})
	if p.Status != http.StatusConflict || !strings.Contains(p.Text(".error-page"), "No sections due for review.") {
		t.Errorf("bob's review with nothing due: %d %q", p.Status, p.Text(".error-page"))
	}

	r := postNoFollow(t, c, "/review", c.Get("/dashboard").CSRF())
	loc := r.Header.Get("Location")
	if r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/checks/") {
		t.Fatalf("review: %d to %q, want 303 to the check", r.StatusCode, loc)
	}
	cid := strings.TrimPrefix(loc, "/checks/")
	var scope []string
	s.DB.Raw(`SELECT lesson_id || '#' || anchor FROM check_sections cs JOIN checks k USING (conversation_id)
		WHERE conversation_id = ? AND k.user_id = ? ORDER BY position`, cid, ana.ID).Scan(&scope)
	if strings.Join(scope, ",") != "subnetting#,vlan-basics#vlans-and-ip-subnets" {
		t.Errorf("the review asks about %v, want the 2 due sections, longest due first", scope)
	}
	if p := c.Get(loc); p.Status != http.StatusOK {
		t.Errorf("the review's page: %d", p.Status)
	}
	if p := bob.Get(loc); p.Status != http.StatusNotFound {
		t.Errorf("bob opens ana's review: %d, want 404", p.Status)
	}

	// The review counted ana's one question; at her plan's limit the next is refused, in Spanish too.
	if err := s.DB.Exec(`UPDATE plan_usage SET questions = 3 WHERE user_id = ?`, ana.ID).Error; err != nil {
		t.Fatal(err)
	}
	c.Lang = "es"
	p = c.Post("/review", url.Values{"_csrf": {c.Get("/dashboard").CSRF()}})
	if p.Status != http.StatusTooManyRequests || !strings.Contains(p.Text(".error-page"), "3 preguntas") {
		t.Errorf("a review past the limit: %d %q", p.Status, p.Text(".error-page"))
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM checks WHERE user_id = ?`, ana.ID); n != 1 {
		t.Errorf("%d checks, want the one review before the limit", n)
	}
}
