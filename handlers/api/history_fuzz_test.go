package api

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"aula/handlers"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// FuzzHistory: whatever `conversationHistory` an API client sends, it
// never panics, and the API either refuses the body (4xx) or passes only
// turns that follow its strict rules, a valid window for the tutor. (The
// MCP tool's half is mcp's FuzzHistory.)
func FuzzHistory(f *testing.F) {
	for _, s := range webtest.HistorySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		body := append(append([]byte(`{"message":"What is a VLAN?","conversationHistory":`), raw...), '}')
		req := httptest.NewRequest(http.MethodPost, "/api/v1/tutor/chat", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		c := echo.New().NewContext(req, httptest.NewRecorder())
		q, err := readAsk(c)
		if err != nil {
			var ae *handlers.APIError
			if !errors.As(err, &ae) || ae.Status < 400 || ae.Status > 499 {
				t.Fatalf("history %s refused with %v, want a 4xx API error", raw, err)
			}
			return
		}
		for i, turn := range q.Seed {
			if turn.Role != models.RoleUser && turn.Role != models.RoleAssistant ||
				strings.TrimSpace(turn.Content) == "" || utf8.RuneCountInString(turn.Content) > tutor.MaxQuestionChars {
				t.Fatalf("API accepted turn %d %+v from %s", i, turn, raw)
			}
		}
		webtest.CheckSeed(t, tutor.SeedTurns(q.Seed))
	})
}
