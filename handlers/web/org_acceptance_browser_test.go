package web_test

// The acceptance journey of organizations (issue 27, "How we will know"),
// each person in a browser session of their own.

import (
	"context"
	"encoding/csv"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/internal/smtptest"
	"aula/models"
)

// The lesson assigned in the journey, and the section its student checks
// on its own to master it.
const (
	acceptLesson  = "/learn/networking/vlan-basics"
	acceptSection = "broadcast-domains-and-the-problem-vlans-solve"
)

// orgJourney is the acceptance journey's server, mailbox and first tab (the SUPER_ADMIN's).
type orgJourney struct {
	t     *testing.T
	s     *apptest.Server
	box   *smtptest.Server
	b     *browser.Browser
	shots bool
}

// In real Chromium at 1366×900 and 390×844, light and dark, with
// JavaScript on and off: a SUPER_ADMIN creates an organization with 5
// seats and names its admin; the admin makes a join link and invites two
// addresses by email (the letters read from the SMTP server); three
// students join in sessions of their own (by the link signing up on the
// way, by the letter signing up, by the link signing in); the admin makes
// a group of them and assigns a lesson with "check required"; a student
// reads it (the cell says read, not done), passes its knowledge check
// (checked ✓), then checks one section until it is mastered (mastered ✓);
// the CSV downloaded with the admin's cookies and the member's report say
// so; a sixth person finds no seat (Pablo's pending invitation holds the
// fifth), is told so, and Pablo's letter still lets him in. No page is
// wider than the screen.
func TestBrowserOrganizationAcceptance(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t)
			j := &orgJourney{t: t, s: s, box: s.WithMail(t)}
			s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
			s.User(t, "boss@example.com", orgPass, models.PlanFree)
			s.User(t, "leo@example.com", orgPass, models.PlanPro)
			s.User(t, "pablo@example.com", orgPass, models.PlanFree)
			j.b = browser.New(t, append(tt.opts, browser.WithTimeout(10*time.Minute))...)
			j.shots = !j.b.NoJS
			j.createOrg()
			admin := j.b.Session("admin")
			browserSignIn(admin, s, "boss@example.com", orgPass)
			link, letters := j.invite(admin)
			j.join(link, "nora@example.com", "Nora Link")
			ines := j.join(letters["ines@example.com"], "ines@example.com", "Inés Letter")
			j.join(link, "leo@example.com", "")
			j.groupAndAssign(admin)
			inesID := userID(t, s, "ines@example.com")
			j.read(ines)
			j.expectCell(admin, inesID, "read", "0 of 1")
			j.passCheck(ines)
			j.expectCell(admin, inesID, "checked", "1 of 1")
			j.masterSection(ines)
			j.expectCell(admin, inesID, "mastered", "1 of 1")
			matrixFits(admin, "acceptance-progress-"+modeName(admin))
			j.expectCSV(admin)
			j.expectReport(admin, inesID)
			j.sixthRefused(admin, link)
			// Pablo has an account: sign-ups are 3 per address in 10 minutes.
			j.join(letters["pablo@example.com"], "pablo@example.com", "")
			admin.Navigate(s.URL + "/org")
			if got := admin.Text("#org-seats-used"); got != "5 of 5 seats used" {
				admin.Errorf("the seats once Pablo joined: %q", got)
			}
		})
	}
}

// createOrg: the SUPER_ADMIN creates Colegio Norte with 5 seats and names
// boss@ its admin.
func (j *orgJourney) createOrg() {
	b := j.b
	browserSignIn(b, j.s, "root@example.com", orgPass)
	b.Navigate(j.s.URL + "/admin/organizations")
	b.WaitVisible("#org-create-submit")
	b.Fill("#org-name", "Colegio Norte")
	b.Fill("#org-slug", "colegio-norte")
	b.Fill("#org-seats", "5")
	b.ClickAndWait("#org-create-submit")
	b.Fill("#org-admin-email", "boss@example.com")
	b.ClickAndWait("#org-name-admin-submit")
	if !strings.Contains(b.Text("#admin-flash"), "boss@example.com") || b.Text("#org-seats-used") != "1 of 5 seats used" {
		b.Fatalf("naming the admin: %q %q %q", b.Text("#admin-flash"), b.Text("#admin-error"), b.Text("#org-seats-used"))
	}
	orgShots(b, j.shots, "acceptance-admin-org")
}

// invite: the admin makes a join link and invites two addresses by
// email; it returns the link and the link of each letter, by address.
func (j *orgJourney) invite(admin *browser.Browser) (link string, links map[string]string) {
	admin.ClickAndWait("#nav-org")
	admin.ClickAndWait("#link-create")
	if link = admin.Text("#new-link"); !strings.HasPrefix(link, j.s.URL+"/join/") {
		admin.Fatalf("the join link: %q", link)
	}
	// browser.Fill's Clear fails on an empty textarea: type into it.
	if err := chromedp.Do(admin.Ctx, chromedp.SendKeys(chromedp.CSS("#invite-emails"), "ines@example.com\npablo@example.com")); err != nil {
		admin.Fatalf("type the addresses: %v", err)
	}
	admin.ClickAndWait("#invite-submit")
	if got := admin.Text("#admin-flash"); got != "Invitations sent: 2." {
		admin.Fatalf("inviting: %q %q", got, admin.Text("#admin-error"))
	}
	if got := admin.Text("#pending-invitations"); !strings.Contains(got, "ines@example.com") || !strings.Contains(got, "pablo@example.com") {
		admin.Fatalf("pending invitations: %q", got)
	}
	orgShots(admin, j.shots, "acceptance-org-invited")
	links = map[string]string{}
	for to, m := range letters(j.t, j.box, 2) {
		if m.Subject != "You are invited to join Colegio Norte on aula" {
			j.t.Fatalf("the letter to %s: %q", to, m.Subject)
		}
		links[to] = j.s.URL + invitePath(j.t, m)
	}
	return link, links
}

// join opens a join link or an invitation's in a new session and joins:
// with a name, signing up on the way; without, signing in to the
// existing account of email. It returns the session, on /learn.
func (j *orgJourney) join(link, email, name string) *browser.Browser {
	who := strings.TrimSuffix(email, "@example.com")
	b := j.b.Session(who)
	b.Navigate(link)
	b.WaitVisible("#join-signup")
	if name != "" {
		b.ClickAndWait("#join-signup")
		b.Fill("#name", name)
		b.Fill("#email", email)
		b.Fill("#password", orgPass)
		b.ClickAndWait("#signup-submit")
	} else {
		b.ClickAndWait("#join-login")
		b.Fill("#email", email)
		b.Fill("#password", orgPass)
		b.ClickAndWait("#login-submit")
	}
	if b.Location() != link || !b.Has("#join-submit") {
		b.Fatalf("%s came back to %s, not %s", who, b.Location(), link)
	}
	orgShots(b, j.shots, "acceptance-join-"+who)
	b.ClickAndWait("#join-submit")
	if b.Path() != "/learn" || !strings.Contains(b.Text("#flash"), "Colegio Norte") {
		b.Fatalf("%s after joining: at %s, flash %q", who, b.Path(), b.Text("#flash"))
	}
	return b
}

// groupAndAssign: the admin makes a group, ticks the three students into
// it and assigns it the lesson with its check required.
func (j *orgJourney) groupAndAssign(admin *browser.Browser) {
	admin.Navigate(j.s.URL + "/org#groups")
	admin.Fill("#group-name", "1º B — Redes")
	admin.ClickAndWait("#group-create")
	if got := admin.Text("#admin-flash"); !strings.Contains(got, "1º B — Redes") {
		admin.Fatalf("creating the group: %q %q", got, admin.Text("#admin-error"))
	}
	for _, email := range []string{"nora@example.com", "ines@example.com", "leo@example.com"} {
		admin.Click("#pick-" + userID(j.t, j.s, email))
	}
	admin.ClickAndWait("#bulk-add")
	if got := admin.Text("#admin-flash"); got != "3 added to “1º B — Redes”." {
		admin.Fatalf("adding to the group: %q %q", got, admin.Text("#admin-error"))
	}
	eval[bool](admin, `(() => {
		const g = document.getElementById('assign-group');
		g.value = [...g.options].find(o => o.text.startsWith('1º B')).value;
		document.querySelector('#assign-lessons option[value="vlan-basics"]').selected = true;
		return true; })()`)
	admin.Click("#assign-check")
	admin.ClickAndWait("#assign-submit")
	if got := admin.Text("#admin-flash"); got != "Assigned." || !strings.Contains(admin.Text("#assignment-list"), "VLAN") {
		admin.Fatalf("assigning: %q %q %q", got, admin.Text("#admin-error"), admin.Text("#assignment-list"))
	}
	orgShots(admin, j.shots, "acceptance-org-assigned")
}

// read: the student finds the lesson in "Assigned to you" and reads it to
// its end (without JavaScript, with the button there).
func (j *orgJourney) read(st *browser.Browser) {
	st.Navigate(j.s.URL + "/dashboard")
	st.ClickAndWait(`nav a[href="/learn"]`)
	st.WaitVisible("#assigned")
	item := `#assigned li[data-lesson="vlan-basics"]`
	if got := st.Text(item); !strings.Contains(got, "not started") || !strings.Contains(st.Text("#assigned"), "Check required") {
		st.Fatalf("assigned to you: %q", st.Text("#assigned"))
	}
	orgShots(st, j.shots, "acceptance-assigned")
	st.ClickAndWait(item + " a")
	if st.Path() != acceptLesson {
		st.Fatalf("the assigned lesson's link led to %s", st.Path())
	}
	if st.NoJS {
		st.ClickAndWait("#mark-done")
	} else {
		eval[bool](st, `(document.getElementById('read-state').scrollIntoView(), true)`)
	}
	st.WaitVisible("p#read-state")
}

// passCheck: the student passes the lesson's knowledge check in its
// panel: one question on each section, the first answered wrongly.
func (j *orgJourney) passCheck(st *browser.Browser) {
	st.Navigate(j.s.URL + acceptLesson + "?tutor=open")
	st.WaitVisible("#check-start")
	if st.NoJS {
		st.ClickAndWait("#check-start")
	} else {
		st.Click("#check-start")
	}
	runCheck(j.t, j.s, st, acceptLesson)
}

// masterSection: the student checks one section on its own, from the
// button beside its heading; right answers in a row master it.
func (j *orgJourney) masterSection(st *browser.Browser) {
	st.Navigate(j.s.URL + acceptLesson)
	button := `.prose form.section-check input[value="` + acceptSection + `"] ~ button`
	st.WaitVisible(button)
	if st.NoJS {
		st.ClickAndWait(button)
	} else {
		st.Click(button)
		waitFor(st, "the section's check", `(document.getElementById('check-title')?.textContent ?? '').includes('Broadcast domains')`)
	}
	runCheck(j.t, j.s, st, st.Path())
	st.Navigate(j.s.URL + acceptLesson)
	if got := st.Text(`.section-state[data-section="` + acceptSection + `"]`); !strings.Contains(got, "Mastered") {
		st.Fatalf("the section's state on the lesson: %q", got)
	}
}

// expectCell: on the matrix, the member's cell on the lesson reads state,
// done (✓) once the check is passed, "check required" (*) until then.
func (j *orgJourney) expectCell(admin *browser.Browser, member, state, done string) {
	admin.Navigate(j.s.URL + "/org")
	admin.ClickAndWait("#org-tab-progress")
	admin.WaitVisible("#matrix")
	row := "#row-" + member
	cell := row + ` td[data-lesson="vlan-basics"]`
	mark, want := ".cell-check", "*"
	if done == "1 of 1" {
		mark, want = ".cell-done", "✓"
	}
	if got := admin.Text(cell + " .cell-text"); got != state || admin.Text(cell+" "+mark) != want || admin.Text(row+" .matrix-done") != done {
		admin.Fatalf("the cell: %q (%q), done %q; want %s %s, %s", got, admin.Text(cell), admin.Text(row+" .matrix-done"), state, want, done)
	}
	for _, other := range []string{"nora@example.com", "leo@example.com"} {
		if got := admin.Text("#row-" + userID(j.t, j.s, other) + ` td[data-lesson="vlan-basics"] .cell-text`); got != "not started" {
			admin.Fatalf("%s's cell: %q", other, got)
		}
	}
}

// expectCSV: the download, fetched with the admin's cookies, says the
// same as the page: Inés mastered the lesson and it counts as done.
func (j *orgJourney) expectCSV(admin *browser.Browser) {
	href, _ := admin.Attr("#matrix-csv", "href")
	res, body := fetchAs(admin, j.s.URL+href)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		j.t.Fatalf("the CSV: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff"))).ReadAll()
	if err != nil || len(rows) != 5 {
		j.t.Fatalf("the CSV (%v), %d rows:\n%s", err, len(rows), body)
	}
	if want := []string{"Name", "Email", "Lessons done", "Lessons assigned", "What a VLAN is and why it matters"}; strings.Join(rows[0], "|") != strings.Join(want, "|") {
		j.t.Fatalf("the CSV's header: %q", rows[0])
	}
	states := map[string]string{}
	for _, r := range rows[1:] {
		states[r[1]] = strings.Join(r[2:], "|")
	}
	for email, want := range map[string]string{"ines@example.com": "1|1|mastered ✓", "nora@example.com": "0|1|not started",
		"leo@example.com": "0|1|not started", "boss@example.com": "0|0|"} {
		if states[email] != want {
			j.t.Errorf("the CSV's row of %s: %q, want %q", email, states[email], want)
		}
	}
}

// fetchAs GETs url with the cookies the browser holds for it, as the
// download the browser starts would.
func fetchAs(b *browser.Browser, url string) (*http.Response, string) {
	b.T.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, browser.StepTimeout)
	defer cancel()
	got, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
	if err != nil {
		b.Fatalf("the browser's cookies: %v", err)
	}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for _, c := range got.Cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

// expectReport: the admin follows Inés's name from the matrix to her
// report, which counts the lesson read, checked and mastered.
func (j *orgJourney) expectReport(admin *browser.Browser, member string) {
	admin.ClickAndWait("#row-" + member + " th a")
	admin.WaitVisible("#report-figures")
	for sel, want := range map[string]string{"#report-name": "Inés Letter", "#report-read .kpi-value": "1",
		"#report-checked .kpi-value": "1", "#report-mastered .kpi-value": "1", "#report-overdue .kpi-value": "0",
		`#report-assignments li[data-lesson="vlan-basics"] .muted`: "mastered"} {
		if got := admin.Text(sel); got != want {
			admin.Errorf("the report's %s: %q, want %q", sel, got, want)
		}
	}
	matrixFits(admin, "acceptance-report-"+modeName(admin))
}

// sixthRefused: the five seats are taken (the admin, three students and
// Pablo's pending invitation): a sixth person signs up through the link
// and is told there is no free seat and what to do; the admin's page
// says why.
func (j *orgJourney) sixthRefused(admin *browser.Browser, link string) {
	b := j.b.Session("sixth")
	b.Navigate(link)
	b.ClickAndWait("#join-signup")
	b.Fill("#name", "Sam Sixth")
	b.Fill("#email", "sam@example.com")
	b.Fill("#password", orgPass)
	b.ClickAndWait("#signup-submit")
	b.ClickAndWait("#join-submit")
	if b.Text("#join-problem") != "The organization has no free seat." || b.Text("#join-hint") != "Ask your organization's admin to add seats." {
		b.Fatalf("the sixth person: at %s, %q %q", b.Path(), b.Text("#join-problem"), b.Text("#join-hint"))
	}
	orgShots(b, j.shots, "acceptance-sixth-refused")
	b.Navigate(j.s.URL + "/settings#organization")
	if !b.Has("#org-none") {
		b.Fatalf("the sixth person belongs to an organization: %q", b.Text("#org-belongs"))
	}
	admin.Navigate(j.s.URL + "/org")
	if got := admin.Text("#org-seats-used"); got != "4 of 5 seats used · 1 more held by a pending invitation" {
		admin.Errorf("the admin's seats line: %q", got)
	}
	orgShots(admin, j.shots, "acceptance-org-seats")
}
