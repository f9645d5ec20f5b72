package web_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// progressOrg is assignedOrg with go-variables-types assigned to Red too,
// names to sort by (Alba the admin, Mia = m1 in Red, Zoe = m2) and
// progress: Mia read vlan-basics (check required) and subnetting, Zoe read
// subnetting. It returns the server, admin A's client and the members' ids
// by email.
func progressOrg(t *testing.T) (*apptest.Server, *webtest.Client, map[string]string) {
	t.Helper()
	s := assignedOrg(t)
	a := s.SignIn(t, "a@example.com", orgPass)
	home := a.Get("/org")
	red := home.Doc.Find(`#assign-group option`).FilterFunction(func(_ int, o *goquery.Selection) bool {
		return strings.Contains(o.Text(), "Red")
	}).AttrOr("value", "")
	if p := a.Submit(home, "#assign-form", map[string]string{"group": red, "lesson": "go-variables-types"}); p.Text("#admin-error") != "" {
		t.Fatalf("assign go-variables-types to Red: %q", p.Text("#admin-error"))
	}
	ids := map[string]string{}
	for email, name := range map[string]string{"a@example.com": "Alba Admin", "m1@example.com": "Mia One",
		"m2@example.com": "Zoe Two", "mb@example.com": "Bea Other", "b@example.com": "Bo Admin"} {
		ids[email] = userID(t, s, email)
		s.DB.Exec(`UPDATE users SET name = ? WHERE email = ?`, name, email)
	}
	for email, lessons := range map[string][]string{"m1@example.com": {"vlan-basics", "subnetting"}, "m2@example.com": {"subnetting"}} {
		c := s.SignIn(t, email, orgPass)
		for _, l := range lessons {
			c.Post("/learn/networking/"+l+"/read", url.Values{"_csrf": {c.Get("/learn/networking/" + l).CSRF()}})
		}
	}
	return s, a, ids
}

// masterVLAN records m1 passing vlan-basics' check, as grading would.
func masterVLAN(t *testing.T, s *apptest.Server, m1 string) {
	t.Helper()
	if err := s.DB.Exec(`INSERT INTO section_mastery (user_id, lesson_id, anchor, streak, step, last_verdict, mastered_at, last_checked_at, due_at)
		SELECT ?, 'vlan-basics', anchor, 2, 2, 'correct', now(), now(), now() - interval '1 day'
		FROM lesson_chunks WHERE lesson_id = 'vlan-basics' ORDER BY position LIMIT 1`, m1).Error; err != nil {
		t.Fatal(err)
	}
}

// cell is the matrix cell of a member on a lesson.
func cell(p *webtest.Page, user, lesson string) *goquery.Selection {
	return p.Doc.Find("#row-" + user + ` td[data-lesson="` + lesson + `"]`)
}

// rowNames are the names of the matrix's rows, in order.
func rowNames(p *webtest.Page) []string {
	return p.Doc.Find("#matrix tbody th a").Map(func(_ int, s *goquery.Selection) string { return s.Text() })
}

// Without JavaScript the admin reaches the matrix from the /org menu and
// reads each member's state on each assigned lesson in words: read but
// the check required (not done), then mastered (done) once the check is
// passed; a lesson of another group's assignment is "not assigned"; the
// names link to each member's report; in Spanish too.
func TestOrgProgressWithoutJavaScript(t *testing.T) {
	s, a, ids := progressOrg(t)
	m1, m2 := ids["m1@example.com"], ids["m2@example.com"]
	home := a.Get("/org")
	href, _ := home.Doc.Find(`#org-tabs a[href="/org/progress"]`).Attr("href")
	if href == "" || home.Doc.Find(`#members a.member-report[href="/org/members/`+m1+`"]`).Length() != 1 {
		t.Fatalf("/org links neither the progress page nor Mia's report: %q", home.Text("#org-tabs"))
	}
	p := a.Get(href)
	if p.Status != http.StatusOK || p.Doc.Find("#matrix thead th.matrix-lesson").Length() != 5 {
		t.Fatalf("/org/progress: %d, %d lesson columns", p.Status, p.Doc.Find("#matrix thead th.matrix-lesson").Length())
	}
	if got := strings.Join(rowNames(p), "|"); got != "Alba Admin|Mia One|Zoe Two" {
		t.Errorf("rows: %s", got)
	}
	vlan := cell(p, m1, "vlan-basics")
	if vlan.AttrOr("data-state", "") != models.StateRead || vlan.AttrOr("data-done", "") != "false" ||
		!strings.Contains(vlan.Text(), "read") || !strings.Contains(vlan.Text(), "check required") {
		t.Errorf("Mia on vlan-basics, read with the check required: %q %v", vlan.Text(), vlan.Nodes)
	}
	if c := cell(p, m2, "subnetting"); c.AttrOr("data-done", "") != "true" || !strings.Contains(c.Text(), "done") {
		t.Errorf("Zoe on subnetting: %q", c.Text())
	}
	if c := cell(p, ids["a@example.com"], "go-variables-types"); c.AttrOr("data-state", "") != "none" || c.Text() != "—not assigned" {
		t.Errorf("Alba, outside Red, on Red's go-variables-types: %q", c.Text())
	}
	if p.Text("#row-"+m1+" .matrix-done") != "1 of 5" || p.Doc.Find("#matrix-legend li").Length() != 4 {
		t.Errorf("Mia's count %q, legend %q", p.Text("#row-"+m1+" .matrix-done"), p.Text("#matrix-legend"))
	}
	masterVLAN(t, s, m1)
	p = a.Get("/org/progress")
	if c := cell(p, m1, "vlan-basics"); c.AttrOr("data-state", "") != models.StateMastered || c.AttrOr("data-done", "") != "true" ||
		p.Text("#row-"+m1+" .matrix-done") != "2 of 5" {
		t.Errorf("after passing the check: %q, %q", c.Text(), p.Text("#row-"+m1+" .matrix-done"))
	}
	a.Lang = "es"
	p = a.Get("/org/progress")
	if p.Text("h1") != "Progreso" || !strings.Contains(cell(p, m1, "vlan-basics").Text(), "dominada") || p.Text("#row-"+m1+" .matrix-done") != "2 de 5" {
		t.Errorf("in Spanish: %q %q", p.Text("h1"), cell(p, m1, "vlan-basics").Text())
	}
}

// The group filter is a plain GET form; the sort links order the rows
// both ways by name and by lessons done; the filter keeps the order.
func TestOrgProgressFilterAndSort(t *testing.T) {
	s, a, _ := progressOrg(t)
	masterVLAN(t, s, userID(t, s, "m1@example.com"))
	p := a.Get("/org/progress")
	red := p.Doc.Find(`#matrix-group option`).FilterFunction(func(_ int, o *goquery.Selection) bool { return o.Text() == "Red" }).AttrOr("value", "")
	for _, tc := range []struct{ link, want string }{
		{`a[data-sort="name"][data-desc="true"]`, "Zoe Two|Mia One|Alba Admin"},
		{`a[data-sort="done"][data-desc="true"]`, "Mia One|Zoe Two|Alba Admin"},
		{`a[data-sort="done"][data-desc="false"]`, "Alba Admin|Zoe Two|Mia One"},
	} {
		href := p.Doc.Find("#matrix-sort "+tc.link).AttrOr("href", "")
		got := a.Get(href)
		if names := strings.Join(rowNames(got), "|"); got.Status != http.StatusOK || names != tc.want {
			t.Errorf("%s (%s): %d %s, want %s", tc.link, href, got.Status, names, tc.want)
		}
		if got.Doc.Find("#matrix-sort .sort-current").Length() != 1 {
			t.Errorf("%s: the current order is not said", href)
		}
	}
	desc := a.Get("/org/progress?sort=done&dir=desc")
	q := url.Values{"group": {red}}
	desc.Doc.Find("#matrix-filter input[type=hidden]").Each(func(_ int, in *goquery.Selection) {
		q.Set(in.AttrOr("name", ""), in.AttrOr("value", ""))
	})
	f := a.Get("/org/progress?" + q.Encode())
	if names := strings.Join(rowNames(f), "|"); names != "Mia One" || f.Doc.Find(`#matrix-group option[selected]`).Text() != "Red" ||
		q.Get("sort") != "done" || f.Doc.Find("#matrix thead th.matrix-lesson").Length() != 5 {
		t.Errorf("filtered to Red (%s): %s", q.Encode(), names)
	}
}

// A page holds 50 members and links the next by keyset, in every order;
// the pages together hold every member once.
func TestOrgProgressPages(t *testing.T) {
	s, a, _ := progressOrg(t)
	orgA := ""
	s.DB.Raw(`SELECT organization_id FROM organization_members WHERE user_id = ?`, userID(t, s, "a@example.com")).Scan(&orgA)
	if err := models.NewScaleData(s.DB.DB).InsertOrg(context.Background(), orgA, models.OrgScale{Members: 60, Lessons: 2, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, start := range []string{"/org/progress", "/org/progress?sort=done&dir=desc", "/org/progress?dir=desc"} {
		seen, pages := map[string]bool{}, 0
		for p := a.Get(start); ; {
			pages++
			rows := p.Doc.Find("#matrix tbody tr")
			if pages == 1 && rows.Length() != 50 {
				t.Errorf("%s: the first page has %d rows", start, rows.Length())
			}
			rows.Each(func(_ int, r *goquery.Selection) { seen[r.AttrOr("id", "")] = true })
			next := p.Doc.Find("#matrix-next").AttrOr("href", "")
			if next == "" || pages > 3 {
				break
			}
			if p = a.Get(next); p.Doc.Find("#matrix-first").Length() != 1 {
				t.Errorf("%s: page %d links no first page", start, pages+1)
			}
		}
		if len(seen) != 63 || pages != 2 {
			t.Errorf("%s: %d members over %d pages, want 63 over 2", start, len(seen), pages)
		}
	}
}

// readCSV fetches the matrix's CSV and parses it.
func readCSV(t *testing.T, c *webtest.Client, path string) [][]string {
	t.Helper()
	p := c.Get(path)
	if p.Status != http.StatusOK || !strings.HasPrefix(p.Header.Get("Content-Type"), "text/csv") ||
		!strings.HasPrefix(p.Header.Get("Content-Disposition"), "attachment;") || !strings.HasPrefix(p.Body, "\ufeff") {
		t.Fatalf("%s: %d %q %q", path, p.Status, p.Header.Get("Content-Type"), p.Body)
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(p.Body, "\ufeff"))).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// The CSV is the whole matrix for the filter and order: a header, one
// line per member with each state in words (✓ done); a cell a spreadsheet
// would read as a formula starts with a quote.
func TestOrgProgressCSV(t *testing.T) {
	s, a, _ := progressOrg(t)
	masterVLAN(t, s, userID(t, s, "m1@example.com"))
	s.DB.Exec(`UPDATE users SET name = '=HYPERLINK("http://evil.example","x")', email = '+m2@example.com' WHERE email = 'm2@example.com'`)
	href := a.Get("/org/progress?sort=done&dir=desc").Doc.Find("#matrix-csv").AttrOr("href", "")
	rows := readCSV(t, a, href)
	if len(rows) != 4 || strings.Join(rows[0][:4], "|") != "Name|Email|Lessons done|Lessons assigned" || rows[0][4] != "What a VLAN is and why it matters" {
		t.Fatalf("CSV %s: %q", href, rows)
	}
	if strings.Join(rows[1][:4], "|") != "Mia One|m1@example.com|2|5" || rows[1][4] != "mastered ✓" || rows[1][5] != "read ✓" {
		t.Errorf("Mia's line: %q", rows[1])
	}
	if rows[2][0] != `'=HYPERLINK("http://evil.example","x")` || rows[2][1] != "'+m2@example.com" {
		t.Errorf("a formula got through: %q", rows[2])
	}
	if len(rows[3]) != 9 || rows[3][0] != "Alba Admin" || rows[3][4] != "not started" || rows[3][8] != "" {
		t.Errorf("Alba's line: %q", rows[3])
	}
	a.Lang = "es"
	es := readCSV(t, a, "/org/progress.csv?group="+a.Get("/org/progress").Doc.Find(`#matrix-group option:nth-child(2)`).AttrOr("value", ""))
	if len(es) != 2 || es[0][0] != "Nombre" || es[1][4] != "dominada ✓" {
		t.Errorf("the Spanish CSV of Red: %q", es)
	}
}

// The report on a member, reached from their matrix row: activity, usage
// and progress counts and their assignments' states, and what the admin
// cannot see said plainly; never a word of their threads.
func TestOrgMemberReportPage(t *testing.T) {
	s, a, ids := progressOrg(t)
	m1 := ids["m1@example.com"]
	masterVLAN(t, s, m1)
	s.DB.Exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 5)`, m1, models.Period(time.Now()))
	var cid string
	s.DB.Raw(`INSERT INTO conversations (user_id, lesson_id, mode, next_seq, title) VALUES (?, 'vlan-basics', 'lesson', 1, 'SECRET-TITLE') RETURNING id`, m1).Scan(&cid)
	s.DB.Exec(`INSERT INTO messages (conversation_id, user_id, seq, role, content, status) VALUES (?, ?, 0, 'user', 'SECRET-QUESTION', 'complete')`, cid, m1)

	href := a.Get("/org/progress").Doc.Find("#row-"+m1+" th a").AttrOr("href", "")
	p := a.Get(href)
	if p.Status != http.StatusOK || p.Text("#report-name") != "Mia One" || p.Text("#report-groups") != "Groups: Red" {
		t.Fatalf("%s: %d %q %q", href, p.Status, p.Text("#report-name"), p.Text("#report-groups"))
	}
	for id, want := range map[string]string{"#report-questions": "5", "#report-read": "2", "#report-checked": "1",
		"#report-mastered": "1", "#report-due": "1", "#report-overdue": "0"} {
		if got := p.Doc.Find(id+" .kpi-value").AttrOr("data-value", ""); got != want {
			t.Errorf("%s: %q, want %s", id, got, want)
		}
	}
	if p.Text("#report-last-active .kpi-value") == "not yet" || !strings.Contains(p.Text("#report-privacy"), "Never the text of their tutor threads") {
		t.Errorf("last active %q, privacy %q", p.Text("#report-last-active"), p.Text("#report-privacy"))
	}
	if n := p.Doc.Find(`#report-assignments li[data-lesson=vlan-basics][data-state=mastered]`).Length(); n != 2 {
		t.Errorf("vlan-basics mastered in %d of Mia's assignments, want 2 (the path and Red's)", n)
	}
	for _, path := range []string{href, "/org/progress", "/org/progress.csv", "/org"} {
		if body := a.Get(path).Body; strings.Contains(body, "SECRET-") {
			t.Errorf("%s shows a thread's text", path)
		}
	}
	a.Lang = "es"
	if p := a.Get(href); p.Doc.Find("#report-read .kpi-label").Text() != "Lecciones leídas" {
		t.Errorf("in Spanish: %q", p.Text("#report-figures"))
	}
}

// Bad input gets a clear 4xx in the user's language; another
// organization's member or group is 404 for its admin, and a member
// (CORPORATE_USER), a FREE user and a visitor get 404 for every page.
func TestOrgProgressRefusalsAndIsolation(t *testing.T) {
	s, a, ids := progressOrg(t)
	var red, blue string
	s.DB.Raw(`SELECT id::text FROM organization_groups WHERE name = 'Red'`).Scan(&red)
	b := s.SignIn(t, "b@example.com", orgPass)
	b.Submit(b.Get("/org"), "#group-form", map[string]string{"name": "Blue"})
	s.DB.Raw(`SELECT id::text FROM organization_groups WHERE name = 'Blue'`).Scan(&blue)
	for _, tc := range []struct {
		path, text string
		status     int
	}{
		{"/org/progress?sort=email", "Sort by name or by lessons done", 400},
		{"/org/progress?dir=up", "Sort by name or by lessons done", 400},
		{"/org/progress.csv?sort=email", "Sort by name or by lessons done", 400},
		{"/org/progress?after=garbage", "That page link is not valid", 400},
		// A cursor of the name order used for the order by lessons done.
		{"/org/progress?sort=done&after=eyJzIjoibmFtZSIsImQiOjAsIm4iOiJhIiwidSI6IjAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMSJ9", "That page link is not valid", 400},
		{"/org/progress?group=abc", "", 404},
		{"/org/progress?group=" + blue, "", 404},
		{"/org/progress.csv?group=" + blue, "", 404},
		{"/org/members/" + ids["mb@example.com"], "", 404},
		{"/org/members/not-a-uuid", "", 404},
	} {
		if p := a.Get(tc.path); p.Status != tc.status || !strings.Contains(p.Body, tc.text) {
			t.Errorf("admin A, %s: %d, want %d %q", tc.path, p.Status, tc.status, tc.text)
		}
	}
	a.Lang = "es"
	if p := a.Get("/org/progress?sort=email"); p.Status != 400 || !strings.Contains(p.Body, "Ordena por nombre") {
		t.Errorf("the refusal in Spanish: %d", p.Status)
	}
	for _, path := range []string{"/org/members/" + ids["m1@example.com"], "/org/progress?group=" + red, "/org/progress.csv?group=" + red} {
		if p := b.Get(path); p.Status != http.StatusNotFound {
			t.Errorf("admin B, %s: %d", path, p.Status)
		}
	}
	s.User(t, "free@example.com", orgPass, models.PlanFree)
	for name, c := range map[string]*webtest.Client{"a member": s.SignIn(t, "m1@example.com", orgPass),
		"a FREE user": s.SignIn(t, "free@example.com", orgPass), "a visitor": webtest.New(t, s.URL)} {
		for _, path := range []string{"/org/progress", "/org/progress.csv", "/org/members/" + ids["m2@example.com"]} {
			if p := c.Get(path); p.Status != http.StatusNotFound || strings.Contains(p.Body, "Zoe Two") {
				t.Errorf("%s, %s: %d", name, path, p.Status)
			}
		}
	}
}
