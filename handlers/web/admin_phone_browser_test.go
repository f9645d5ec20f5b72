package web_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"sort"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
	"aula/tutor"
)

// failOrLong answers like longAnswer, and fails a question starting "fail".
func failOrLong(ctx context.Context, n int, req tutor.Request, emit func(string) error) error {
	if strings.HasPrefix(req.Question, "fail") {
		return errors.New("the provider broke off")
	}
	return longAnswer(ctx, n, req, emit)
}

// adminPages are the admin screens in the site's route table: every GET
// route under /admin without a parameter.
func adminPages(t *testing.T, s *apptest.Server) []string {
	t.Helper()
	var out []string
	for _, r := range s.Handler.Routes() {
		if r.Method == http.MethodGet && (r.Path == "/admin" || strings.HasPrefix(r.Path, "/admin/")) && !strings.ContainsAny(r.Path, ":*") &&
			!strings.Contains(path.Base(r.Path), ".") { // downloads (a .zip, a .csv) are not pages
			out = append(out, r.Path)
		}
	}
	sort.Strings(out)
	if len(out) < 7 {
		t.Fatalf("the route table lists %d admin pages: %v", len(out), out)
	}
	return out
}

// seedAdminData fills every admin table with rows as wide as real ones:
// long addresses, rated answers with comments and reasons, a failed
// answer, a pending upgrade request, a plan change and a knowledge check.
func seedAdminData(t *testing.T, s *apptest.Server, root *models.User) {
	t.Helper()
	ctx, now := context.Background(), time.Now()
	var students []*models.User
	for _, u := range [][2]string{{"maria.fernanda.gonzalez-rodriguez@estudiantes.universidad-ejemplo.edu", models.PlanFree},
		{"jean-baptiste.delacroix-montgomery@example.org", models.PlanFree}, {"ana@example.com", models.PlanPro}} {
		students = append(students, s.User(t, u[0], "a-long-password-1", u[1]))
	}
	if err := s.App.Upgrades.Request(ctx, students[0].ID, models.PlanFree, models.PlanPro, now); err != nil {
		t.Fatal(err)
	}
	if _, err := s.App.Audit.ChangePlan(ctx, root.ID, students[1].ID, models.PlanPro, now); err != nil {
		t.Fatal(err)
	}
	cid := seedConversation(t, s, students[2], models.ModeLesson, "vlan-basics", 3)
	var answers []string
	for _, m := range apptest.ThreadMessages(t, s, cid) {
		if m.Role == models.RoleAssistant {
			answers = append(answers, m.ID)
		}
	}
	rates := [][3]string{{"down", "lesson_unclear", "The part about trunk ports and native VLANs went by far too quickly for me to follow."},
		{"down", "answer_wrong", "It said a VLAN needs a router to exist, which the lesson contradicts."}, {"up", "", ""}}
	for i, r := range rates {
		if err := s.App.Messages.Rate(ctx, students[2].ID, answers[i], r[0], r[1], r[2]); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Tutor.Ask(ctx, tutor.AskInput{UserID: students[2].ID, ConversationID: cid, Content: "fail: and trunks?"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tutor.Streams().Wait(ctx, students[2].ID, res.AssistantMessage.ID); err != nil {
		t.Fatal(err)
	}
	seedAxeCheck(t, s, students[2])
}

// menuJS lists the top menu's and the admin tabs' links and buttons that
// are not wholly on screen and clickable: off the window's sides, clipped
// by a box that hides its overflow, or covered by something else.
const menuJS = `(() => {
	const bad = [];
	for (const a of document.querySelectorAll('.topbar .nav a, .topbar .nav-actions a, .topbar .nav-actions button, .admin-tabs a')) {
		const r = a.getBoundingClientRect(), name = a.textContent.trim();
		if (r.width < 1 || r.left < -0.5 || r.right > innerWidth + 0.5 || r.top < -0.5 || r.bottom > innerHeight + 0.5) {
			bad.push(name + ' at ' + Math.round(r.left) + '…' + Math.round(r.right));
			continue;
		}
		for (let p = a.parentElement; p && p !== document.body; p = p.parentElement) {
			const cs = getComputedStyle(p);
			if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
			const c = p.getBoundingClientRect();
			if (r.left < c.left - 0.5 || r.right > c.right + 0.5 || r.top < c.top - 0.5 || r.bottom > c.bottom + 0.5) {
				bad.push(name + ' clipped by ' + p.tagName.toLowerCase() + '.' + p.className);
				break;
			}
		}
		const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
		if (!hit || (hit !== a && !a.contains(hit))) bad.push(name + ' covered');
	}
	return bad;
})()`

// On a 390×844 phone, in English and Spanish, light and dark, no admin
// page is wider than the screen (every table fits), and every item of the
// top menu and of the admin tabs is wholly on screen, uncut.
func TestLayoutAdminPagesFitAPhone(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(&apptest.Scripted{Answer: failOrLong}))
	root := s.User(t, "root@example.com", "a-long-password-1", models.PlanSuperAdmin)
	seedAdminData(t, s, root)
	pages := adminPages(t, s)
	b := browser.New(t, browser.WithTimeout(5*time.Minute))
	b.Viewport(browser.Phone, true)
	signIn(b, s, "root@example.com", "a-long-password-1")
	worst, worstPage := 0.0, ""
	for _, lang := range []string{"en", "es"} {
		for _, p := range pages {
			b.Navigate(s.URL + p)
			for _, sch := range []string{"light", "dark"} {
				b.ColorScheme(sch)
				label := fmt.Sprintf("%s %s %s", p, lang, sch)
				w := eval[float64](b, `document.scrollingElement.scrollWidth`)
				if w > worst {
					worst, worstPage = w, label
				}
				if w > float64(browser.Phone[0]) {
					b.Errorf("%s is %.0f px wide on a %d px phone", label, w, browser.Phone[0])
				}
				if bad := eval[[]string](b, menuJS); len(bad) > 0 {
					b.Errorf("%s: menu items cut or out of reach: %v", label, bad)
				}
				b.Shot(shotsDir(), "admin"+strings.ReplaceAll(strings.TrimPrefix(p, "/admin"), "/", "-")+"-390-"+lang+"-"+sch)
			}
		}
		b.ClickAndWait("#lang-switch")
	}
	figure(t, "admin.phone.widest_page_px", fmt.Sprintf("%.0f (%s)", worst, worstPage))
}
