package tutor

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"aula/models"
)

// priorTurn is an earlier turn as condensation sees it.
type priorTurn struct {
	Role     string
	Content  string
	Headings []string // sections the answer cited
	First    int64    // the chunk the answer cited first (0 none)
	Kind     string   // its kind: lesson or help
}

// followUpMarkers start questions that lean on the previous turn.
var followUpMarkers = []string{
	"and ", "what about", "how about", "also", "but ", "so ", "then ", "why ", "it ", "its ", "that ", "this ", "those ", "they ",
	"y ", "e ", "¿y ", "pero ", "entonces", "también", "tambien", "eso", "esto", "lo ", "la ", "¿lo ", "¿la ", "¿eso", "¿por qué", "por qué",
	"¿y",
}

// pronouns in a question signal a reference to an earlier topic.
var pronouns = map[string]bool{"it": true, "this": true, "that": true, "they": true, "them": true, "those": true, "these": true,
	"eso": true, "esto": true, "ello": true, "lo": true, "la": true, "los": true, "las": true, "ellos": true, "ese": true, "esa": true}

// KeywordCondense rewrites a follow-up into a standalone retrieval query
// without a model: when the question looks like a follow-up (short, or
// starting with "and…"/"¿y…", or leaning on a pronoun) it appends the key
// terms of the previous questions and the headings the last answer cited.
// prior is newest first.
func KeywordCondense(question string, prior []priorTurn) string {
	question = strings.TrimSpace(question)
	if len(prior) == 0 || !looksLikeFollowUp(question) {
		return question
	}
	extra := contextTerms(question, prior)
	if len(extra) == 0 {
		return question
	}
	return question + " " + strings.Join(extra, " ")
}

// contextTerms are the thread's topic words a follow-up leans on, not in
// question already: the key terms of the previous questions and the
// heading the last answer cited first. prior is newest first.
func contextTerms(question string, prior []priorTurn) []string {
	have := map[string]bool{}
	for _, w := range termWords(question) {
		have[w] = true
	}
	var extra []string
	add := func(text string, limit int) {
		n := 0
		for _, w := range termWords(text) {
			if n == limit {
				return
			}
			if have[w] || stopword(w) || pronouns[w] {
				continue
			}
			have[w] = true
			extra = append(extra, w)
			n++
		}
	}
	users, answers := 0, 0
	for _, t := range prior {
		switch {
		case t.Role == models.RoleUser && users < 2:
			// The most recent question carries the topic; one before it
			// helps when that one was itself a follow-up.
			add(t.Content, 8-users*4)
			users++
		case t.Role == models.RoleAssistant && answers < 1:
			// Only the best citations: lower ones drift off the topic.
			for _, h := range t.Headings[:min(len(t.Headings), 1)] {
				add(h, 4)
			}
			answers++
		}
	}
	return extra
}

func looksLikeFollowUp(q string) bool {
	lq := strings.ToLower(strings.TrimLeft(q, "¿¡ "))
	lqq := strings.ToLower(q)
	for _, m := range followUpMarkers {
		if strings.HasPrefix(lq, m) || strings.HasPrefix(lqq, m) {
			return true
		}
	}
	content := 0
	for _, w := range termWords(q) {
		if pronouns[w] {
			return true
		}
		if !stopword(w) {
			content++
		}
	}
	return content <= 3
}

// priorTurns turns stored recent messages (newest first) into condensation input.
func priorTurns(ms []models.Message) []priorTurn {
	out := make([]priorTurn, 0, len(ms))
	for _, m := range ms {
		p := priorTurn{Role: m.Role, Content: m.Content}
		if m.Role == models.RoleAssistant && len(m.Metadata) > 0 {
			var r Receipt
			if json.Unmarshal(m.Metadata, &r) == nil {
				for _, c := range r.Citations {
					p.Headings = append(p.Headings, c.Heading)
				}
				if len(r.Citations) > 0 {
					p.First, p.Kind = r.Citations[0].ChunkID, r.Citations[0].Kind
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// clipRunes cuts s to at most n characters.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
