package web_test

import (
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/browser"
	"aula/models"
)

// In real Chromium, with JavaScript on and off: the admin ticks a member in
// the list and adds them to a group with the bulk form, and the member sees
// "Assigned to you" on /learn and /dashboard. /org's groups, assignments
// and members, the group's delete confirmation and "Assigned to you" fit a
// 390 px phone, light and dark, with no serious axe-core violation (with AULA_SHOTS set, screenshots are saved).
func TestBrowserOrgGroupsAndAssigned(t *testing.T) {
	for _, tt := range browserModes {
		t.Run(tt.name, func(t *testing.T) {
			s := apptest.New(t)
			s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
			root := s.SignIn(t, "root@example.com", orgPass)
			orgA := orgWith(t, s, root, "colegio-norte", "boss@example.com", "nora@example.com", "leo@example.com")
			a := s.SignIn(t, "boss@example.com", orgPass)
			group := newGroup(t, s, a, orgA, "1º B — Redes y sistemas")
			newGroup(t, s, a, orgA, "Teachers")
			a.Submit(a.Get("/org"), "#assign-form", map[string]string{"group": group, "lesson": "vlan-basics", "due": "2020-01-15", "check": "1"})
			a.Submit(a.Get("/org"), "#assign-form", map[string]string{"path": pathID(t, s, "networking"), "due": "2099-06-30"})
			nora := userID(t, s, "nora@example.com")

			b := browser.New(t, tt.opts...)
			shots := !b.NoJS
			browserSignIn(b, s, "boss@example.com", orgPass)
			b.Navigate(s.URL + "/org")
			b.WaitVisible("#bulk-add")
			b.Click("#pick-" + nora)
			b.ClickAndWait("#bulk-add")
			if !strings.Contains(b.Text("#admin-flash"), "1 added") || !strings.Contains(b.Text("#member-"+nora), "Redes") {
				b.Fatalf("bulk add: %q %q", b.Text("#admin-flash"), b.Text("#admin-error"))
			}
			for _, part := range []string{"groups", "assignments", "members-heading"} {
				b.Navigate(s.URL + "/org#" + part)
				b.WaitVisible("#" + part)
				orgShots(b, shots, "org-"+part)
			}
			b.Navigate(s.URL + "/org#members")
			b.ClickAndWait("#lang-switch")
			for _, part := range []string{"groups", "assignments", "members"} {
				b.Navigate(s.URL + "/org#" + part)
				b.WaitVisible("#" + part)
				orgShots(b, shots, "org-es-"+part)
			}
			b.ClickAndWait("#lang-switch")
			b.Navigate(s.URL + "/org/groups/" + group + "/delete")
			b.WaitVisible("#group-delete-yes")
			orgShots(b, shots, "org-group-delete")
			if shots {
				axeEach(t, b, s.URL, "/org", "/org/groups/"+group+"/delete")
			}
			b.ClickAndWait("#signout")

			browserSignIn(b, s, "nora@example.com", orgPass)
			for _, page := range []string{"learn", "dashboard"} {
				b.Navigate(s.URL + "/" + page + "#assigned")
				b.WaitVisible("#assigned")
				if !strings.Contains(b.Text("#assigned"), "Overdue") {
					b.Fatalf("/%s: %q", page, b.Text("#assigned"))
				}
				orgShots(b, shots, "assigned-"+page)
			}
			if shots {
				axeEach(t, b, s.URL, "/learn", "/dashboard")
			}
			b.Navigate(s.URL + "/learn#assigned")
			b.ClickAndWait("#lang-switch")
			b.Navigate(s.URL + "/learn#assigned")
			if !strings.Contains(b.Text("#assigned"), "Atrasada") {
				b.Fatalf("/learn in Spanish: %q", b.Text("#assigned"))
			}
			orgShots(b, shots, "assigned-es-learn")
		})
	}
}

// axeEach runs axe-core on each page: no serious or critical violation.
func axeEach(t *testing.T, b *browser.Browser, base string, pages ...string) {
	t.Helper()
	axe := axeSource(t)
	for _, p := range pages {
		axePage(t, b, axe, base+p, p)
	}
}
