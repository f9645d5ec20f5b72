package tutor

import (
	"context"
	"fmt"
	"unicode/utf8"

	"aula/models"
)

// History defaults: the newest 24 messages within about 3,000 tokens.
const (
	DefaultHistoryMessages = 24
	DefaultHistoryTokens   = 3000
)

// History is the window of earlier turns sent with a question.
type History struct {
	Turns   []Turn           // oldest first, as the model receives them
	Omitted int              // eligible older turns left out by the window or the budget
	Recent  []models.Message // the eligible turns read, newest first (condensation, guide state)
}

// EstimateTokens approximates a token count as one token per four
// characters: the history budget uses it, and so does the usage of a
// provider that reports none.
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// estimateUsage is the usage of an answer to req as EstimateTokens counts it.
func estimateUsage(req Request, answer string) Usage {
	in := EstimateTokens(req.System) + EstimateTokens(req.Question)
	for _, t := range req.History {
		in += EstimateTokens(t.Content)
	}
	return Usage{TokensIn: in, TokensOut: EstimateTokens(answer)}
}

// LoadHistory reads the conversation's own earlier turns before seq (the
// query is scoped by conversation and user, so no other thread can leak
// in) and windows them: newest kept, at most maxMessages, within
// tokenBudget. Failed, still-streaming and empty cancelled answers, with
// their questions, never enter.
func LoadHistory(ctx context.Context, msgs *models.Messages, userID, conversationID string, beforeSeq, maxMessages, tokenBudget int) (History, error) {
	if maxMessages <= 0 {
		maxMessages = DefaultHistoryMessages
	}
	if tokenBudget <= 0 {
		tokenBudget = DefaultHistoryTokens
	}
	recent, total, err := msgs.RecentTurns(ctx, userID, conversationID, beforeSeq, maxMessages)
	if err != nil {
		return History{}, fmt.Errorf("load history: %w", err)
	}
	turns := windowTurns(recent, tokenBudget)
	return History{Turns: turns, Omitted: total - len(turns), Recent: recent}, nil
}

// windowTurns keeps the newest turns (given newest first) that fit the
// budget and returns them oldest first, starting with a user turn since
// some providers reject a conversation that opens with the assistant.
func windowTurns(newestFirst []models.Message, tokenBudget int) []Turn {
	n, used := 0, 0
	for _, m := range newestFirst {
		t := EstimateTokens(m.Content)
		if used+t > tokenBudget {
			break
		}
		used += t
		n++
	}
	turns := make([]Turn, 0, n)
	for i := n - 1; i >= 0; i-- {
		m := newestFirst[i]
		if len(turns) == 0 && m.Role != models.RoleUser {
			continue
		}
		turns = append(turns, Turn{Role: m.Role, Content: m.Content})
	}
	return turns
}
