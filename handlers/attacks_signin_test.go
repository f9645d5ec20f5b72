package handlers_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/handlers"
	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
)

// formFrom posts a form to path as a visitor at addr: the X-Forwarded-For
// header, which only counts when the server trusts the socket as a proxy.
func formFrom(c *webtest.Client, path, addr string, form url.Values) *webtest.Page {
	c.T.Helper()
	form.Set("_csrf", c.Get(path).CSRF())
	req, _ := http.NewRequest(http.MethodPost, c.Base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", addr)
	req.Header.Set("X-Real-IP", addr)
	return c.Do(req)
}

func loginFrom(c *webtest.Client, addr, email, password string) *webtest.Page {
	c.T.Helper()
	return formFrom(c, "/login", addr, url.Values{"email": {email}, "password": {password}})
}

// behindProxy makes the test server trust its own socket (127.0.0.1) as a
// reverse proxy, so X-Forwarded-For names each simulated visitor.
func behindProxy(t *testing.T, s *apptest.Server) {
	t.Helper()
	_, loopback, _ := net.ParseCIDR("127.0.0.1/32")
	s.Handler.IPExtractor = handlers.ClientAddress([]*net.IPNet{loopback})
}

// TestAttackRotatingForwardedForBypassesNothing: without trusted proxies the
// header is ignored, so changing it on every guess does not reset the count.
func TestAttackRotatingForwardedForBypassesNothing(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "target@example.com", "target password 1", models.PlanFree)
	c := webtest.New(t, s.URL)
	for i := range 5 {
		if p := loginFrom(c, fmt.Sprintf("203.0.113.%d", i), "target@example.com", "wrong guess"); p.Status != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d", i+1, p.Status)
		}
	}
	if p := loginFrom(c, "203.0.113.99", "target@example.com", "wrong guess"); p.Status != http.StatusTooManyRequests {
		t.Errorf("a 6th guess with a new X-Forwarded-For: %d, want 429", p.Status)
	}
}

// TestAttackConcurrentGuessesAllCount: 20 wrong passwords at once for one
// account; each is counted before its hash runs, so at most 5 are checked.
func TestAttackConcurrentGuessesAllCount(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "many@example.com", "many password 1", models.PlanFree)
	c := webtest.New(t, s.URL)
	csrf := c.Get("/login").CSRF()
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for range 20 {
		wg.Go(func() {
			form := url.Values{"_csrf": {csrf}, "email": {"many@example.com"}, "password": {"wrong guess"}}
			req, _ := http.NewRequest(http.MethodPost, s.URL+"/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := c.HTTP.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			codes[resp.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if codes[http.StatusUnauthorized] > 5 || codes[http.StatusUnauthorized]+codes[http.StatusTooManyRequests] != 20 {
		t.Errorf("20 concurrent guesses: %v; want at most 5 checked (401), the rest refused (429)", codes)
	}
}

// TestAttackGuessesElsewhereDoNotLockOutTheOwner: 40 wrong guesses from
// rotating addresses (through a trusted proxy), then the owner signs in from
// their usual address.
func TestAttackGuessesElsewhereDoNotLockOutTheOwner(t *testing.T) {
	s := apptest.New(t)
	behindProxy(t, s)
	s.User(t, "owner@example.com", "owner password 1", models.PlanFree)
	owner := webtest.New(t, s.URL)
	if p := loginFrom(owner, "198.51.100.7", "owner@example.com", "owner password 1"); p.URL.Path != "/learn" {
		t.Fatalf("first sign-in: %d %s", p.Status, p.URL)
	}
	attacker := webtest.New(t, s.URL)
	refused := 0
	for i := range 40 {
		if p := loginFrom(attacker, fmt.Sprintf("203.0.113.%d", i), "owner@example.com", "wrong guess"); p.Status == http.StatusTooManyRequests {
			refused++
			if p.Header.Get("Retry-After") == "" {
				t.Error("a throttled sign-in without Retry-After")
			}
		}
	}
	if refused == 0 {
		t.Error("40 guesses from rotating addresses were all checked: no per-account backoff")
	}
	again := webtest.New(t, s.URL)
	if p := loginFrom(again, "198.51.100.7", "owner@example.com", "owner password 1"); p.URL.Path != "/learn" {
		t.Errorf("the owner from their usual address after the guesses: %d %s, want signed in", p.Status, p.URL)
	}
}

// TestAttackSignupFlood: one address creates accounts in a loop.
func TestAttackSignupFlood(t *testing.T) {
	s := apptest.New(t)
	created := 0
	for i := range 10 {
		c := webtest.New(t, s.URL)
		p := formFrom(c, "/signup", "192.0.2.10", url.Values{"name": {"Bot"}, "email": {fmt.Sprintf("bot%d@example.com", i)},
			"password": {"bot password 2024"}})
		switch p.Status {
		case http.StatusOK:
			created++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("sign-up %d: %d", i, p.Status)
		}
	}
	if n := apptest.Count(t, s, "SELECT count(*) FROM users WHERE email LIKE 'bot%'"); created > 3 || n > 3 {
		t.Errorf("one address created %d accounts (%d rows) in a burst, want at most 3", created, n)
	}
}

// TestAttackWeakPasswordsRefused: the passwords of the attack report.
func TestAttackWeakPasswordsRefused(t *testing.T) {
	s := apptest.New(t)
	behindProxy(t, s)
	for i, pw := range []string{"12345678", "password", "        ", "1234567890", "password123", "qwertyuiop", "aaaaaaaaaa"} {
		c := webtest.New(t, s.URL)
		p := formFrom(c, "/signup", fmt.Sprintf("192.0.2.%d", i+20), url.Values{"name": {"Weak"},
			"email": {fmt.Sprintf("weak%d@example.com", i)}, "password": {pw}})
		if p.Status != http.StatusUnprocessableEntity || p.Doc.Find(`[aria-invalid="true"], .error, [role="alert"]`).Length() == 0 {
			t.Errorf("sign-up with %q: %d, want 422 with the reason", pw, p.Status)
		}
	}
	if n := apptest.Count(t, s, "SELECT count(*) FROM users WHERE email LIKE 'weak%'"); n != 0 {
		t.Errorf("%d accounts with weak passwords were created", n)
	}
}

// TestAttackHashingPastTheBound: with every hashing slot taken, a sign-in
// is answered at once with 503 and Retry-After instead of queueing more
// 19 MiB hashes.
func TestAttackHashingPastTheBound(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "busy@example.com", "busy password 1", models.PlanFree)
	bound := models.NewHashing(1, 1, time.Hour)
	s.App.Users.Hashing = bound
	started, release := make(chan struct{}), make(chan struct{})
	go func() { _ = bound.Do(context.Background(), func() { close(started); <-release }) }()
	<-started
	p := loginFrom(webtest.New(t, s.URL), "127.0.0.1", "busy@example.com", "busy password 1")
	close(release)
	if p.Status != http.StatusServiceUnavailable || p.Header.Get("Retry-After") == "" {
		t.Fatalf("sign-in past the hashing bound: %d, Retry-After %q; want 503 with Retry-After", p.Status, p.Header.Get("Retry-After"))
	}
	if p := loginFrom(webtest.New(t, s.URL), "127.0.0.1", "busy@example.com", "busy password 1"); p.URL.Path != "/learn" {
		t.Errorf("the same sign-in once the slot is free: %d %s (the refused attempt must not count)", p.Status, p.URL)
	}
}
