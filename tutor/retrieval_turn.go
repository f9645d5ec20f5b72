package tutor

import (
	"context"
	"slices"

	"aula/models"
)

// Found is what a turn's retrieval found: the sections, best first, and
// the query and condensation method the receipt records.
type Found struct {
	Sources []Source
	Query   string
	Method  string
}

// ForTurn is a turn's retrieval, the one path the tutor and the retrieval
// eval (tutor/testdata/retrieval_eval.yaml) share: text is the question
// (with the passage it asks about), recent the thread's earlier messages,
// newest first, and sc where the student is. It calls no model: nothing
// may stand between a question and its first token.
func (r *Retriever) ForTurn(ctx context.Context, text string, recent []models.Message, sc Scope, k int) (Found, error) {
	prior := priorTurns(recent)
	query, method := condense(text, prior)
	tq := turnQuery{own: questionTerms(text), asked: asked(text), vec: r.vectors.start(ctx, query)}
	tq.bridge = translations(tq.own)
	if len(prior) > 0 {
		tq.context = contextTerms(text, prior)
		for _, p := range prior {
			if p.Role == models.RoleAssistant {
				tq.prev, tq.prevKind = p.First, p.Kind
				break
			}
		}
	}
	// The words' check comes first: a question with a misspelt word near
	// one the lessons hold searches once, with it. (It followed the search
	// until the help had its own word table, and a misspelt question
	// searched twice: those were the slowest questions of the eval.) Run
	// beside the search instead, the two batched statements of a class's
	// burst contended for the same cores and the first token came about
	// 15 ms later at 200 students at once (README, "Misspellings,
	// measured").
	fixed, weak, err := r.checkWords(ctx, sc.Mode == models.ModeHelp, tq.own)
	if err != nil {
		return Found{}, err
	}
	if !slices.Equal(fixed, tq.own) {
		tq.own, tq.bridge = fixed, translations(fixed)
	}
	hits, err := r.find(ctx, tq, sc, k)
	if err != nil {
		return Found{}, err
	}
	if len(hits) > 0 && len(tq.own) > 0 && (weak || len(tq.context) == 0 && hits[0].Cover < minCover) {
		hits = nil
	}
	return Found{Sources: hits, Query: query, Method: method}, nil
}

// condense turns a follow-up into a standalone retrieval query with the
// keyword method: no model call may stand between a question and its
// first token (a condense model made every follow-up wait for a whole
// answer of its own first). prior is the thread's earlier turns (see
// priorTurns, which parses each answer's receipt: read once a turn).
func condense(question string, prior []priorTurn) (string, string) {
	if len(prior) == 0 {
		return question, "none"
	}
	return KeywordCondense(question, prior), "keyword"
}
