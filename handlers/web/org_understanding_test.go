package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// understandingOrgs makes organization A (admin a, members m1 in group Red
// and m2) and B (admin b, member mb, group Blue). m1 answers the check of
// the lesson's first section wrong and m2 right; mb answers the second
// section wrong. It returns the server, the two sections, and the groups.
type understandingOrgs struct {
	s               *apptest.Server
	a, b            *webtest.Client
	first, second   string
	red, blue, orgA string
}

func newUnderstandingOrgs(t *testing.T) understandingOrgs {
	t.Helper()
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	o := understandingOrgs{s: s}
	o.orgA = orgWith(t, s, root, "org-a", "a@example.com", "m1@example.com", "m2@example.com")
	orgB := orgWith(t, s, root, "org-b", "b@example.com", "mb@example.com")
	o.a, o.b = s.SignIn(t, "a@example.com", orgPass), s.SignIn(t, "b@example.com", orgPass)
	o.red, o.blue = newGroup(t, s, o.a, o.orgA, "Red"), newGroup(t, s, o.b, orgB, "Blue")
	o.a.Submit(o.a.Get("/org"), "#bulk-form", map[string]string{"group": o.red, "action": "add", "member": userID(t, s, "m1@example.com")})
	var anchors []string
	s.DB.Raw(`SELECT DISTINCT anchor FROM lesson_chunks WHERE lesson_id = 'go-functions-errors' AND anchor <> '' ORDER BY anchor LIMIT 2`).Scan(&anchors)
	if len(anchors) != 2 {
		t.Fatalf("sections %v", anchors)
	}
	o.first, o.second = anchors[0], anchors[1]
	for _, r := range []struct {
		email, anchor string
		right         bool
	}{{"m1@example.com", o.first, false}, {"m2@example.com", o.first, true}, {"mb@example.com", o.second, false}} {
		runSectionCheck(t, s, s.SignIn(t, r.email, orgPass), checkLesson, r.anchor, r.right)
	}
	return o
}

// graded counts the graded answers of the people with these emails on a section.
func graded(t *testing.T, s *apptest.Server, anchor, verdict string, emails ...string) int {
	t.Helper()
	var n int
	s.DB.Raw(`SELECT count(*) FROM check_items i JOIN users u ON u.id = i.user_id
		WHERE u.email IN ? AND i.lesson_id = 'go-functions-errors' AND i.anchor = ? AND i.verdict LIKE ?`, emails, anchor, verdict).Scan(&n)
	return n
}

// An organization admin's Understanding page counts only their members'
// answers (the whole organization or a group), with how the wrong answers
// fall, never a word of a question or an answer; in both languages.
func TestOrgUnderstandingScoped(t *testing.T) {
	o := newUnderstandingOrgs(t)
	s, first, second := o.s, o.first, o.second
	home := o.a.Get("/org")
	if href := home.Doc.Find("#org-tabs #org-tab-understanding").AttrOr("href", ""); href != "/org/understanding" {
		t.Fatalf("the /org menu links to %q", href)
	}
	p := o.a.Get("/org/understanding")
	if p.Status != http.StatusOK || p.Doc.Find(`#org-tab-understanding[aria-current="true"]`).Length() != 1 {
		t.Fatalf("status %d", p.Status)
	}
	all := graded(t, s, first, "%", "m1@example.com", "m2@example.com")
	notYet := graded(t, s, first, "not_yet", "m1@example.com", "m2@example.com")
	if all == 0 || notYet == 0 {
		t.Fatalf("the checks graded %d answers, %d not yet", all, notYet)
	}
	row := p.Doc.Find("#us-go-functions-errors-" + first + " td")
	want := fmt.Sprintf("%d|%s|1 of 2|", all, shareOf(notYet, all))
	if got := rowText(row); !strings.HasPrefix(got, want) {
		t.Errorf("A's row of the first section %q, want it to start %q", got, want)
	}
	if p.Doc.Find("#us-go-functions-errors-"+second).Length() != 0 || p.Text("#u-answers .kpi-value") != fmt.Sprint(all) {
		t.Errorf("A's page counts B's answers: %q", p.Text("#u-sections"))
	}
	noThreadText(t, s, p)

	red := o.a.Get("/org/understanding?group=" + o.red)
	mine := graded(t, s, first, "%", "m1@example.com")
	if got := rowText(red.Doc.Find("#us-go-functions-errors-" + first + " td")); !strings.HasPrefix(got, fmt.Sprintf("%d|100 %%|1 of 1|", mine)) {
		t.Errorf("group Red's row %q (m1 answered %d)", got, mine)
	}
	if red.Text("#u-scope") != "Group: Red" || red.Doc.Find(`#u-group option[selected]`).AttrOr("value", "") != o.red {
		t.Errorf("the filter shows %q", red.Text("#u-scope"))
	}

	pb := o.b.Get("/org/understanding")
	if pb.Doc.Find("#us-go-functions-errors-"+second).Length() != 1 || pb.Doc.Find("#us-go-functions-errors-"+first).Length() != 0 {
		t.Errorf("B's page: %q", pb.Text("#u-sections"))
	}
	o.a.Lang = "es"
	if es := o.a.Get("/org/understanding"); es.Text("h1") != "Comprensión" || !strings.Contains(es.Text("#u-sections"), "Miembros que fallan") ||
		!strings.Contains(es.Text("#u-sections"), "1 de 2") {
		t.Errorf("Spanish page: %q %q", es.Text("h1"), es.Text("#u-sections thead"))
	}
}

// shareOf is the page's share of n in total.
func shareOf(n, total int) string { return fmt.Sprintf("%d %%", (n*100+total/2)/total) }

// noThreadText fails when the page shows a question asked in a check, an
// answer or the tutor's feedback (a right answer that is a lesson's or a
// section's name aside: the page names those).
func noThreadText(t *testing.T, s *apptest.Server, p *webtest.Page) {
	t.Helper()
	var texts []string
	s.DB.Raw(`SELECT question FROM check_items UNION SELECT answer FROM check_items WHERE answer <> ''
		UNION SELECT feedback FROM check_items WHERE feedback <> ''`).Scan(&texts)
	var names []string
	s.DB.Raw(`SELECT title FROM lessons UNION SELECT heading FROM lesson_chunks`).Scan(&names)
	body, named := p.Text("main"), strings.Join(names, "\n")
	for _, x := range texts {
		if len(x) > 8 && strings.Contains(body, x) && !strings.Contains(named, x) {
			t.Errorf("the page shows a check's text %q", x)
		}
	}
}

// Another organization's group is 404, a bad group or page link a clear
// 400 in the admin's language; members, FREE users and visitors get 404.
func TestOrgUnderstandingIsolation(t *testing.T) {
	o := newUnderstandingOrgs(t)
	s := o.s
	for _, tt := range []struct {
		c      *webtest.Client
		path   string
		status int
		text   string
	}{
		{o.a, "/org/understanding?group=" + o.blue, http.StatusNotFound, ""},
		{o.b, "/org/understanding?group=" + o.red, http.StatusNotFound, ""},
		{o.a, "/org/understanding?group=999999", http.StatusNotFound, ""},
		{o.a, "/org/understanding?group=red", http.StatusBadRequest, "Choose a group from the list."},
		{o.a, "/org/understanding?group=-3", http.StatusBadRequest, "Choose a group from the list."},
		{o.a, "/org/understanding?after=zz!", http.StatusBadRequest, "That page link is not valid."},
		{s.SignIn(t, "m1@example.com", orgPass), "/org/understanding", http.StatusNotFound, ""},
		{s.SignIn(t, "mb@example.com", orgPass), "/org/understanding?group=" + o.blue, http.StatusNotFound, ""},
		{signedInFree(t, s), "/org/understanding", http.StatusNotFound, ""},
		{webtest.New(t, s.URL), "/org/understanding", http.StatusNotFound, ""},
	} {
		p := tt.c.Get(tt.path)
		if p.Status != tt.status || !strings.Contains(p.Text("main"), tt.text) {
			t.Errorf("%s: %d %q, want %d %q", tt.path, p.Status, p.Text("main"), tt.status, tt.text)
		}
	}
	o.a.Lang = "es"
	if p := o.a.Get("/org/understanding?group=x"); p.Status != http.StatusBadRequest || !strings.Contains(p.Text("main"), "Elige un grupo de la lista.") {
		t.Errorf("Spanish bad group: %d %q", p.Status, p.Text("main"))
	}
}

// signedInFree is a FREE user's session.
func signedInFree(t *testing.T, s *apptest.Server) *webtest.Client {
	t.Helper()
	s.User(t, "free@example.com", orgPass, models.PlanFree)
	return s.SignIn(t, "free@example.com", orgPass)
}

// gradeMany gives the user a graded check answer on each of the first n
// sections of the catalog (one check each), wrong after a hint.
func gradeMany(t *testing.T, s *apptest.Server, user string, n int) {
	t.Helper()
	var secs []struct{ LessonID, Anchor string }
	s.DB.Raw(`SELECT DISTINCT lesson_id, anchor FROM lesson_chunks WHERE anchor <> '' ORDER BY lesson_id, anchor LIMIT ?`, n).Scan(&secs)
	if len(secs) != n {
		t.Fatalf("the catalog has %d sections, want %d", len(secs), n)
	}
	for _, sec := range secs {
		var cid string
		if err := s.DB.Raw(`INSERT INTO conversations (user_id, lesson_id, mode, next_seq) VALUES (?, ?, 'check', 1) RETURNING id`,
			user, sec.LessonID).Scan(&cid).Error; err != nil {
			t.Fatal(err)
		}
		if err := s.DB.Exec(`INSERT INTO checks (conversation_id, user_id) VALUES (?, ?)`, cid, user).Error; err != nil {
			t.Fatal(err)
		}
		if err := s.DB.Exec(`INSERT INTO check_items (conversation_id, user_id, position, lesson_id, anchor, kind, question, verdict, attempts, graded_at)
			VALUES (?, ?, 1, ?, ?, 'open', 'Secret question?', 'not_yet', 2, now())`, cid, user, sec.LessonID, sec.Anchor).Error; err != nil {
			t.Fatal(err)
		}
	}
}

// The page of sections goes by keyset (the group kept in the links) and
// runs as many statements with 55 graded answers as with none.
func TestOrgUnderstandingPagesInFixedStatements(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	orgA := orgWith(t, s, root, "org-a", "a@example.com", "m1@example.com")
	orgWith(t, s, root, "org-b", "b@example.com", "mb@example.com")
	a := s.SignIn(t, "a@example.com", orgPass)
	red := newGroup(t, s, a, orgA, "Red")
	m1 := userID(t, s, "m1@example.com")
	a.Submit(a.Get("/org"), "#bulk-form", map[string]string{"group": red, "action": "add", "member": m1})
	count := func(path string) int64 {
		least := int64(1 << 30)
		for range 3 {
			s.SQLs.Store(0)
			if p := a.Get(path); p.Status != http.StatusOK {
				t.Fatalf("%s: %d", path, p.Status)
			}
			least = min(least, s.SQLs.Load())
		}
		return least
	}
	before := count("/org/understanding?group=" + red)
	gradeMany(t, s, m1, models.UnderstandingTop+5)
	gradeMany(t, s, userID(t, s, "mb@example.com"), 30)
	if after := count("/org/understanding?group=" + red); after != before {
		t.Errorf("%d statements with no answer, %d with 55", before, after)
	}
	p := a.Get("/org/understanding?group=" + red)
	rows := p.Doc.Find("#u-sections tbody tr")
	next := p.Doc.Find("#u-next").AttrOr("href", "")
	if rows.Length() != models.UnderstandingTop || !strings.Contains(next, "group="+red) || p.Text("#u-answers .kpi-value") != "25" {
		t.Fatalf("first page: %d rows, next %q, %s answers", rows.Length(), next, p.Text("#u-answers .kpi-value"))
	}
	if got := rowText(rows.Eq(0).Find("td")); got != "1|100 %|1 of 1|0|1" {
		t.Errorf("a section answered wrong after a hint reads %q", got)
	}
	p2 := a.Get(next)
	if p2.Doc.Find("#u-sections tbody tr").Length() != 5 || p2.Doc.Find("#u-next").Length() != 0 ||
		p2.Doc.Find("#u-first").AttrOr("href", "") != "/org/understanding?group="+red+"#sections" {
		t.Errorf("second page: %d rows, first link %q", p2.Doc.Find("#u-sections tbody tr").Length(), p2.Doc.Find("#u-first").AttrOr("href", ""))
	}
	if strings.Contains(p.Body+p2.Body, "Secret question?") {
		t.Error("a question's text is shown")
	}
}
