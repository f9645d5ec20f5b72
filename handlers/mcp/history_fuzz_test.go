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
		if json.Unmarshal(raw, &items) == nil {
			turns := mcpHistory(items)
			var want []tutor.Turn
			for _, it := range items {
				obj, ok := it.(map[string]any)
				if !ok {
					continue
				}
				role, rok := obj["role"].(string)
				content, cok := obj["content"].(string)
				if !rok || !cok {
					continue
				}
				if role != models.RoleAssistant {
					role = models.RoleUser
				}
				want = append(want, tutor.Turn{Role: role, Content: content})
			}
			if len(turns) != len(want) {
				t.Fatalf("MCP history kept %d of %d well-formed entries from %s", len(turns), len(want), raw)
			}
			for i := range want {
				if turns[i] != want[i] {
					t.Fatalf("MCP history entry %d = %+v, want %+v", i, turns[i], want[i])
				}
			}
			webtest.CheckSeed(t, tutor.SeedTurns(turns))
		}

	})
}
