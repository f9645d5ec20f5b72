package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// A class behind one school address signs up on the way to its join
// link: eight students from one address get eight accounts and eight
// seats, while sign-ups that lead nowhere (no link, or a made-up one)
// still stop at the fourth from that address.
func TestClassSignsUpThroughOneAddress(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "root@example.com", orgPass, models.PlanSuperAdmin)
	root := s.SignIn(t, "root@example.com", orgPass)
	orgWith(t, s, root, "school", "teacher@example.com")
	link := joinLink(t, s.SignIn(t, "teacher@example.com", orgPass))

	signup := func(next, email string) *webtest.Page {
		v := webtest.New(t, s.URL)
		p := v.Get("/signup?next=" + next)
		return v.Submit(p, `form[action="/signup"]`, map[string]string{"name": "Student", "email": email, "password": orgPass})
	}
	for i := range 8 {
		email := fmt.Sprintf("class%d@example.com", i)
		p := signup(link, email)
		if p.Status != http.StatusOK || p.URL.Path != link {
			t.Fatalf("student %d signing up on the way to the link: %d at %s %q", i, p.Status, p.URL, p.Text("main"))
		}
	}
	for i, next := range []string{"", "/learn", "/join/made-up-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "/join/invite/nope"} {
		email := fmt.Sprintf("plain%d@example.com", i)
		p := signup(next, email)
		created := apptest.Count(t, s, `SELECT count(*) FROM users WHERE email = ?`, email) == 1
		if i < 3 && !created {
			t.Errorf("plain sign-up %d (next %q) refused: %d %q", i, next, p.Status, p.Text("main"))
		}
		if i == 3 && (created || p.Status != http.StatusTooManyRequests || !strings.Contains(p.Text("main"), "Too many accounts")) {
			t.Errorf("the fourth plain sign-up from one address: created %v, %d %q", created, p.Status, p.Text("main"))
		}
	}
}
