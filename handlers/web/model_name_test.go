package web_test

import (
	"net/http"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/models"
	"aula/tutor"
)

// Students see the tutor's model by the name an admin gives it in Admin →
// AI routes, on the panel's badge and under each answer, else by the
// model's own name: never "openai · fake-model". A name too long is a 422
// in the admin's language and changes nothing.
func TestStudentsSeeTheModelsDisplayName(t *testing.T) {
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: []string{"A trunk ", "carries VLANs."}})
	s := apptest.New(t, func(c *tutor.Config) {
		c.Credentials = tutor.Credentials{OpenAIKey: "k", OpenAIBaseURL: srv.URL}
	})
	s.User(t, "root@example.com", "a-long-password-1", models.PlanSuperAdmin)
	s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	admin := s.SignIn(t, "root@example.com", "a-long-password-1")
	student := s.SignIn(t, "ana@example.com", "a-long-password-1")
	const lesson = "/learn/networking/vlan-basics"
	save := func(name string) int {
		t.Helper()
		p := admin.Submit(admin.Get("/admin/routes"), `form[action="/admin/routes/tutor_chat"]`,
			map[string]string{"provider": "openai", "model": "fake-model", "display_name": name})
		return p.Status
	}

	if st := save(""); st != http.StatusOK {
		t.Fatalf("saving the route: %d", st)
	}
	if got := student.Get(lesson).Text("#tutor-panel #model-badge"); got != "fake-model" {
		t.Errorf("badge without a display name %q, want the model's name", got)
	}

	if st := save("  Aula Tutor  "); st != http.StatusOK {
		t.Fatalf("saving the display name: %d", st)
	}
	if got := admin.Get("/admin/routes").Doc.Find("#display-name").AttrOr("value", ""); got != "Aula Tutor" {
		t.Errorf("the routes page shows the display name %q", got)
	}
	page := student.Get(lesson + "?tutor=open")
	if got := page.Text("#tutor-panel #model-badge"); got != "Aula Tutor" {
		t.Errorf("badge %q, want the display name", got)
	}
	answered := student.Submit(page, "#ask-form", map[string]string{"content": "What does a trunk carry?"})
	answered = student.Get(answered.URL.RequestURI())
	if !strings.Contains(answered.Text("#tutor-panel .receipt"), "Model: Aula Tutor") {
		t.Errorf("the answer's receipt says %q", answered.Text("#tutor-panel .receipt"))
	}
	for _, p := range []string{lesson + "?tutor=open", "/chat"} {
		body := student.Get(p).Body
		if strings.Contains(body, "openai · ") || strings.Contains(body, "openai / ") {
			t.Errorf("%s shows the provider to a student", p)
		}
	}

	admin.Lang = "es"
	bad := admin.Submit(admin.Get("/admin/routes"), `form[action="/admin/routes/tutor_chat"]`,
		map[string]string{"provider": "openai", "model": "fake-model", "display_name": strings.Repeat("x", 61)})
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Text("#admin-error"), "60 caracteres") {
		t.Errorf("a 61-character name: %d %q", bad.Status, bad.Text("#admin-error"))
	}
	if got := student.Get(lesson).Text("#tutor-panel #model-badge"); got != "Aula Tutor" {
		t.Errorf("a refused name changed the badge to %q", got)
	}
}
