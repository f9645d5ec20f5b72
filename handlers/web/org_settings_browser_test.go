package web_test

import (
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// In real Chromium, with JavaScript on and off: the admin opens the tutor
// policy from the /org menu, picks guide, guiding only during checks,
// help mode off and a cap of 5, and saves; a member of the organization
// then sees the usage bar under the cap (in the chat screen and the
// lesson panel) and no help thread to open. Every page fits 1366 and
// 390 px, light and dark, in English and Spanish (with AULA_SHOTS set,
// screenshots of each are saved there); axe finds nothing serious.
func TestBrowserOrgSettingsAndMemberBar(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t, fastTutor)
			orgA, _ := policyOrgs(t, s)
			b := browser.New(t, tt.opts...)
			shots := !b.NoJS
			browserSignIn(b, s, "a@example.com", orgPass)
			b.ClickAndWait("#nav-org")
			b.ClickAndWait("#org-tab-settings")
			b.WaitVisible("#policy-form")
			orgShots(b, shots, "org-settings-default")
			b.Click("#policy-style-guide")
			b.Click("#policy-guide")
			b.Click("#policy-help")
			b.Fill("#policy-cap", "5")
			b.ClickAndWait("#policy-save")
			if b.Path() != "/org/settings" || b.Text("#admin-flash") != "Tutor policy saved." {
				b.Fatalf("after saving: at %s, %q %q", b.Path(), b.Text("#admin-flash"), b.Text("#admin-error"))
			}
			p := policyOf(t, s, orgA)
			if p.TeachingStyle != "guide" || !p.GuideDuringChecks || p.HelpMode || p.QuestionCap == nil || *p.QuestionCap != 5 {
				b.Fatalf("stored %+v", p)
			}
			orgShots(b, shots, "org-settings")
			if shots {
				axeEach(t, b, s.URL, "/org/settings")
			}
			b.ClickAndWait("#lang-switch")
			b.WaitVisible("#policy-form")
			if b.Text("#policy-title") != "Política del tutor" {
				b.Fatalf("in Spanish: %q", b.Text("#policy-title"))
			}
			orgShots(b, shots, "org-settings-es")
			b.ClickAndWait("#lang-switch")
			b.ClickAndWait("#signout")

			ma := userID(t, s, "ma@example.com")
			if err := s.DB.Exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 4)`, ma, models.Period(s.Tutor.Now())).Error; err != nil {
				t.Fatal(err)
			}
			browserSignIn(b, s, "ma@example.com", orgPass)
			b.Navigate(s.URL + "/chat")
			b.WaitVisible("#usage")
			if limit, _ := b.Attr("#usage", "data-limit"); limit != "5" || !strings.Contains(b.Text("#usage"), "4 of 5 questions this month") || b.Has(`#new-mode option[value="help"]`) {
				b.Fatalf("the member's chat screen: %q", b.Text("#usage"))
			}
			orgShots(b, shots, "member-bar-chat")
			b.Navigate(s.URL + "/learn/networking/vlan-basics?tutor=open#tutor")
			b.WaitVisible("#usage")
			orgShots(b, shots, "member-bar-lesson")
			b.ClickAndWait("#lang-switch")
			b.Navigate(s.URL + "/chat")
			b.WaitVisible("#usage")
			if !strings.Contains(b.Text("#usage"), "4 de 5 preguntas este mes") {
				b.Fatalf("the member's bar in Spanish: %q", b.Text("#usage"))
			}
			orgShots(b, shots, "member-bar-chat-es")
			if shots {
				axeEach(t, b, s.URL, "/chat")
			}
		})
	}
}
