package api_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"aula/i18n"
	"aula/internal/apptest"
)

// getWith sends GET path with the token and an Accept header.
func getWith(t *testing.T, s *apptest.Server, token, path, accept string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/v1"+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// readCSV parses a CSV answer (after its byte order mark) into lines of cells.
func readCSV(t *testing.T, body string) [][]string {
	t.Helper()
	rest, ok := strings.CutPrefix(body, "\ufeff")
	if !ok {
		t.Fatalf("the CSV has no byte order mark: %.80q", body)
	}
	lines, err := csv.NewReader(strings.NewReader(rest)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v: %s", err, body)
	}
	return lines
}

// The whole matrix as CSV, from /org/progress.csv or from /org/progress
// with Accept: text/csv: a header in the owner's language and the lessons,
// one line per member with their states (done marked), formulas defused;
// a group filters it; B's group is a JSON 404; nothing of B is in it.
func TestOrgAPIProgressCSV(t *testing.T) {
	f := withProgress(t)
	s := f.s
	if err := s.DB.Exec(`UPDATE users SET name = '=HYPERLINK("http://x")' WHERE email = 'a3@example.com'`).Error; err != nil {
		t.Fatal(err)
	}
	resp, body := getWith(t, s, f.adminA, "/org/progress.csv", "")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") ||
		!strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("progress.csv: %d %q %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"), body)
	}
	lines := readCSV(t, body)
	if len(lines) != 5 || len(lines[0]) != 6 || lines[0][0] != i18n.In("en", "progress.csv.name") {
		t.Fatalf("header and 4 members, 4 columns and 2 lessons: %q", lines)
	}
	byEmail := map[string][]string{}
	for _, l := range lines[1:] {
		byEmail[l[1]] = l
	}
	if a2 := byEmail["a2@example.com"]; !strings.Contains(strings.Join(a2, "|"), "✓") {
		t.Errorf("a2 mastered subnetting: %q", a2)
	}
	if a3 := byEmail["a3@example.com"]; !strings.HasPrefix(a3[0], "'=") {
		t.Errorf("a formula-like name is defused: %q", a3[0])
	}
	for _, secret := range bSecrets {
		if strings.Contains(body, secret) {
			t.Errorf("A's CSV shows B's %q", secret)
		}
	}
	if _, same := getWith(t, s, f.adminA, "/org/progress", "text/csv"); same != body {
		t.Errorf("Accept: text/csv on /org/progress differs from progress.csv:\n%s\n%s", same, body)
	}
	if resp, b := getWith(t, s, f.adminA, "/org/progress", "application/json, text/csv;q=0.5"); !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("JSON preferred: %q %.80s", resp.Header.Get("Content-Type"), b)
	}
	if _, red := getWith(t, s, f.adminA, fmt.Sprintf("/org/progress.csv?group=%d", f.red), ""); len(readCSV(t, red)) != 2 {
		t.Errorf("group Red: %s", red)
	}
	if resp, b := getWith(t, s, f.adminA, fmt.Sprintf("/org/progress.csv?group=%d", f.blue), ""); resp.StatusCode != 404 ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("B's group: %d %s", resp.StatusCode, b)
	}
	for _, tok := range []string{f.member, f.free} {
		if resp, _ := getWith(t, s, tok, "/org/progress.csv", ""); resp.StatusCode != 403 {
			t.Errorf("a non-admin's CSV: %d", resp.StatusCode)
		}
	}
	if err := s.App.Users.SetLocale(context.Background(), s.UserID(t, "a@example.com"), "es"); err != nil {
		t.Fatal(err)
	}
	if _, es := getWith(t, s, f.adminA, "/org/progress.csv", ""); readCSV(t, es)[0][0] != i18n.In("es", "progress.csv.name") {
		t.Errorf("the Spanish admin's header: %q", readCSV(t, es)[0])
	}
}
