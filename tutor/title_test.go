package tutor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"aula/models"
)

// titleOf reads a conversation's title.
func (f *fixture) titleOf(convID string) string {
	f.t.Helper()
	var title string
	f.scalar(&title, `SELECT title FROM conversations WHERE id = ?`, convID)
	return title
}

// TestTitleRouteNamesTheThread: after a thread's first answer the title
// route is asked, in the background, for a short title in the question's
// language: the answer never waits for it, the first question's 60
// characters are the title until then and when the call fails, and only
// the first answer asks.
func TestTitleRouteNamesTheThread(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.CheckCredentials = func(string, Credentials) error { return nil } })
	f.exec(`UPDATE ai_routes SET provider = 'ollama', model = 'small' WHERE use_case = 'title'`)
	release := make(chan struct{})
	var mu sync.Mutex
	var titleReqs []Request
	f.prov.set(func(ctx context.Context, req Request, on func(string) error) (Usage, error) {
		if req.Mode != "title" {
			return emit("An answer.")(ctx, req, on)
		}
		mu.Lock()
		titleReqs = append(titleReqs, req)
		mu.Unlock()
		select {
		case <-release:
		case <-ctx.Done():
			return Usage{}, ctx.Err()
		}
		if strings.Contains(req.Question, "fail") {
			return Usage{}, &ProviderError{Provider: "ollama", Code: CodeUpstreamError, Status: 500}
		}
		return emit("\"Configurar VLAN en switches Cisco y enlaces troncales entre ellos hoy mismo.\"")(ctx, req, on)
	})
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	question := "¿Cómo configuro una VLAN en un switch Cisco y cómo conecto dos switches con un enlace troncal?"
	m := f.ask(u, c, question) // returns with the title call still held
	if m.Status != models.StatusComplete || f.titleOf(c) != models.TitleFrom(question) {
		t.Fatalf("answer %s, title %q while the title call runs; want the answer done and the question's title", m.Status, f.titleOf(c))
	}
	f.ask(u, c, "¿Y los puertos de acceso?")
	failing := f.conv(u, models.ModeTutor, "", "")
	f.ask(u, failing, "Please fail this title")
	close(release)
	f.svc.Drain(context.Background()) // waits for the background title calls
	if got := f.titleOf(c); got != "Configurar VLAN en switches Cisco y enlaces troncales" {
		t.Fatalf("title %q; want the model's, at most 8 words, unquoted", got)
	}
	if got := f.titleOf(failing); got != "Please fail this title" {
		t.Fatalf("a failed title call left %q; want the question's title", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(titleReqs) != 2 {
		t.Fatalf("%d title requests; want one per thread, after its first answer only", len(titleReqs))
	}
	for _, r := range titleReqs {
		if strings.Contains(r.Question, "VLAN") && !strings.Contains(r.System, "Spanish") {
			t.Fatalf("the Spanish question's title was not asked in Spanish: %q", r.System)
		}
	}
}

// TestTitleSettledKeepsTheTitle: a title call stops reading once
// titleSettled says so; the title of what was read then must be the
// title of the whole text, whatever prefix the stream stopped at.
func TestTitleSettledKeepsTheTitle(t *testing.T) {
	tests := []struct {
		raw     string
		settles bool // some prefix settles before the end
	}{
		{`"Configurar VLAN en switches Cisco y enlaces troncales entre ellos hoy mismo."`, true},
		{"Goroutines and channels\nA longer explanation follows here.", true},
		{"  \n\n# Title: **Maps in Go** explained simply for a student today", true},
		{"one two three four five six seven eight", false},
		{"one two three four five six seven eight \"", false},
		{"# a b c d e f g h ello world", true},
		{"«Canales» en Go: cómo comunicar goroutines sin compartir memoria", true},
		{"caf\xc3\xa9 au lait \xff bytes and more words past the limit", true},
	}
	for _, tc := range tests {
		want := cleanTitle(tc.raw)
		settled := false
		for i := range len(tc.raw) + 1 {
			prefix := tc.raw[:i]
			if !titleSettled(prefix) {
				continue
			}
			settled = settled || i < len(tc.raw)
			if got := cleanTitle(prefix); got != want {
				t.Errorf("%q settled at %q with title %q; the whole text's is %q", tc.raw, prefix, got, want)
				break
			}
		}
		if settled != tc.settles {
			t.Errorf("%q: settled before the end %v, want %v", tc.raw, settled, tc.settles)
		}
	}
}

// TestTitlesQueue: threads whose first answers end together are named a
// few at a time (titleSlots), the rest waiting their turn, and every one
// is named in the end: a class's burst of titles does not land at once
// on its next questions.
func TestTitlesQueue(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.CheckCredentials = func(string, Credentials) error { return nil } })
	f.exec(`UPDATE ai_routes SET provider = 'ollama', model = 'small' WHERE use_case = 'title'`)
	var mu sync.Mutex
	inFlight, most := 0, 0
	entered := make(chan struct{}, 100)
	release := make(chan struct{})
	f.prov.set(func(ctx context.Context, req Request, on func(string) error) (Usage, error) {
		if req.Mode != "title" {
			return emit("An answer.")(ctx, req, on)
		}
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		entered <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		return emit("Named")(ctx, req, on)
	})
	const threads = 3 * titleSlots
	u := f.user(models.PlanPro)
	var convs []string
	for i := range threads {
		c := f.conv(u, models.ModeTutor, "", "")
		f.ask(u, c, fmt.Sprintf("Question number %d about VLANs", i))
		convs = append(convs, c)
	}
	for range threads {
		<-entered // a title call is in the provider; let one go
		release <- struct{}{}
	}
	f.svc.Drain(context.Background())
	if most > titleSlots {
		t.Errorf("%d title calls at once; want at most %d", most, titleSlots)
	}
	for _, c := range convs {
		if got := f.titleOf(c); got != "Named" {
			t.Errorf("thread %s titled %q; want every thread named in the end", c, got)
		}
	}
}
