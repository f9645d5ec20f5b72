package web_test

import (
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// Without JavaScript on a fresh install (the offline tutor): a student
// never sees configuration advice, a question the lessons do not cover is
// said to be so and not counted, a greeting gets a self-introduction; the
// admin overview says, once, how to connect a language model.
func TestOfflineTutorHonestWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	student := s.User(t, "frida@example.com", "pass-phrase-1", models.PlanFree)
	s.User(t, "root@example.com", "pass-phrase-1", models.PlanSuperAdmin)
	c := s.SignIn(t, "frida@example.com", "pass-phrase-1")
	cid := apptest.NewThread(t, c)
	cases := []struct {
		q, want string
		counted int64 // questions counted so far
	}{
		{"What is DNS?", "the lessons do not cover it", 0},
		{"Who are you?", "I'm aula's offline tutor", 0},
		{"What is a VLAN?", "[§", 1},
	}
	for _, tc := range cases {
		_, mid := askPlain(t, c, cid, tc.q)
		m := apptest.Message(t, s, mid)
		if m.Status != models.StatusComplete || !strings.Contains(m.Content, tc.want) || strings.Contains(m.Content, "AULA_LLM_PROVIDER") {
			t.Errorf("%q: %s %q", tc.q, m.Status, m.Content)
		}
		page := c.Get("/chat/" + cid)
		if strings.Contains(page.Body, "AULA_LLM_PROVIDER") {
			t.Errorf("%q: the student's page shows configuration advice", tc.q)
		}
		used := apptest.Count(t, s, `SELECT coalesce(sum(questions), 0) FROM plan_usage WHERE user_id = ?`, student.ID)
		if used != tc.counted {
			t.Errorf("%q: %d questions counted so far, want %d", tc.q, used, tc.counted)
		}
	}
	admin := s.SignIn(t, "root@example.com", "pass-phrase-1")
	p := admin.Get("/admin")
	if got := p.Text("#offline-notice"); !strings.Contains(got, "AULA_LLM_PROVIDER") {
		t.Errorf("the admin overview does not say how to connect a model: %q", got)
	}
	if n := strings.Count(p.Body, "AULA_LLM_PROVIDER"); n != 1 {
		t.Errorf("the advice appears %d times on /admin, want once", n)
	}
}
