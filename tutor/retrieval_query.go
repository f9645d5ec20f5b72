package tutor

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ranking weights, each measured on the eval set (see README, "How the
// tutor finds sections").
const (
	// contextWeight is how much the thread's earlier terms, ranked as
	// one query, count against one of the question's own words (each of
	// which also counts its rarity, 1 to 5): enough to keep a follow-up
	// on the thread's topic, not to outrank its new word ("and how do I
	// check it?" after a trunk). On the eval set 1 put the right section
	// first for 0.819 of the turns, 0.3 for 0.80, 0.6 for 0.813, 1.5 for
	// 0.78.
	contextWeight = 1
	// prevBonus lifts the section the previous answer cited first: a
	// follow-up naming nothing new ("and why?") is about it. Small: a
	// larger one (0.05, 0.2) kept follow-ups on the old section.
	prevBonus = 0.01
	// prevNameless is prevBonus for a follow-up naming nothing ("¿y
	// eso?"): it can only be about what the last answer cited first,
	// which the thread's earlier words (a question before it, about the
	// section before) outranked (recall@1 0.855 → 0.860, one turn).
	prevNameless = 100
	// prevLift multiplies the score of the sections of the lesson the
	// previous answer cited first by 1 + prevLift: a follow-up stays in
	// it unless its own words lead elsewhere (recall@1 0.731 against
	// 0.725 without, 0.731 at 1, 0.720 at 2).
	prevLift = 0.5
	// minPrefixRunes is the shortest word matched as a prefix of the
	// text's words ("enum" finds "enumerations", "config" "configuring"):
	// shorter ones would match too much.
	minPrefixRunes = 4
	// unknownShare is the share of a question's words the material never
	// mentions from which its matches are not trusted (uncovered). On the
	// eval set 2/3 said none only where no section answers (precision
	// 1.0, 4 turns); 1/2 caught 16 of the 22 such turns but also 7 that a
	// section answers ("¿cómo detengo una respuesta?": the help says
	// "detener"), precision 0.70.
	unknownShare = 0.67
	// minCover is the least share of a standalone question's words
	// (each weighed by its rarity) the first section must hold to be
	// cited: below it the question is mostly about something the section
	// does not name ("How do generics work in Go?" matching "type"). On
	// the eval set 0.15 said none on 4 more uncovered turns and on no
	// answered one; 0.2 and 0.25 also on answered ones (precision 0.75).
	// A follow-up leans on its thread, so its own words may all be
	// missing ("and why?"): it is not held to it.
	minCover = 0.15
	// nearUnknown is how much a word known only through a likely
	// misspelling ("bufered" for "buffer") counts as unknown in the
	// uncovered check: half, so "what is a bufered chanel?" is covered
	// and "give me a recipe for paella" ("recipe" near the Spanish
	// "recib") is not.
	nearUnknown = 0.5
)

// turnQuery is what a turn searches for.
type turnQuery struct {
	own      []string // the question's terms
	asked    string   // its words as asked, stopwords and all
	bridge   []string // their translations (see glossary)
	context  []string // the thread's terms the question may lean on
	prev     int64    // the chunk the previous answer cited first
	prevKind string   // its kind, lesson or help

	// vec is the question's embedding, nil without (retrieval_vector.go).
	vec *queryVector
}

// compound finds the question's code identifiers, addresses and prefixes
// ("errors.Is", "sync.WaitGroup", "10.20.77.5", "/26"), which PostgreSQL's
// parser keeps as one token in the lessons and termWords would split.
var compound = regexp.MustCompile(`(?:[\p{L}\p{N}_]+(?:[./][\p{L}\p{N}_]+)+|/\d{1,2}\b)`)

// questionTerms are the question's topic words and its compound tokens.
func questionTerms(text string) []string {
	terms := queryTerms(text)
	for _, c := range compound.FindAllString(strings.ToLower(text), 8) {
		if !strings.HasSuffix(c, ".") {
			terms = append(terms, c)
		}
	}
	return terms
}

// tsQuery is the OR of terms as tsquery text: each quoted (the terms
// hold only letters, digits, dots and slashes), a word long enough
// matched as a prefix, which catches what stemming misses, and a word
// the thesaurus knows written with its synonyms as one term ("a|b").
func tsQuery(terms []string) string {
	parts := make([]string, 0, len(terms))
	for _, t := range terms {
		group := []string{tsWord(t)}
		for _, s := range synonyms[unaccent(t)] {
			group = append(group, tsWord(s))
		}
		parts = append(parts, strings.Join(group, "|"))
	}
	return strings.Join(parts, " | ")
}

// tsWord is one word or compound token as tsquery text.
func tsWord(t string) string {
	switch {
	case strings.ContainsAny(t, "./"):
		return "'" + t + "'"
	case utf8.RuneCountInString(t) >= minPrefixRunes:
		return "'" + t + "':*"
	default:
		return "'" + t + "'"
	}
}

// checkWords looks the question's words up in the material. A word no
// section holds that is close to one they do hold (a misspelling:
// "bufered", "gorrutina"; see models.NearSimilarity) is replaced by that
// word, so it finds its sections. weak says whether the question names
// too much the material never mentions to trust its matches: at least
// unknownShare of its words (each with its translations, numbers and
// identifiers aside) match no section of the lessons, or of the help when
// help, even so. Found sections matched on its other words then are a
// weak match ("how does IPv6 autoconfiguration work?" matching
// "address"), better not cited.
func (r *Retriever) checkWords(ctx context.Context, help bool, own []string) (fixed []string, weak bool, err error) {
	var terms []string
	at := map[string]int{}
	for i, t := range own {
		if strings.ContainsAny(t, "./") || strings.Trim(t, "0123456789") == "" {
			continue
		}
		term := strings.ReplaceAll(tsQuery(append([]string{t}, bridge[unaccent(t)]...)), " ", "")
		at[term] = i
		terms = append(terms, term)
	}
	if len(terms) == 0 {
		return own, false, nil
	}
	unknown, err := r.chunks.Unknown(ctx, help, terms)
	if err != nil {
		return nil, false, err
	}
	fixed = slices.Clone(own)
	missing := 0.0
	for _, u := range unknown {
		if i, ok := at[u.Term]; ok && plainWord(u.Near) {
			fixed[i] = u.Near
			missing += nearUnknown
		} else {
			missing++
		}
	}
	return fixed, missing >= unknownShare*float64(len(terms)), nil
}

// plainWord says whether w is a word of letters and digits only, as a
// question's terms are (a lexeme from the lessons could hold anything
// their parser keeps in one token): it goes into tsquery text quoted.
func plainWord(w string) bool {
	return w != "" && !strings.ContainsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
