package tutor

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"aula/models"
)

// normalizeAnswer folds what should not change a grade: case, accents,
// markup, punctuation and spacing.
func normalizeAnswer(s string) string {
	s = foldAccents(strings.ToLower(s))
	fields := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(fields, " ")
}

// matchAnswer grades a free-text answer against the expected term. The
// answer must be the term, or a short phrase whose content words are
// mostly the term's: words like "the" or "es" are free, but other content
// words may number at most half the term's words (none beside a one-word
// term), so an answer that lists many terms in the hope one is right is
// not correct. A small typo is forgiven; half of a term of several words
// (not a value) is partly.
func matchAnswer(answer, expected string) string {
	a, e := normalizeAnswer(answer), normalizeAnswer(expected)
	if e == "" || a == "" {
		return models.VerdictNotYet
	}
	if closeEnough(a, e) || closeEnough(strings.ReplaceAll(a, " ", ""), strings.ReplaceAll(e, " ", "")) {
		return models.VerdictCorrect
	}
	aw, ew := strings.Fields(a), strings.Fields(e)
	allowed := len(ew) / 2
	if at := phraseAt(aw, e); at >= 0 && extraWords(slices.Concat(aw[:at], aw[at+len(ew):]), nil) <= allowed {
		return models.VerdictCorrect
	}
	if len(ew) > 1 && !strings.ContainsFunc(e, unicode.IsDigit) { // half a value is another value
		hit := 0
		for _, w := range ew {
			if slices.ContainsFunc(aw, func(x string) bool { return closeEnough(x, w) }) {
				hit++
			}
		}
		if hit*2 >= len(ew) && extraWords(aw, ew) <= allowed {
			return models.VerdictPartly
		}
	}
	return models.VerdictNotYet
}

// phraseAt is where the normalised term stands in the answer's words, a
// small typo forgiven; -1 when it is not there.
func phraseAt(aw []string, term string) int {
	n := len(strings.Fields(term))
	for i := 0; i+n <= len(aw); i++ {
		if closeEnough(strings.Join(aw[i:i+n], " "), term) {
			return i
		}
	}
	return -1
}

// extraWords counts the content words (not stopwords) among words that
// are none of the term's words.
func extraWords(words, termWords []string) int {
	n := 0
	for _, w := range words {
		if !offlineStopwords[w] && !slices.ContainsFunc(termWords, func(t string) bool { return closeEnough(w, t) }) {
			n++
		}
	}
	return n
}

// closeEnough allows one typo in five letters or more, two from nine;
// short terms and numbers must be exact (one digit off is another value).
func closeEnough(a, b string) bool {
	if a == b {
		return true
	}
	n := utf8.RuneCountInString(b)
	if n < 5 || strings.ContainsFunc(b, unicode.IsDigit) {
		return false
	}
	allowed := 1
	if n >= 9 {
		allowed = 2
	}
	return editDistance(a, b, allowed) <= allowed
}

// editDistance is the Levenshtein distance of a and b, or limit+1 once it is over limit.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// matchChoice grades a which-of-these, which takes exactly one choice: the
// answer must be the right one; an answer that names any other choice
// (besides or instead of the right one) is not yet, and text that names
// none of them is matched like a blank.
func matchChoice(answer string, it *models.CheckItem) string {
	a := normalizeAnswer(answer)
	for _, c := range it.Choices {
		if normalizeAnswer(c) == a {
			if a == normalizeAnswer(it.Expected) {
				return models.VerdictCorrect
			}
			return models.VerdictNotYet
		}
	}
	aw, ew := strings.Fields(a), strings.Fields(normalizeAnswer(it.Expected))
	for _, c := range it.Choices {
		n := normalizeAnswer(c)
		// A choice that is part of the right one ("port" in "access port") is named by naming it.
		if n == "" || n == normalizeAnswer(it.Expected) || phraseAt(ew, n) >= 0 {
			continue
		}
		if phraseAt(aw, n) >= 0 {
			return models.VerdictNotYet
		}
	}
	return matchAnswer(answer, it.Expected)
}
