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
	Clipped []ClippedTurn    // turns sent shortened to fit the budget
	Recent  []models.Message // the eligible turns read, newest first (condensation, guide state)
}

// ClippedTurn is a turn of the history sent with its middle left out.
type ClippedTurn struct {
	Turn int    `json:"turn"` // its index among the turns sent, oldest first
	Role string `json:"role"`
	Left int    `json:"left"` // characters left out
}

// messageOverhead is what a message costs a chat model beyond its text
// (role and separators), in tokens.
const messageOverhead = 4

// minClipTokens is the least room worth filling with a clipped turn once
// the budget runs out: less would keep only the marker.
const minClipTokens = 32

// EstimateTokens approximates a token count as one token per four
// characters (not bytes: "ñ" is one character): the history budget uses
// it, and so does the usage of a provider that reports none.
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// TurnTokens is what one message of a conversation costs, the one
// estimate the history window and the estimated usage share.
func TurnTokens(t Turn) int { return EstimateTokens(t.Content) + messageOverhead }

// estimateUsage is the usage of an answer to req as TurnTokens counts it.
func estimateUsage(req Request, answer string) Usage {
	in := EstimateTokens(req.System) + TurnTokens(Turn{Content: req.Question})
	for _, t := range req.History {
		in += TurnTokens(t)
	}
	return Usage{TokensIn: in, TokensOut: EstimateTokens(answer)}
}

// LoadHistory reads the conversation's own earlier turns before seq (the
// query is scoped by conversation and user, so no other thread can leak
// in), preceded by its earlier context (turns another program brought
// with its first question), and windows them: newest kept, at most
// maxMessages, within tokenBudget. Failed, still-streaming and empty
// cancelled answers, with their questions, never enter.
func LoadHistory(ctx context.Context, msgs *models.Messages, userID, conversationID string, beforeSeq, maxMessages, tokenBudget int) (History, error) {
	if maxMessages <= 0 {
		maxMessages = DefaultHistoryMessages
	}
	if tokenBudget <= 0 {
		tokenBudget = DefaultHistoryTokens
	}
	read, err := msgs.History(ctx, userID, conversationID, beforeSeq, maxMessages)
	if err != nil {
		return History{}, fmt.Errorf("load history: %w", err)
	}
	recent, total := read.Turns, read.Total
	withPassages(recent)
	if total == len(recent) && len(recent) < maxMessages {
		// The context comes before every message, so it matters only
		// when the window reaches the conversation's start.
		total += len(read.Context)
		for i := len(read.Context) - 1; i >= 0 && len(recent) < maxMessages; i-- {
			recent = append(recent, models.Message{Role: read.Context[i].Role, Content: read.Context[i].Content, Status: models.StatusComplete})
		}
	}
	turns, clipped := windowTurns(recent, tokenBudget)
	return History{Turns: turns, Omitted: total - len(turns), Clipped: clipped, Recent: recent}, nil
}

// windowTurns fits the turns (given newest first) into the budget and
// returns them oldest first, starting with a user turn since some
// providers reject a conversation that opens with the assistant. When all
// do not fit, the longest are clipped to one common size, the largest that
// lets everything in; when even a quarter of the budget each is too much,
// the newest turns go in (the latest exchange always does) and the first
// that no longer fits is clipped into the room left, ending the window.
// A long turn therefore never wipes the memory.
func windowTurns(newestFirst []models.Message, tokenBudget int) ([]Turn, []ClippedTurn) {
	cost := make([]int, len(newestFirst))
	for i, m := range newestFirst {
		cost[i] = TurnTokens(Turn{Content: m.Content})
	}
	limit := clipSize(cost, tokenBudget)
	type kept struct {
		m     models.Message
		limit int
	}
	var take []kept
	used := 0
	for i, m := range newestFirst {
		c := min(cost[i], limit)
		if used+c > tokenBudget {
			if room := tokenBudget - used; room >= minClipTokens {
				take = append(take, kept{m, room})
			}
			break
		}
		used += c
		take = append(take, kept{m, c})
	}
	turns := make([]Turn, 0, len(take))
	var clipped []ClippedTurn
	for i := len(take) - 1; i >= 0; i-- {
		k := take[i]
		if len(turns) == 0 && k.m.Role != models.RoleUser {
			continue
		}
		text, left := clipMiddle(k.m.Content, (k.limit-messageOverhead)*4)
		if left > 0 {
			clipped = append(clipped, ClippedTurn{Turn: len(turns), Role: k.m.Role, Left: left})
		}
		turns = append(turns, Turn{Role: k.m.Role, Content: text})
	}
	return turns, clipped
}

// clipSize is the most tokens a turn may take: unlimited when all fit,
// else the largest common cap under which all fit, but never under a
// quarter of the budget (then older turns give way instead).
func clipSize(cost []int, budget int) int {
	sum, most := 0, 0
	for _, c := range cost {
		sum += c
		most = max(most, c)
	}
	if sum <= budget {
		return most
	}
	fits := func(limit int) bool {
		s := 0
		for _, c := range cost {
			s += min(c, limit)
		}
		return s <= budget
	}
	lo, hi := budget/4, most // fits(hi) is false
	if !fits(lo) {
		return lo
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// clipMiddle keeps s within n characters by leaving out its middle: the
// head (usually the question) and the tail (usually the conclusion) stay,
// with a visible marker saying how much is missing. It returns the text
// and how many characters were left out.
func clipMiddle(s string, n int) (string, int) {
	r := []rune(s)
	if len(r) <= n {
		return s, 0
	}
	// The marker is sized for the longest count it can hold, so the
	// result never exceeds n.
	keep := max(n-utf8.RuneCountInString(clipMarker(len(r))), 2)
	head := (keep + 1) / 2
	left := len(r) - keep
	return string(r[:head]) + clipMarker(left) + string(r[len(r)-(keep-head):]), left
}

// clipMarker stands where a clipped turn's middle was.
func clipMarker(left int) string { return fmt.Sprintf("\n[… %d characters left out …]\n", left) }
