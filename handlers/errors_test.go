package handlers_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/internal/pgtest"
	"aula/internal/webtest"
)

// The database goes away while aula serves: pages answer 503 with
// Retry-After, /readyz says not ready, /healthz still answers; when the
// database is back the same pages answer 200 with nothing restarted.
// It stops the shared test cluster, so it must never run in parallel.
func TestDatabaseLostWhileServingThenBack(t *testing.T) {
	s := apptest.New(t)
	s.User(t, "ana@example.com", "pass-phrase-1", "FREE")
	c := s.SignIn(t, "ana@example.com", "pass-phrase-1")
	visitor := webtest.New(t, s.URL)
	const lesson = "/learn/networking/vlan-basics"
	pages := []struct {
		name   string
		client *webtest.Client
		path   string
	}{
		{"lesson", c, lesson},
		{"catalog", c, "/learn"},
		{"path", c, "/learn/networking"},
	}
	for _, p := range pages {
		if got := p.client.Get(p.path); got.Status != http.StatusOK {
			t.Fatalf("%s before the outage: status %d", p.name, got.Status)
		}
	}
	form := visitor.Get("/login")
	expectStatus(t, s.URL+"/readyz", http.StatusOK, "ready")

	cluster := pgtest.Cluster()
	stopped := false
	t.Cleanup(func() {
		if stopped {
			if err := cluster.Resume(context.Background()); err != nil {
				t.Errorf("resume the test cluster: %v", err)
			}
		}
	})
	if err := cluster.Stop(); err != nil {
		t.Fatalf("stop the test cluster: %v", err)
	}
	stopped = true

	for _, p := range pages {
		t.Run("down/"+p.name, func(t *testing.T) {
			got := p.client.Get(p.path)
			if got.Status != http.StatusServiceUnavailable {
				t.Fatalf("status %d, want 503:\n%s", got.Status, got.Body)
			}
			if ra := got.Header.Get("Retry-After"); ra == "" {
				t.Error("no Retry-After header on the 503")
			}
			if title := got.Text(".error-page h1"); title != "aula is briefly unavailable" {
				t.Errorf("503 page title %q", title)
			}
			if body := got.Text(".error-page"); !strings.Contains(body, "Nothing you saved is lost") {
				t.Errorf("503 page does not reassure the user: %q", body)
			}
		})
	}
	// A visitor's sign-in form needs no database (their session is the
	// signed cookie); signing in does, and is the same 503.
	if got := visitor.Get("/login"); got.Status != http.StatusOK {
		t.Errorf("the sign-in form for a visitor during the outage: %d", got.Status)
	}
	if got := visitor.Submit(form, `form[action="/login"]`, map[string]string{"email": "ana@example.com", "password": "pass-phrase-1"}); got.Status != http.StatusServiceUnavailable || got.Header.Get("Retry-After") == "" {
		t.Errorf("signing in during the outage: %d, want 503 with Retry-After", got.Status)
	}
	expectStatus(t, s.URL+"/readyz", http.StatusServiceUnavailable, "")
	expectStatus(t, s.URL+"/healthz", http.StatusOK, "ok")

	if err := cluster.Resume(context.Background()); err != nil {
		t.Fatalf("resume the test cluster: %v", err)
	}
	stopped = false

	expectStatus(t, s.URL+"/readyz", http.StatusOK, "ready")
	for _, p := range pages {
		t.Run("back/"+p.name, func(t *testing.T) {
			if got := p.client.Get(p.path); got.Status != http.StatusOK {
				t.Fatalf("status %d after the database came back:\n%s", got.Status, got.Body)
			}
		})
	}
	// The session survived: still signed in, same user.
	p := c.Get(lesson)
	if p.Text("#lesson h1") != "What a VLAN is and why it matters" || p.Doc.Find("#signout").Length() != 1 {
		t.Errorf("after the outage the lesson shows %q, signed in: %v", p.Text("#lesson h1"), p.Doc.Find("#signout").Length() == 1)
	}
	expectStatus(t, s.URL+"/healthz", http.StatusOK, "ok")
}

// expectStatus GETs url and checks the status and, when want is not empty, the body.
func expectStatus(t *testing.T, url string, status int, want string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status || !strings.Contains(string(b), want) {
		t.Errorf("GET %s: %d %q, want %d containing %q", url, resp.StatusCode, b, status, want)
	}
}

// rawGet sends path exactly as written (no cleaning, no re-escaping).
func rawGet(t *testing.T, base, path string) (int, http.Header, string) {
	t.Helper()
	u, _ := url.Parse(base)
	req := &http.Request{Method: http.MethodGet, Header: http.Header{},
		URL: &url.URL{Scheme: u.Scheme, Host: u.Host, Opaque: path}, Host: u.Host}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestHealthzAlwaysAnswers(t *testing.T) {
	s := apptest.New(t)
	expectStatus(t, s.URL+"/healthz", http.StatusOK, "ok")
	expectStatus(t, s.URL+"/readyz", http.StatusOK, "ready")
}

func TestStaticFiles(t *testing.T) {
	s := apptest.New(t)
	t.Run("versioned asset is immutable", func(t *testing.T) {
		status, h, body := rawGet(t, s.URL, "/static/css/app.css?v="+s.App.AssetVersion)
		if status != http.StatusOK || !strings.Contains(h.Get("Content-Type"), "text/css") || body == "" {
			t.Fatalf("status %d, type %q, %d bytes", status, h.Get("Content-Type"), len(body))
		}
		if cc := h.Get("Cache-Control"); !strings.Contains(cc, "immutable") || !strings.Contains(cc, "max-age=31536000") {
			t.Errorf("Cache-Control %q, want a year and immutable", cc)
		}
	})
	t.Run("unversioned or stale asset is revalidated", func(t *testing.T) {
		for _, q := range []string{"", "?v=stale"} {
			status, h, _ := rawGet(t, s.URL, "/static/css/app.css"+q)
			if status != http.StatusOK || strings.Contains(h.Get("Cache-Control"), "immutable") {
				t.Errorf("%q: status %d, Cache-Control %q", q, status, h.Get("Cache-Control"))
			}
		}
	})
	t.Run("pages link the versioned assets", func(t *testing.T) {
		p := webtest.New(t, s.URL).Get("/login")
		href := p.Doc.Find(`link[rel="stylesheet"]`).First().AttrOr("href", "")
		if href != "/static/css/app.css?v="+s.App.AssetVersion {
			t.Errorf("stylesheet href %q", href)
		}
	})
	for _, path := range []string{
		"/static/../go.mod",
		"/static/%2e%2e/go.mod",
		"/static/%2E%2E/go.mod",
		"/static/..%2fgo.mod",
		"/static/..%2Fgo.mod",
		"/static/%2e%2e%2fgo.mod",
		"/static/css/../../go.mod",
		"/static/..\\go.mod",
		"/static//../go.mod",
		"/static/../handlers/app.go",
	} {
		t.Run("traversal "+path, func(t *testing.T) {
			status, _, body := rawGet(t, s.URL, path)
			if status == http.StatusOK || strings.Contains(body, "module aula") || strings.Contains(body, "package handlers") {
				t.Errorf("status %d, body %.200q", status, body)
			}
		})
	}
	for _, path := range []string{"/static/css/", "/static/", "/static/css", "/static/img/"} {
		t.Run("directory "+path, func(t *testing.T) {
			status, h, body := rawGet(t, s.URL, path)
			if status != http.StatusNotFound {
				t.Errorf("status %d (Location %q), want 404", status, h.Get("Location"))
			}
			if strings.Contains(body, `<a href="app.css">`) || strings.Contains(body, `<a href="css/">`) ||
				strings.Contains(body, `<a href="favicon.svg">`) {
				t.Errorf("the directory is listed: %.300q", body)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		if status, _, _ := rawGet(t, s.URL, "/static/css/nope.css"); status != http.StatusNotFound {
			t.Errorf("status %d, want 404", status)
		}
	})
}
