package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// runSectionCheck starts the check of the lesson section with anchor from
// its button and answers every question, right or wrong, with plain forms.
func runSectionCheck(t *testing.T, s *apptest.Server, c *webtest.Client, lesson, anchor string, right bool) {
	t.Helper()
	p := c.Submit(c.Get(lesson), fmt.Sprintf(`.prose form.section-check:has(input[name="anchor"][value=%q])`, anchor), nil)
	cid := checkID(t, p)
	for i := 0; p.Doc.Find("#check-form").Length() == 1; i++ {
		answer := "I do not know"
		if right {
			answer = expected(t, s, cid)
		}
		p = c.Submit(p, "#check-form", map[string]string{"answer": answer})
		if p.Status != http.StatusOK || i > 2*models.MaxCheckItems {
			t.Fatalf("answer %d of the check on %s: status %d", i, anchor, p.Status)
		}
	}
}

// Progress follows real checks: a section answered right throughout is
// mastered, one answered wrong is due at once; the lesson, the path and
// the catalog say so, and "Review 1 section due" checks that section.
func TestProgressFollowsGradedChecks(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	s := apptest.New(t, at(now))
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	var anchors []string
	s.DB.Raw(`SELECT DISTINCT anchor FROM lesson_chunks WHERE lesson_id = 'go-functions-errors' AND anchor <> '' ORDER BY anchor LIMIT 2`).Scan(&anchors)
	if len(anchors) != 2 {
		t.Fatalf("sections %v", anchors)
	}
	mastered, due := anchors[0], anchors[1]
	runSectionCheck(t, s, c, checkLesson, mastered, true)
	runSectionCheck(t, s, c, checkLesson, due, false)

	lesson := c.Get(checkLesson)
	for anchor, want := range map[string]string{mastered: "Mastered ✓", due: "Due for review"} {
		if got := lesson.Text(fmt.Sprintf(`.section-state[data-section=%q]`, anchor)); got != want {
			t.Errorf("section %s: %q, want %q", anchor, got, want)
		}
	}
	var sections int
	s.DB.Raw(`SELECT count(DISTINCT (c.lesson_id, c.anchor)) FROM lesson_chunks c JOIN lessons l ON l.id = c.lesson_id
		JOIN modules m ON m.id = l.module_id JOIN paths p ON p.id = m.path_id WHERE p.slug = 'go-basics'`).Row().Scan(&sections)
	want := fmt.Sprintf("2 of %d sections checked, 1 mastered", sections)
	for _, p := range []struct{ url, sel string }{
		{"/learn", "#progress-go-basics .progress-sections"},
		{"/learn/go-basics", "#progress-go-basics .progress-sections"},
		{"/learn/go-basics", "#progress-mod-language .progress-sections"},
	} {
		if got := c.Get(p.url).Text(p.sel); got != want {
			t.Errorf("%s %s: %q, want %q", p.url, p.sel, got, want)
		}
	}

	dash := c.Get("/dashboard")
	if got := dash.Text("#review-form button"); got != "Review 1 section due" {
		t.Fatalf("dashboard offers %q", got)
	}
	review := c.Submit(dash, "#review-form", nil)
	if review.Status != http.StatusOK || !strings.HasPrefix(review.URL.Path, "/checks/") {
		t.Fatalf("the review led to %d %s", review.Status, review.URL)
	}
	var scope []string
	s.DB.Raw(`SELECT lesson_id || '#' || anchor FROM check_sections WHERE conversation_id = ? ORDER BY position`,
		strings.TrimPrefix(review.URL.Path, "/checks/")).Scan(&scope)
	if strings.Join(scope, ",") != "go-functions-errors#"+due {
		t.Errorf("the review asks about %v, want the section due", scope)
	}
}
