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
// The turns reach the prompt of that first question only; they are not
// stored as messages, so they neither count against the quota nor show
// up as questions the student asked. Later questions in the conversation
// remember its own turns.
func SeedTurns(turns []Turn) []Turn {
	if len(turns) > MaxSeedTurns {
		turns = turns[len(turns)-MaxSeedTurns:]
	}
	out := make([]Turn, 0, len(turns))
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
		out = append(out, Turn{Role: role, Content: c})
	}
	return out
}

// withSeed puts outside turns before the conversation's own (a seeded
// conversation is new, so there are none yet) and windows them like stored
// ones: newest kept within the budget, starting with a user turn.
func withSeed(h History, seed []Turn, tokenBudget int) History {
	if len(seed) == 0 {
		return h
	}
	recent := append([]models.Message(nil), h.Recent...)
	for i := len(seed) - 1; i >= 0; i-- {
		recent = append(recent, models.Message{Role: seed[i].Role, Content: seed[i].Content, Status: models.StatusComplete})
	}
	turns, clipped := windowTurns(recent, tokenBudget)
	return History{Turns: turns, Omitted: len(recent) - len(turns), Clipped: clipped, Recent: recent}
}
