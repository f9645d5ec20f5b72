package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
	"aula/tutor"
)

// axeSource is axe-core, pinned in package.json and installed into
// node_modules by `go tool task assets`. It is injected into pages by the
// tests only: nothing under node_modules is served.
func axeSource(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
	src, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is not installed (run `go tool task assets`): %v", err)
	}
	return string(src)
}

// violation is one axe-core rule a page breaks.
type violation struct {
	ID, Impact, Target string
	Nodes              int
}

// runAxe injects axe-core into the page shown and returns its violations.
func runAxe(b *browser.Browser, axe string) []violation {
	b.T.Helper()
	eval[bool](b, axe+";\ntrue")
	ctx, cancel := context.WithTimeout(b.Ctx, browser.StepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]violation](`axe.run(document, {resultTypes: ['violations']}).then(r =>
		r.violations.map(v => ({ID: v.id, Impact: v.impact || '', Nodes: v.nodes.length,
			Target: v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')})))`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.Fatalf("run axe-core: %v", err)
	}
	return v
}

// axeRole is who looks at which pages.
type axeRole struct {
	name, email string
	pages       []string
}

// Every page, in English and Spanish, light and dark, signed out, as a
// student and as an admin, has no serious or critical axe-core violation.
func TestAccessibilityAxe(t *testing.T) {
	axe := axeSource(t)
	s := apptest.New(t)
	student := s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	s.User(t, "root@example.com", "a-long-password-1", models.PlanSuperAdmin)
	cid := seedAxeConversations(t, s, student)
	lesson := "/learn/networking/vlan-basics"
	chk := seedAxeCheck(t, s, student)
	roles := []axeRole{
		{"signed-out", "", []string{"/", "/login", "/signup", "/password/forgot"}},
		{"student", "ana@example.com", []string{"/learn", "/learn/networking", lesson, lesson + "?tutor=open&history=open",
			"/chat/" + cid, "/chat/" + cid + "/delete", "/checks/" + chk, lesson + "?tutor=open&session=" + chk, "/dashboard", "/settings", "/settings/delete", "/upgrade"}},
		{"admin", "root@example.com", []string{"/chat", "/admin", "/admin/ratings", "/admin/understanding", "/admin/latency", "/admin/suggestions",
			"/admin/users", "/admin/routes"}},
	}
	serious := 0
	for _, r := range roles {
		b := browser.New(t, browser.WithTimeout(6*time.Minute))
		b.Viewport(browser.Desktop, false)
		if r.email != "" {
			signIn(b, s, r.email, "a-long-password-1")
		}
		for _, lang := range []string{"en", "es"} {
			for _, p := range r.pages {
				serious += axePage(t, b, axe, s.URL+p, r.name+" "+lang+" "+p)
			}
			b.Navigate(s.URL + r.pages[0])
			b.ClickAndWait("#lang-switch")
		}
	}
	figure(t, "axe.serious_or_critical_total", serious)
}

// axePage runs axe-core on one page in both schemes, logs the counts and
// fails on serious or critical violations; it returns how many there were.
func axePage(t *testing.T, b *browser.Browser, axe, url, label string) int {
	t.Helper()
	b.Navigate(url)
	bad := 0
	for _, sch := range []string{"light", "dark"} {
		b.ColorScheme(sch)
		counts := map[string]int{}
		var ids []string
		for _, v := range runAxe(b, axe) {
			counts[v.Impact]++
			ids = append(ids, v.Impact+":"+v.ID+" ("+v.Target+")")
			if v.Impact == "serious" || v.Impact == "critical" {
				bad++
				b.Errorf("%s (%s): %s %s on %d elements: %s", label, sch, v.Impact, v.ID, v.Nodes, v.Target)
			}
		}
		figure(t, "axe "+label+" "+sch, fmt.Sprintf("critical %d, serious %d, moderate %d, minor %d %v",
			counts["critical"], counts["serious"], counts["moderate"], counts["minor"], ids))
	}
	return bad
}

// signIn signs the browser in as email.
func signIn(b *browser.Browser, s *apptest.Server, email, password string) {
	b.T.Helper()
	b.Navigate(s.URL + "/login")
	b.Fill("#email", email)
	b.Fill("#password", password)
	b.ClickAndWait("#login-submit")
	if strings.HasPrefix(b.Path(), "/login") {
		b.Fatalf("could not sign in as %s", email)
	}
}

// seedAxeConversations gives the student a tutor thread (with a file) and a
// lesson session, each answered, and returns the thread's id.
func seedAxeConversations(t *testing.T, s *apptest.Server, u *models.User) string {
	t.Helper()
	ctx := context.Background()
	var cid string
	for _, c := range []struct{ mode, lesson string }{{models.ModeLesson, "vlan-basics"}, {models.ModeTutor, ""}} {
		conv, err := s.App.Conversations.Create(ctx, u.ID, c.mode, c.lesson, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		in := tutor.AskInput{UserID: u.ID, ConversationID: conv.ID, Content: "What is a VLAN trunk?"}
		if c.mode == models.ModeTutor {
			in.Attachment = &models.AttachmentInput{Filename: "notes.md", MIME: "text/markdown", Data: []byte("# Notes\n"), Text: "# Notes\n"}
			cid = conv.ID
		}
		res, err := s.Tutor.Ask(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Tutor.Streams().Wait(ctx, u.ID, res.AssistantMessage.ID); err != nil {
			t.Fatal(err)
		}
	}
	return cid
}

// seedAxeCheck starts a check on vlan-basics for the student and answers
// its first question wrongly, so its feedback and a next question show.
func seedAxeCheck(t *testing.T, s *apptest.Server, u *models.User) string {
	t.Helper()
	ctx := context.Background()
	st, err := s.Tutor.StartCheck(ctx, u, tutor.CheckScope{LessonID: "vlan-basics"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tutor.AnswerCheck(ctx, u, st.Check.ConversationID, "surely something else"); err != nil {
		t.Fatal(err)
	}
	return st.Check.ConversationID
}
