package tutor

import (
	"fmt"
	"hash/fnv"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"aula/markdown"
	"aula/models"
)

// checkQuestion is a question ready to ask: the item to store, the text
// the thread shows, and the section it is about.
type checkQuestion struct {
	item models.CheckItem
	text string
	src  Source
}

// keyTermRE finds what a sentence teaches: code, bold text, a number or an acronym.
var keyTermRE = regexp.MustCompile("`([^`]{2,40})`|\\*\\*([^*]{2,40})\\*\\*|\\b(\\d+(?:[.,]\\d+)*[A-Za-z]?)\\b|\\b([A-Z][A-Z0-9]{1,9})\\b")

// blankCandidate is a sentence with a term that can be blanked out.
type blankCandidate struct {
	src      Source
	sentence string // the sentence as written
	blanked  string // with the term replaced by a blank
	term     string // the term, bare
}

// blankCandidates lists, in reading order, every whole sentence of the
// run's sections with one key term to blank out (one per sentence): a
// sentence of six words or more and a term of its own section. A section
// with no such sentence (a two-sentence intro, a section that is mostly
// code) offers instead its whole sentences of four words or more with a
// term its lesson teaches (marks as code or bold, anywhere), so that
// checking it alone still asks a fair question.
func (r *checkRun) blankCandidates() []blankCandidate {
	var out []blankCandidate
	for _, src := range r.sections {
		keys := keyWords(src)
		found := sectionBlanks(src, keys, 6)
		if len(found) == 0 {
			maps.Copy(keys, r.lessonKeys[src.LessonID])
			found = sectionBlanks(src, keys, 4)
		}
		out = append(out, found...)
	}
	return out
}

// sectionBlanks are the section's whole sentences of at least minWords
// words with one of keys (or a term marked up where it stands) to blank.
func sectionBlanks(src Source, keys map[string]bool, minWords int) []blankCandidate {
	var out []blankCandidate
	for _, l := range splitSentences(src.Text) {
		// A sentence that introduces a list or code ("…, then the result type:") is half a thought.
		if len(strings.Fields(l.text)) < minWords || !wholeSentence(l.text) {
			continue
		}
		if c, ok := blankOf(src, l.text, keys); ok {
			out = append(out, c)
		}
	}
	return out
}

// ellipsisRE is an ellipsis: text elided or cut short.
var ellipsisRE = regexp.MustCompile(`\.\.\.|…`)

// codeSpanRE is inline code, where dots and ellipses are code, not prose.
var codeSpanRE = regexp.MustCompile("`[^`]*`")

// wholeSentence reports whether s is a whole thought: it opens like a
// sentence (a capital, a digit, a code term or an opening mark, not the
// tail of a sentence cut at a dot inside code), ends with ., ! or ?, and
// elides nothing.
func wholeSentence(s string) bool {
	prose := codeSpanRE.ReplaceAllString(s, "code")
	if ellipsisRE.MatchString(prose) || strings.Contains(prose, "___") { // a blank of its own
		return false
	}
	end := strings.TrimRight(prose, ")*\"”»'_ ")
	if last, _ := utf8.DecodeLastRuneInString(end); last != '.' && last != '!' && last != '?' {
		return false
	}
	if strings.HasPrefix(s, "`") {
		return true
	}
	first, _ := utf8.DecodeRuneInString(strings.TrimLeft(s, "*\"“«¿¡('"))
	return unicode.IsUpper(first) || unicode.IsDigit(first)
}

// keyWords are the terms a section is about: the words of its heading and
// its lesson's title, and every term it marks as code or bold. A plain
// word is blanked only when it is one of them.
func keyWords(src Source) map[string]bool {
	out := markedTerms([]Source{src})
	for _, w := range offlineTerms(src.Heading + " " + src.Title) {
		out[w] = true
	}
	return out
}

// markedTerms are the words of every term the sections mark as code or bold.
func markedTerms(sections []Source) map[string]bool {
	var text strings.Builder
	for _, src := range sections {
		for _, m := range keyTermRE.FindAllStringSubmatch(src.Text, -1) {
			text.WriteString(" " + m[1] + " " + m[2])
		}
	}
	out := map[string]bool{}
	for _, w := range offlineTerms(text.String()) {
		out[w] = true
	}
	return out
}

// blankOf blanks the sentence's first key term that occurs in it once,
// or else its longest word of four letters or more that names what the
// section is about (one of keys).
func blankOf(src Source, sentence string, keys map[string]bool) (blankCandidate, bool) {
	once := func(term string) bool {
		return term != "" && strings.Count(" "+normalizeAnswer(sentence)+" ", " "+normalizeAnswer(term)+" ") == 1
	}
	for _, m := range keyTermRE.FindAllStringSubmatchIndex(sentence, -1) {
		if term := bareTerm(sentence, m); once(term) {
			return blankCandidate{src: src, sentence: sentence, blanked: sentence[:m[0]] + "_____" + sentence[m[1]:], term: term}, true
		}
	}
	best := ""
	for _, w := range strings.FieldsFunc(sentence, func(r rune) bool { return !unicode.IsLetter(r) }) {
		terms := offlineTerms(w)
		if utf8.RuneCountInString(w) > utf8.RuneCountInString(best) && len(terms) == 1 && keys[terms[0]] {
			best = w
		}
	}
	if utf8.RuneCountInString(best) < 4 || !once(best) || strings.Contains(sentence, "`") {
		return blankCandidate{}, false
	}
	i := wordIndex(sentence, best)
	if i < 0 {
		return blankCandidate{}, false
	}
	return blankCandidate{src: src, sentence: sentence, blanked: sentence[:i] + "_____" + sentence[i+len(best):], term: best}, true
}

// wordIndex is where w stands in s as a whole word.
func wordIndex(s, w string) int {
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(w):])
		if !unicode.IsLetter(before) && !unicode.IsLetter(after) {
			return i
		}
		from = i + len(w)
	}
}

// bareTerm is the matched term without its markup; "" when it is too
// short to ask about (a one-character value is guessed, not known) or a
// phrase rather than a term.
func bareTerm(s string, m []int) string {
	for g := 1; g < len(m)/2; g++ {
		if m[2*g] >= 0 {
			t := strings.TrimSpace(s[m[2*g]:m[2*g+1]])
			if g > 1 { // code keeps its dots ("./..."); bold ends where its sentence does
				t = strings.TrimRight(t, ":;,.")
			}
			// A whole phrase in bold is emphasis, not a term to recall.
			if utf8.RuneCountInString(normalizeAnswer(t)) < 2 || len(strings.Fields(t)) > 3 {
				return ""
			}
			return t
		}
	}
	return ""
}

// offlineQuestion builds the check's question number pos from the
// sections' text, skipping what it asked already: sections take turns,
// and every other question offers a choice when the sections have other
// terms to offer beside the right one.
func offlineQuestion(run *checkRun, pos int) (checkQuestion, bool) {
	cands := run.blankCandidates()
	asked := map[string]bool{}
	for _, it := range run.state.Check.Items {
		asked[normalizeAnswer(it.Expected)+"\x00"+it.Anchor] = true
	}
	var fresh []blankCandidate
	for _, c := range cands {
		if !asked[normalizeAnswer(c.term)+"\x00"+c.src.Anchor] {
			fresh = append(fresh, c)
		}
	}
	if len(fresh) == 0 {
		return checkQuestion{}, false
	}
	turn := run.sections[(pos-1)%len(run.sections)]
	pick := fresh[0]
	for _, c := range fresh {
		if c.src.LessonID == turn.LessonID && c.src.Anchor == turn.Anchor {
			pick = c
			break
		}
	}
	tx := checkText(run.state.Lang)
	item := models.CheckItem{LessonID: pick.src.LessonID, Anchor: pick.src.Anchor, SectionHash: pick.src.Hash,
		Kind: models.KindBlank, Expected: pick.term}
	heading := sectionName(pick.src)
	if choices := distractors(cands, pick.term); pos%2 == 0 && len(choices) >= 2 {
		item.Kind = models.KindChoice
		item.Choices = append(choices, pick.term)
		slices.SortFunc(item.Choices, func(a, b string) int { return int(termHash(a)) - int(termHash(b)) })
		item.Question = fmt.Sprintf(tx.choice, heading, pick.blanked)
	} else {
		item.Question = fmt.Sprintf(tx.blank, heading, pick.blanked)
	}
	return checkQuestion{item: item, text: questionText(item), src: pick.src}, true
}

// distractors are up to three other terms of the sections, told apart
// from the right one after normalising.
func distractors(cands []blankCandidate, term string) []string {
	seen := map[string]bool{normalizeAnswer(term): true}
	var out []string
	for _, c := range cands {
		n := normalizeAnswer(c.term)
		if seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, c.term)
	}
	slices.SortFunc(out, func(a, b string) int { return int(termHash(a+term)) - int(termHash(b+term)) })
	return out[:min(len(out), 3)]
}

func termHash(s string) uint16 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return uint16(h.Sum32())
}

// questionText is a question as the thread shows it: choices listed under it.
func questionText(it models.CheckItem) string {
	var b strings.Builder
	b.WriteString(it.Question)
	for _, c := range it.Choices {
		fmt.Fprintf(&b, "\n- %s", c)
	}
	return b.String()
}

// sectionName is how feedback names a section: its heading, or the
// lesson's title for the text before the first heading.
func sectionName(src Source) string {
	if src.Heading != "" {
		return src.Heading
	}
	return src.Title
}

// sectionLink is the § link to a section, like the ones answers cite;
// the text before the first heading is the top of the lesson.
func sectionLink(src Source) string {
	return "[§ " + strings.NewReplacer("[", "", "]", "").Replace(sectionName(src)) + "](" + markdown.Fragment(src.Anchor) + ")"
}

// offlineFeedback is the feedback on a verdict the matcher gave, citing the section.
func offlineFeedback(lang, verdict string, it *models.CheckItem, src Source) string {
	tx := checkText(lang)
	switch verdict {
	case models.VerdictCorrect:
		return fmt.Sprintf(tx.correct, it.Expected, sectionLink(src))
	case models.VerdictPartly:
		return fmt.Sprintf(tx.partly, it.Expected, sectionLink(src))
	}
	return fmt.Sprintf(tx.notYet, it.Expected, sectionLink(src))
}

// offlineHint helps with a second try without giving the answer away.
func offlineHint(lang string, it *models.CheckItem, answer string, src Source) string {
	tx := checkText(lang)
	if it.Kind == models.KindChoice {
		return fmt.Sprintf(tx.hintChoice, answer, sectionLink(src))
	}
	first, _ := utf8.DecodeRuneInString(it.Expected)
	return fmt.Sprintf(tx.hintBlank, string(first), utf8.RuneCountInString(it.Expected), sectionLink(src))
}
