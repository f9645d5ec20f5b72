package handlers_test

import (
	"context"
	"database/sql"
	"io"
	"net/http"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// takeDatabaseAway refuses new connections to the test's database and ends
// the open ones, as a PostgreSQL outage does; the cleanup lets it back.
func takeDatabaseAway(t *testing.T, s *apptest.Server) {
	t.Helper()
	adminURL := strings.Replace(s.DB.URL, "/"+s.DB.Name+"?", "/postgres?", 1)
	admin, err := sql.Open("pgx", adminURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(`ALTER DATABASE ` + s.DB.Name + ` ALLOW_CONNECTIONS true`)
		admin.Close()
	})
	for _, q := range []string{`ALTER DATABASE ` + s.DB.Name + ` ALLOW_CONNECTIONS false`,
		`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '` + s.DB.Name + `'`} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// internals are what an error must not show a client: the database's
// user, name, host and port, and driver or SQL texts.
func internals(s *apptest.Server) []string {
	return []string{s.DB.Name, "postgres@", "127.0.0.1:", "SQLSTATE", "pgx", "failed to connect", "sql:"}
}

// TestFaultMCPDatabaseDown: with PostgreSQL unreachable, MCP answers as the
// JSON API does (503 SERVICE_UNAVAILABLE with Retry-After), no internals.
func TestFaultMCPDatabaseDown(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "mcpdown@example.com", "mcp-pass-word-1", models.PlanPro)
	token := apptest.APIToken(t, s, u.ID)
	takeDatabaseAway(t, s)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	for range 2 { // the first request meets the ended connections, the second a refused one
		req, _ := http.NewRequestWithContext(context.Background(), "POST", s.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "SERVICE_UNAVAILABLE") ||
			resp.Header.Get("Retry-After") == "" {
			t.Errorf("tools/list with the database down: %d %q, want 503 SERVICE_UNAVAILABLE with Retry-After", resp.StatusCode, b)
		}
		for _, leak := range internals(s) {
			if strings.Contains(string(b), leak) {
				t.Errorf("the answer reveals %q: %s", leak, b)
			}
		}
	}
}
