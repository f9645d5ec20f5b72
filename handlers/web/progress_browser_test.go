package web_test

import (
	"fmt"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// Reaching the end of a lesson reads it: at the top the lesson is not
// read; scrolled to its end, the browser posts, the end says "Read ✓" and
// the catalog and the path count it.
func TestBrowserReadByReachingTheEnd(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	b.Viewport(browser.Desktop, false)
	b.Navigate(s.URL + "/learn/networking/subnetting")
	b.WaitVisible("#lesson h1")
	// HTMX wires the form once loaded; only then can the end be reached.
	waitFor(b, "the read form wired", `!!(document.getElementById('read-state')||{})['htmx-internal-data']`)
	if b.Text("#read-state") != "Mark as done" {
		b.Fatalf("the lesson is read before its end was reached: %q", b.Text("#read-state"))
	}
	var n int
	s.DB.Raw(`SELECT count(*) FROM lesson_reads`).Row().Scan(&n)
	if n != 0 {
		b.Fatalf("%d reads before the end was reached", n)
	}
	eval[bool](b, `(document.getElementById('lesson-end').scrollIntoView({block: 'end'}), true)`)
	waitFor(b, "the read state", `document.getElementById('read-state').textContent.trim() === 'Read ✓'`)

	b.Navigate(s.URL + "/learn")
	b.WaitVisible("#progress-networking")
	if got := b.Text("#progress-networking .progress-read"); got != "1 of 4 lessons read" {
		b.Fatalf("the catalog says %q", got)
	}
	// The lesson opened last is read: Continue goes on to the path's next one.
	if href, _ := b.Attr("#resume-link", "href"); href != "/learn/networking/routing-basics" {
		b.Fatalf("continue links %q, want the next lesson", href)
	}
	b.Navigate(s.URL + "/learn/networking")
	b.WaitVisible("#li-subnetting")
	if got := b.Text("#li-subnetting .read-badge"); got != "Read ✓" {
		b.Fatalf("the path shows %q for the lesson", got)
	}
}

// Without JavaScript nothing is read by reaching the end; the button
// reads it. AULA_SHOTS=DIR saves the unread end at both sizes and schemes.
func TestBrowserMarkDoneWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	b := browser.New(t, browser.WithoutJavaScript())
	signIn(b, s, "ana@example.com", "a-long-password-1")
	for _, size := range []struct {
		name   string
		vp     [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		b.Viewport(size.vp, size.mobile)
		for _, sc := range []string{"light", "dark"} {
			b.ColorScheme(sc)
			b.Navigate(s.URL + "/learn/networking/vlan-basics#lesson-end")
			b.WaitReady("#mark-done")
			b.Shot(shotsDir(), fmt.Sprintf("lesson-end-unread-%s-%s", size.name, sc))
		}
	}
	var n int
	s.DB.Raw(`SELECT count(*) FROM lesson_reads`).Row().Scan(&n)
	if n != 0 {
		b.Fatalf("%d lessons read by only reaching the end without JavaScript", n)
	}
	b.ClickAndWait("#mark-done")
	if b.Path() != "/learn/networking/vlan-basics" || b.Text("#read-state") != "Read ✓" {
		b.Fatalf("after Mark as done: at %s, %q", b.Path(), b.Text("#read-state"))
	}
	b.Navigate(s.URL + "/learn")
	if got := b.Text("#progress-networking .progress-read"); got != "1 of 4 lessons read" {
		b.Fatalf("the catalog says %q", got)
	}
}

// The screens progress changes, at the laptop and the phone size, light
// and dark: none is wider than the window. AULA_SHOTS=DIR saves them.
func TestLayoutProgressScreens(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanFree)
	b := signInBrowser(t, s, "ana@example.com", "a-long-password-1")
	for _, l := range []string{"vlan-basics", "vlan-cisco-ios"} {
		if err := s.App.Progress.MarkRead(t.Context(), u.ID, "networking", l, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.App.Progress.VisitLesson(t.Context(), u.ID, "subnetting", time.Now()); err != nil {
		t.Fatal(err)
	}
	// Sections as grading leaves them: one mastered, one due, one mastered and due again.
	if err := s.DB.Exec(`INSERT INTO section_mastery (user_id, lesson_id, anchor, mastered_at, last_checked_at, due_at) VALUES
		(?, 'vlan-basics', 'broadcast-domains-and-the-problem-vlans-solve', now(), now(), now() + interval '3 days'),
		(?, 'vlan-basics', 'how-a-switch-keeps-vlans-apart', NULL, now(), now() - interval '1 hour'),
		(?, 'vlan-basics', 'access-ports-and-trunk-ports', now(), now(), now() - interval '1 hour')`, u.ID, u.ID, u.ID).Error; err != nil {
		t.Fatal(err)
	}
	screens := []struct{ name, url, sel string }{
		{"catalog", "/learn", "#review-form"},
		{"path", "/learn/networking", "#progress-mod-switching"},
		{"lesson-sections", "/learn/networking/vlan-basics#how-a-switch-keeps-vlans-apart", ".section-state"},
		{"lesson-end", "/learn/networking/subnetting", "#lesson-end"},
		{"dashboard", "/dashboard", "#review-form"},
	}
	for _, size := range []struct {
		name   string
		vp     [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		b.Viewport(size.vp, size.mobile)
		for _, sc := range []string{"light", "dark"} {
			b.ColorScheme(sc)
			for _, p := range screens {
				b.Navigate(s.URL + p.url)
				b.WaitVisible(p.sel)
				if p.name == "lesson-end" {
					eval[bool](b, `(document.getElementById('lesson-end').scrollIntoView({block: 'center'}), true)`)
					waitFor(b, "the read state", `document.getElementById('read-state').textContent.trim() === 'Read ✓'`)
				}
				if w := eval[float64](b, `document.documentElement.scrollWidth`); w > float64(size.vp[0]) {
					b.Errorf("%s is %.0f px wide in a %d px window", p.url, w, size.vp[0])
				}
				b.Shot(shotsDir(), fmt.Sprintf("%s-%s-%s", p.name, size.name, sc))
			}
		}
	}
}
