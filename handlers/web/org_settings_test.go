package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// policyOf is organization id's stored tutor policy.
func policyOf(t *testing.T, s *apptest.Server, id string) models.Policy {
	t.Helper()
	p, err := s.App.Orgs.Policy(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// setPolicy submits /org/settings as admin with fields (a checkbox left
// out is off) and returns the page it lands on.
func setPolicy(t *testing.T, admin *webtest.Client, fields map[string]string) *webtest.Page {
	t.Helper()
	return admin.Submit(admin.Get("/org/settings"), "#policy-form", fields)
}

// policyOrgs makes two organizations, A (admin a, members ma and ma2) and
// B (admin b, member mb), and a FREE student; it returns their ids.
func policyOrgs(t *testing.T, s *apptest.Server) (orgA, orgB string) {
	t.Helper()
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	s.User(t, "free@example.com", orgPass, models.PlanFree)
	root := s.SignIn(t, "root@example.com", orgPass)
	return orgWith(t, s, root, "org-a", "a@example.com", "ma@example.com", "ma2@example.com"),
		orgWith(t, s, root, "org-b", "b@example.com", "mb@example.com")
}

// Without JavaScript: the admin finds the policy from /org, sees the
// defaults, saves a new policy (303 to the page, a notice) and sees it
// kept; in Spanish too.
func TestOrgSettingsWithoutJavaScript(t *testing.T) {
	s := apptest.New(t)
	orgA, orgB := policyOrgs(t, s)
	a := s.SignIn(t, "a@example.com", orgPass)
	home := a.Get("/org")
	href := home.Doc.Find("#org-tabs #org-tab-settings").AttrOr("href", "")
	if href != "/org/settings" || home.Doc.Find(`#org-tab-home[aria-current="true"]`).Length() != 1 {
		t.Fatalf("the /org menu has no tutor policy link: %q", href)
	}
	p := a.Get(href)
	if p.Status != http.StatusOK || p.Text("#policy-title") != "Tutor policy" ||
		p.Doc.Find(`#policy-style-explain[checked]`).Length() != 1 || p.Doc.Find(`#policy-guide[checked]`).Length() != 0 ||
		p.Doc.Find(`#policy-help[checked]`).Length() != 1 || p.Doc.Find("#policy-cap").AttrOr("value", "x") != "" {
		t.Fatalf("the defaults are not shown: %d %q", p.Status, p.Text("#policy-form"))
	}

	// The form's post answers 303 to the page itself.
	form := url.Values{"_csrf": {p.CSRF()}, "teaching_style": {"guide"}, "guide_during_checks": {"on"}, "question_cap": {" 25 "}}
	req, _ := http.NewRequest(http.MethodPost, a.Base+"/org/settings", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	noFollow := *a.HTTP
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/org/settings" {
		t.Fatalf("save: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	got := policyOf(t, s, orgA)
	if got.TeachingStyle != "guide" || !got.GuideDuringChecks || got.HelpMode || got.QuestionCap == nil || *got.QuestionCap != 25 {
		t.Fatalf("stored %+v", got)
	}
	p = a.Get("/org/settings")
	if p.Text("#admin-flash") != "Tutor policy saved." || p.Doc.Find(`#policy-style-guide[checked]`).Length() != 1 ||
		p.Doc.Find(`#policy-guide[checked]`).Length() != 1 || p.Doc.Find(`#policy-help[checked]`).Length() != 0 ||
		p.Doc.Find("#policy-cap").AttrOr("value", "") != "25" {
		t.Fatalf("the saved policy is not shown: %q", p.Text("main"))
	}
	if b := policyOf(t, s, orgB); b != models.DefaultPolicy() {
		t.Fatalf("the other organization's policy changed: %+v", b)
	}

	// In Spanish, and back to unlimited with an empty cap.
	a.Lang = "es"
	p = setPolicy(t, a, map[string]string{"teaching_style": "explain", "help_mode": "on", "question_cap": ""})
	if p.Text("#admin-flash") != "Política del tutor guardada." || p.Text("#policy-title") != "Política del tutor" {
		t.Fatalf("Spanish: %q %q", p.Text("#admin-flash"), p.Text("#policy-title"))
	}
	if got := policyOf(t, s, orgA); got != models.DefaultPolicy() {
		t.Fatalf("stored %+v, want the defaults again", got)
	}
}

// Only the organization's own admin changes its policy: its members, a
// FREE student and the other organization's admin get 404 (the other
// admin's post changes their own organization only), and nothing of A changes.
func TestOrgSettingsIsolation(t *testing.T) {
	s := apptest.New(t)
	orgA, orgB := policyOrgs(t, s)
	a := s.SignIn(t, "a@example.com", orgPass)
	setPolicy(t, a, map[string]string{"teaching_style": "guide", "question_cap": "7"})
	want := policyOf(t, s, orgA)
	for _, who := range []string{"ma@example.com", "mb@example.com", "free@example.com"} {
		c := s.SignIn(t, who, orgPass)
		csrf := c.Get("/learn").CSRF()
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			f := url.Values{"teaching_style": {"explain"}, "help_mode": {"on"}, "question_cap": {"1"}}
			if p := send(t, c, method, "/org/settings", f, csrf); p.Status != http.StatusNotFound {
				t.Errorf("%s: %s /org/settings: %d", who, method, p.Status)
			}
		}
		if c.Get("/org").Doc.Find("#org-tab-settings").Length() != 0 {
			t.Errorf("%s is shown the policy link", who)
		}
	}
	b := s.SignIn(t, "b@example.com", orgPass)
	setPolicy(t, b, map[string]string{"teaching_style": "explain", "question_cap": "1"})
	if got := policyOf(t, s, orgA); got.TeachingStyle != want.TeachingStyle || *got.QuestionCap != *want.QuestionCap || got.HelpMode {
		t.Fatalf("B's admin changed A's policy: %+v", got)
	}
	if got := policyOf(t, s, orgB); got.QuestionCap == nil || *got.QuestionCap != 1 {
		t.Fatalf("B's own policy: %+v", got)
	}
	if p := b.Get("/org/settings"); p.Doc.Find("#policy-cap").AttrOr("value", "") != "1" {
		t.Fatalf("B's admin sees %q", p.Doc.Find("#policy-cap").AttrOr("value", ""))
	}
}

// Bad input on /org/settings: a clear 4xx in the admin's language, the
// form as typed, nothing saved.
func TestOrgSettingsBadInput(t *testing.T) {
	s := apptest.New(t)
	orgA, _ := policyOrgs(t, s)
	a := s.SignIn(t, "a@example.com", orgPass)
	setPolicy(t, a, map[string]string{"teaching_style": "guide", "help_mode": "on", "question_cap": "9"})
	want := policyOf(t, s, orgA)
	a.Lang = "es"
	csrf := a.Get("/org/settings").CSRF()
	fields := func(style, cap, guide string) url.Values {
		return url.Values{"_csrf": {csrf}, "teaching_style": {style}, "question_cap": {cap}, "guide_during_checks": {guide}}
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		says   string
	}{
		{"cap 0", fields("explain", "0", ""), 422, "de 1 a 100.000"},
		{"cap negative", fields("explain", "-3", ""), 422, "de 1 a 100.000"},
		{"cap over the bound", fields("explain", "100001", ""), 422, "de 1 a 100.000"},
		{"cap huge", fields("explain", "99999999999999999999", ""), 422, "de 1 a 100.000"},
		{"cap a fraction", fields("explain", "2.5", ""), 422, "de 1 a 100.000"},
		{"cap a word", fields("explain", "diez", ""), 422, "de 1 a 100.000"},
		{"unknown style", fields("socratic", "5", ""), 422, "Explicar o Guíame"},
		{"no style", fields("", "5", ""), 422, "Explicar o Guíame"},
		{"a switch neither on nor off", fields("explain", "5", "yes"), 422, "activado o desactivado"},
		{"NUL in the cap", fields("explain", "5\x00", ""), 400, "UTF-8"},
		{"invalid UTF-8 in the style", fields("gu\xffide", "5", ""), 400, "UTF-8"},
	} {
		p := a.Post("/org/settings", tc.form)
		if p.Status != tc.status || !strings.Contains(p.Text("main"), tc.says) {
			t.Errorf("%s: %d, want %d saying %q: %q", tc.name, p.Status, tc.status, tc.says, p.Text("main"))
		}
		if tc.status == 422 && p.Doc.Find("#policy-cap").AttrOr("value", "") != tc.form.Get("question_cap") {
			t.Errorf("%s: the cap typed is not shown again", tc.name)
		}
	}
	if got := policyOf(t, s, orgA); got.TeachingStyle != want.TeachingStyle || *got.QuestionCap != 9 || !got.HelpMode || got.GuideDuringChecks {
		t.Fatalf("bad input changed the policy: %+v", got)
	}
}
