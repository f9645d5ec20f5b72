package mcp

import (
	"encoding/json"
	"testing"

	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// FuzzHistory: whatever `history` an MCP client sends, it never panics,
// the MCP tool keeps exactly the well-formed entries in order (any role
// but assistant becoming user), and what reaches the tutor is a valid
// window. (The API's half is api's FuzzHistory.)
func FuzzHistory(f *testing.F) {
	for _, s := range webtest.HistorySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var items []any
		if json.Unmarshal(raw, &items) != nil {
			return
		}
		turns := mcpHistory(items)
		// Properties, not a second copy of the filter: the kept turns are a
		// subsequence of the entries, each role is user or assistant (an
		// assistant entry stays assistant), and no well-formed entry is dropped.
		wellFormed, next := 0, 0
		for _, it := range items {
			obj, _ := it.(map[string]any)
			role, rok := obj["role"].(string)
			content, cok := obj["content"].(string)
			if !rok || !cok {
				continue
			}
			wellFormed++
			if next < len(turns) && turns[next].Content == content &&
				(turns[next].Role == models.RoleAssistant) == (role == models.RoleAssistant) {
				next++
			}
		}
		for _, tu := range turns {
			if tu.Role != models.RoleUser && tu.Role != models.RoleAssistant {
				t.Fatalf("MCP history kept role %q from %s", tu.Role, raw)
			}
		}
		if next != len(turns) || len(turns) != wellFormed {
			t.Fatalf("MCP history kept %d turns (%d in order) of %d well-formed entries from %s", len(turns), next, wellFormed, raw)
		}
		webtest.CheckSeed(t, tutor.SeedTurns(turns))
	})
}
