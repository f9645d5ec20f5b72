package tutor

import (
	"strings"
	"unicode/utf8"

	"aula/models"
)

// MaxSeedTurns is how many turns of outside history a new conversation takes.
const MaxSeedTurns = 10

// SeedTurns keeps the newest MaxSeedTurns of history another program sent
// with a question for a new conversation (the JSON API's
// conversationHistory, MCP's history). Each turn already has a role of
// user or assistant and non-empty content of at most MaxQuestionChars
// characters: the fronts validate, since they differ in how strictly.
// The turns are kept with the conversation as its earlier context
// (models.ContextTurn): every question in it remembers them like its own
// turns, but they are not messages, so they neither count against the
// quota nor show up as questions the student asked.
func SeedTurns(turns []Turn) []models.ContextTurn {
	if len(turns) > MaxSeedTurns {
		turns = turns[len(turns)-MaxSeedTurns:]
	}
	out := make([]models.ContextTurn, 0, len(turns))
	for _, t := range turns {
		c := strings.ToValidUTF8(t.Content, "")
		if strings.TrimSpace(c) == "" {
			continue
		}
		if utf8.RuneCountInString(c) > MaxQuestionChars {
			c = clipRunes(c, MaxQuestionChars)
		}
		role := models.RoleUser
		if t.Role == models.RoleAssistant {
			role = models.RoleAssistant
		}
		out = append(out, models.ContextTurn{Role: role, Content: c})
	}
	return out
}
