package web_test

import (
	"context"
	"fmt"
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// shotScreen is a page to photograph, scrolled to an element ("" the top).
type shotScreen struct{ name, url, scrollTo string }

// The screens issue 26's rough edges changed (the panel's badge and
// receipt, the intro's link, the dashboard's counts, the understanding and
// ratings tables, the routes' display name, the site's contact address and
// the forgot-password page), at 1366×900 and 390×844, light and dark,
// saved under AULA_SHOTS for a person to look at. Each shows what it was
// changed to show.
func TestRoughEdgesScreens(t *testing.T) {
	if shotsDir() == "" {
		t.Skip("set AULA_SHOTS=DIR to photograph the screens")
	}
	s, _, lp, mid := askAboutIntro(t)
	s.User(t, "root@example.com", "a-long-password-1", models.PlanSuperAdmin)
	understandingSeed(t, s)
	var anchor, hash, student string
	s.DB.Raw(`SELECT anchor, hash FROM lesson_chunks WHERE lesson_id = 'vlan-basics' AND anchor <> '' ORDER BY position LIMIT 1`).Row().Scan(&anchor, &hash)
	s.DB.Raw(`SELECT id FROM users WHERE email = 'ana@example.com'`).Scan(&student)
	for _, sql := range []string{
		`INSERT INTO check_question_totals (lesson_id, anchor, section_hash, question_hash, question, answers, not_yet)
			VALUES ('vlan-basics', '` + anchor + `', '` + hash + `', 'md', 'What does **` + "`switchport mode trunk`" + `** do on a *Cisco* port?', 12, 9)`,
		`UPDATE ai_routes SET display_name = 'Aula Tutor' WHERE use_case = 'tutor_chat'`,
		`INSERT INTO site_settings (contact_email) VALUES ('help@school.example')`,
	} {
		if err := s.DB.Exec(sql).Error; err != nil {
			t.Fatal(err)
		}
	}
	if err := s.App.Messages.Rate(context.Background(), student, mid, models.RatingDown, "lesson_unclear", ""); err != nil {
		t.Fatal(err)
	}
	panel := lp.URL.RequestURI()
	photograph(t, s, "", []shotScreen{{"forgot", "/password/forgot", ""}})
	photograph(t, s, "ana@example.com", []shotScreen{
		{"panel", panel, "#m-" + mid + " .receipt"}, {"lesson-intro", panel, ""}, {"dashboard", "/dashboard", ""}})
	photograph(t, s, "root@example.com", []shotScreen{
		{"understanding", "/admin/understanding", "#u-missed-h"}, {"understanding-top", "/admin/understanding", ""},
		{"ratings", "/admin/ratings", ""}, {"routes", "/admin/routes", "#display-name"}, {"site", "/admin/site", ""}})
}

// photograph takes each screen as email ("" signed out) at both sizes in
// both colour schemes.
func photograph(t *testing.T, s *apptest.Server, email string, screens []shotScreen) {
	t.Helper()
	b := browser.New(t)
	if email != "" {
		signIn(b, s, email, "a-long-password-1")
	}
	for _, size := range []struct {
		name   string
		px     [2]int64
		mobile bool
	}{{"1366", browser.Desktop, false}, {"390", browser.Phone, true}} {
		b.Viewport(size.px, size.mobile)
		for _, sc := range screens {
			b.Navigate(s.URL + sc.url)
			if sc.name == "panel" || sc.name == "lesson-intro" {
				eval[bool](b, `(document.querySelectorAll('#tutor details.receipt').forEach(d => d.open = true), true)`)
			}
			if sc.scrollTo != "" {
				eval[bool](b, fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: 'center'}), true)`, sc.scrollTo))
			}
			for _, sch := range []string{"light", "dark"} {
				b.ColorScheme(sch)
				b.Shot(shotsDir(), sc.name+"-"+size.name+"-"+sch)
			}
		}
	}
}
