package web_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"aula/internal/apptest"
	"aula/internal/smtptest"
	"aula/internal/webtest"
	"aula/models"
)

var inviteLink = regexp.MustCompile(`https?://[^\s"<]+/join/invite/[A-Za-z0-9_-]{43}`)

// inviteOrg makes an organization with seats and its admin, signed in.
func inviteOrg(t *testing.T, s *apptest.Server, root *webtest.Client, slug, seats, admin string) *webtest.Client {
	t.Helper()
	s.User(t, admin, orgPass, models.PlanFree)
	nameAdmin(t, root, createOrg(t, root, "Org "+slug, slug, seats), admin)
	return s.SignIn(t, admin, orgPass)
}

// invite submits the pasted list on /org.
func invite(t *testing.T, admin *webtest.Client, list string) *webtest.Page {
	t.Helper()
	return admin.Submit(admin.Get("/org"), "#invite-form", map[string]string{"emails": list})
}

// uploadCSV sends the invitation form with a CSV file (multipart, as a browser does).
func uploadCSV(t *testing.T, admin *webtest.Client, data []byte) *webtest.Page {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("_csrf", admin.Get("/org").CSRF())
	_ = w.WriteField("emails", "")
	f, _ := w.CreateFormFile("csv", "people.csv")
	_, _ = f.Write(data)
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, admin.Base+"/org/invitations", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return admin.Do(req)
}

// letters reads n letters and returns them by recipient, with each one's link path.
func letters(t *testing.T, box *smtptest.Server, n int) map[string]smtptest.Received {
	t.Helper()
	out := map[string]smtptest.Received{}
	for range n {
		m := box.Next(t)
		out[m.To] = m
	}
	return out
}

// invitePath is the path of the invitation link in a letter (in both parts).
func invitePath(t *testing.T, m smtptest.Received) string {
	t.Helper()
	return mailLinkPath(t, inviteLink, m)
}

// refusedRows is email → reason of the rows listed as not invited.
func refusedRows(p *webtest.Page) map[string]string {
	out := map[string]string{}
	p.Doc.Find("#invite-refused li").Each(func(_ int, li *goquery.Selection) {
		out[li.AttrOr("data-email", "")] = strings.TrimSpace(li.Text())
	})
	return out
}

// expectRefused checks each address's reason contains want.
func expectRefused(t *testing.T, p *webtest.Page, want map[string]string) {
	t.Helper()
	got := refusedRows(p)
	if len(got) != len(want) {
		t.Fatalf("refused rows %v, want %v", got, want)
	}
	for email, reason := range want {
		if !strings.Contains(got[email], reason) {
			t.Errorf("row %s: %q, want %q", email, got[email], reason)
		}
	}
}

// Without JavaScript, from the letter to the membership: a pasted list and
// a CSV invite the good rows and list each bad one with its reason; the
// seats count pending invitations; the letters come in the row's language
// (else the admin's) with a link a new person signs up through and joins
// by; a used, expired, resent or canceled link explains itself.
func TestInvitationsWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	box := s.WithMail(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	admin := inviteOrg(t, s, root, "norte", "5", "boss@example.com")
	inviteOrg(t, s, root, "sur", "5", "other@example.com")
	s.User(t, "ana@example.com", orgPass, models.PlanFree)

	p := invite(t, admin, "new@example.com, ana@example.com\nnot-an-address  new@example.com;other@example.com boss@example.com")
	if p.Status != http.StatusOK || p.Text("#admin-flash") != "Invitations sent: 2." {
		t.Fatalf("invite: %d %q %q", p.Status, p.Text("#admin-flash"), p.Text("#admin-error"))
	}
	expectRefused(t, p, map[string]string{"not-an-address": "not an email address", "new@example.com": "appears earlier",
		"other@example.com": "another organization", "boss@example.com": "already a member"})
	got := letters(t, box, 2)
	if m := got["new@example.com"]; m.Subject != "You are invited to join Org norte on aula" {
		t.Fatalf("letter to new@: %q", m.Subject)
	}
	firstNewPath := invitePath(t, got["new@example.com"])

	// The CSV: a header, a row in Spanish, a bad language; the seats (5:
	// the admin and 2 pending) leave room for 2 more, so the third is refused.
	p = uploadCSV(t, admin, []byte("email,language\nluz@example.com,es\nbad@example.com,fr\nx1@example.com\ny1@example.com,en\n"))
	if p.Status != http.StatusOK || p.Text("#admin-flash") != "Invitations sent: 2." {
		t.Fatalf("csv: %d %q %q", p.Status, p.Text("#admin-flash"), p.Text("#admin-error"))
	}
	expectRefused(t, p, map[string]string{"bad@example.com": "neither en nor es", "y1@example.com": "no free seat"})
	got = letters(t, box, 2)
	if m := got["luz@example.com"]; m.Subject != "Te invitan a unirte a Org norte en aula" || !strings.Contains(m.Text, "Unirme a Org norte") {
		t.Fatalf("letter to luz@ is not in Spanish: %q\n%s", m.Subject, m.Text)
	}
	if m := got["x1@example.com"]; m.Subject != "You are invited to join Org norte on aula" {
		t.Fatalf("letter to x1@ (the admin's language): %q", m.Subject)
	}
	luzPath, x1Path := invitePath(t, got["luz@example.com"]), invitePath(t, got["x1@example.com"])
	if n := admin.Get("/org").Doc.Find("#pending-invitations tbody tr").Length(); n != 4 {
		t.Fatalf("%d pending invitations listed, want 4", n)
	}

	// A new person signs up on the way and joins.
	newPath := invitePath(t, letterTo(t, box, admin, "new@example.com"))
	visitor := webtest.New(t, s.URL)
	explains(t, visitor, firstNewPath, http.StatusNotFound, "does not exist")
	p = visitor.Get(newPath)
	if p.Status != http.StatusOK || p.Doc.Find("#join-signup").Length() != 1 {
		t.Fatalf("invitation page to a visitor: %d\n%s", p.Status, p.Text("main"))
	}
	p = visitor.Get(p.Doc.Find("#join-signup").AttrOr("href", ""))
	p = visitor.Submit(p, `form[action="/signup"]`, map[string]string{"name": "Nuevo", "email": "new@example.com", "password": orgPass})
	if p.URL.Path != newPath || p.Doc.Find("#join-form").Length() != 1 {
		t.Fatalf("after sign-up: %d at %s", p.Status, p.URL)
	}
	p = visitor.Submit(p, "#join-form", nil)
	if p.Status != http.StatusOK || p.URL.Path != "/learn" || !strings.Contains(p.Body, "Org norte") {
		t.Fatalf("accept: %d at %s", p.Status, p.URL)
	}
	newUser, _ := s.App.Users.GetByEmail(t.Context(), "new@example.com")
	if plan := planOf(t, s, newUser.ID); plan != models.PlanCorporateUser {
		t.Fatalf("the new member's plan: %s", plan)
	}
	explains(t, visitor, newPath, http.StatusGone, "already used")

	// Canceled (asked first) and expired links explain themselves, in Spanish too.
	luzRow := admin.Get("/org").Doc.Find(`#pending-invitations tr[data-email="luz@example.com"]`)
	confirm := admin.Get(luzRow.Find("a.danger").AttrOr("href", ""))
	if p = admin.Submit(confirm, "#cancel-invitation-confirm", nil); !strings.Contains(p.Text("#admin-flash"), "luz@example.com") {
		t.Fatalf("cancel: %d %q", p.Status, p.Text("#admin-flash"))
	}
	es := webtest.New(t, s.URL)
	es.Lang = "es"
	explains(t, es, luzPath, http.StatusGone, "canceló esta invitación")
	s.DB.Exec(`UPDATE organization_invitations SET expires_at = now() - interval '1 day' WHERE email = 'x1@example.com'`)
	explains(t, es, x1Path, http.StatusGone, "ha caducado")
	explains(t, es, "/join/invite/"+strings.Repeat("A", 43), http.StatusNotFound, "no existe")
}

// letterTo resends the pending invitation of email from /org and returns
// the new letter; the old link stops working.
func letterTo(t *testing.T, box *smtptest.Server, admin *webtest.Client, email string) smtptest.Received {
	t.Helper()
	sel := fmt.Sprintf(`#pending-invitations tr[data-email=%q] form`, email)
	p := admin.Submit(admin.Get("/org"), sel, nil)
	if p.Status != http.StatusOK || !strings.Contains(p.Text("#admin-flash"), email) {
		t.Fatalf("resend to %s: %d %q", email, p.Status, p.Text("#admin-flash"))
	}
	var old smtptest.Received
	for old.To != email {
		old = box.Next(t)
	}
	return old
}

// explains opens a link that no longer works and checks its reason.
func explains(t *testing.T, c *webtest.Client, path string, status int, want string) {
	t.Helper()
	p := c.Get(path)
	if p.Status != status || !strings.Contains(p.Text("#join-problem"), want) || p.Doc.Find("#join-form").Length() != 0 {
		t.Fatalf("%s: %d %q, want %d %q", path, p.Status, p.Text("#join-problem"), status, want)
	}
}

// Thirty people opening one invitation at once give exactly one member
// and 29 clear refusals (in Spanish): the invitation is read again under
// the organization's lock.
func TestInvitationAcceptedOnceInParallel(t *testing.T) {
	s := apptest.New(t)
	box := s.WithMail(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	admin := inviteOrg(t, s, s.SignIn(t, "root@example.com", orgPass), "norte", "50", "boss@example.com")
	if p := invite(t, admin, "guest@example.com"); p.Status != http.StatusOK {
		t.Fatalf("invite: %d %q", p.Status, p.Text("#admin-error"))
	}
	path := invitePath(t, box.Next(t))
	const n = 30
	first := s.User(t, "p00@example.com", orgPass, models.PlanFree)
	// The others share the first one's password hash: no 29 hashings.
	if err := s.DB.Exec(`INSERT INTO users (email, name, password_hash, plan)
		SELECT 'p' || lpad(i::text, 2, '0') || '@example.com', 'Person ' || i, password_hash, 'FREE'
		FROM users, generate_series(1, ?) i WHERE id = ?`, n-1, first.ID).Error; err != nil {
		t.Fatal(err)
	}
	clients, forms := make([]*webtest.Client, n), make([]url.Values, n)
	for i := range n {
		clients[i] = s.SignIn(t, fmt.Sprintf("p%02d@example.com", i), orgPass)
		clients[i].Lang = "es"
		forms[i] = url.Values{"_csrf": {clients[i].Get(path).CSRF()}}
	}
	// Open the pool's connections first, or opening them would stagger the requests.
	if err := models.Warm(t.Context(), s.DB.DB); err != nil {
		t.Fatal(err)
	}
	pages := make([]*webtest.Page, n)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { pages[i] = c.Post(path, forms[i]) })
	}
	wg.Wait()
	joined, refused := 0, 0
	for i, p := range pages {
		switch {
		case p.Status == http.StatusOK && p.URL.Path == "/learn":
			joined++
		case p.Status == http.StatusGone && strings.Contains(p.Text("#join-problem"), "ya se usó"):
			refused++
		default:
			t.Errorf("person %d: %d at %s: %q", i, p.Status, p.URL, p.Text("#join-problem"))
		}
	}
	members := apptest.Count(t, s, `SELECT count(*) FROM organization_members WHERE role = 'member'`)
	if joined != 1 || refused != n-1 || members != 1 {
		t.Fatalf("%d joined, %d refused, %d members; want 1, %d and 1", joined, refused, members, n-1)
	}
}

// An admin of one organization reaches none of another's invitations
// (404), and bad input answers a clear 4xx in the admin's language.
func TestInvitationsIsolationAndBadInput(t *testing.T) {
	s := apptest.New(t)
	box := s.WithMail(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	a := inviteOrg(t, s, root, "norte", "5", "a@example.com")
	b := inviteOrg(t, s, root, "sur", "5", "b@example.com")
	invite(t, a, "secret@example.com")
	box.Next(t)
	var id int64
	s.DB.Raw(`SELECT id FROM organization_invitations WHERE email = 'secret@example.com'`).Scan(&id)
	if strings.Contains(b.Get("/org").Body, "secret@example.com") {
		t.Fatal("org B's admin sees org A's invitation")
	}
	csrf := b.Get("/org").CSRF()
	for _, path := range []string{"/org/invitations/%d/resend", "/org/invitations/%d/cancel"} {
		if p := b.Post(fmt.Sprintf(path, id), url.Values{"_csrf": {csrf}}); p.Status != http.StatusNotFound {
			t.Errorf("POST %s by org B: %d", path, p.Status)
		}
	}
	if p := b.Get(fmt.Sprintf("/org/invitations/%d/cancel", id)); p.Status != http.StatusNotFound {
		t.Errorf("cancel page by org B: %d", p.Status)
	}
	var canceled int
	s.DB.Raw(`SELECT count(*) FROM organization_invitations WHERE canceled_at IS NOT NULL`).Scan(&canceled)
	if canceled != 0 {
		t.Fatal("org B canceled org A's invitation")
	}

	a.Lang = "es"
	big := bytes.Repeat([]byte("someone.with.a.long.name@example.com\n"), 30000)
	tests := []struct {
		name   string
		send   func() *webtest.Page
		status int
		want   string
	}{
		{"empty list", func() *webtest.Page { return invite(t, a, " , \n") }, 422, "al menos una dirección"},
		{"NUL in the list", func() *webtest.Page { return invite(t, a, "x@example.com\x00") }, 400, "no puede guardar"},
		{"invalid UTF-8 in the list", func() *webtest.Page { return invite(t, a, "x@example.com\xff") }, 400, "no puede guardar"},
		{"only bad rows", func() *webtest.Page { return invite(t, a, "nope, secret@example.com") }, 422, "no es una dirección"},
		{"1001 addresses", func() *webtest.Page { return invite(t, a, strings.Repeat("x@example.com ", 1001)) }, 413, "1000 direcciones"},
		{"CSV with NUL", func() *webtest.Page { return uploadCSV(t, a, []byte("x@example.com\x00,es\n")) }, 400, "UTF-8"},
		{"CSV not UTF-8", func() *webtest.Page { return uploadCSV(t, a, []byte("x@example.com,\xe9s\n")) }, 400, "UTF-8"},
		{"CSV badly quoted", func() *webtest.Page { return uploadCSV(t, a, []byte("\"x@example.com,es\nq\"q\n")) }, 422, "no es un CSV"},
		{"CSV three columns", func() *webtest.Page { return uploadCSV(t, a, []byte("x@example.com,es,more\n")) }, 422, "no es un CSV"},
		{"huge CSV", func() *webtest.Page { return uploadCSV(t, a, big) }, 413, "1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.send()
			msg := p.Text("#admin-error") + p.Text("#invite-refused") + p.Text("main")
			if p.Status != tt.status || !strings.Contains(msg, tt.want) {
				t.Fatalf("%d, want %d %q:\n%s", p.Status, tt.status, tt.want, msg)
			}
		})
	}
	var n int
	s.DB.Raw(`SELECT count(*) FROM organization_invitations`).Scan(&n)
	if n != 1 {
		t.Fatalf("%d invitations: bad input invited someone", n)
	}
}
