package tutor

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"aula/content"
	"aula/content/importer"
	"aula/models"
)

var (
	// proseEllipsisRE is an ellipsis outside inline code: a sentence cut short.
	proseEllipsisRE = regexp.MustCompile(`\.\.\.|…`)
	inlineCodeRE    = regexp.MustCompile("`[^`]*`")
	// valueRE is a number or an acronym: a key term however it is written.
	valueRE = regexp.MustCompile(`^(\d+(?:[.,]\d+)*[A-Za-z]?|[A-Z][A-Z0-9]{1,9})$`)
)

// Every offline blank question the demo lessons can ask, in English and
// Spanish, shows a whole sentence: it opens like a sentence, ends with
// ., ! or ?, elides nothing, and has exactly one blank, which stands for
// a key term (marked up as code or bold, a value, or a word of what the
// section is about) and not for any plain word.
func TestCheckOfflineBlanksAreWholeSentences(t *testing.T) {
	f := newFixture(t)
	if _, err := importer.Import(context.Background(), models.NewContent(f.db.DB), content.FS); err != nil {
		t.Fatal(err)
	}
	var lessons []struct{ ID, Language string }
	if err := f.db.Raw(`SELECT id, language FROM lessons ORDER BY id`).Scan(&lessons).Error; err != nil {
		t.Fatal(err)
	}
	asked := map[string]int{}
	for _, l := range lessons {
		run, err := f.svc.resolveScope(context.Background(), CheckScope{LessonID: l.ID})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range blankCandidates(run.sections) {
			asked[l.Language]++
			where := l.ID + "#" + c.src.Anchor
			if why := unfairBlank(c); why != "" {
				t.Errorf("%s: %s:\n  %s", where, why, c.blanked)
			}
		}
	}
	if asked["en"] == 0 || asked["es"] == 0 {
		t.Fatalf("blank questions by language: %v", asked)
	}
}

// unfairBlank says what is wrong with a blank question, "" when nothing.
func unfairBlank(c blankCandidate) string {
	prose := inlineCodeRE.ReplaceAllString(c.blanked, "code")
	switch {
	case strings.Count(c.blanked, "_____") != 1 || strings.Count(prose, "_") != 5:
		return "not exactly one blank"
	case proseEllipsisRE.MatchString(prose):
		return "cut short with an ellipsis"
	case !strings.ContainsAny(lastRune(strings.TrimRight(prose, ")*\"”»' ")), ".!?"):
		return "does not end like a sentence"
	case !opensSentence(c.sentence):
		return "does not open like a sentence"
	case !isKeyTerm(c):
		return "the blank is no key term (" + c.term + ")"
	}
	return ""
}

func lastRune(s string) string {
	r, _ := utf8.DecodeLastRuneInString(s)
	return string(r)
}

// opensSentence: a capital, a digit, a code term or an opening mark.
func opensSentence(s string) bool {
	if strings.HasPrefix(s, "`") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(strings.TrimLeft(s, "*\"“«¿¡("))
	return unicode.IsUpper(r) || unicode.IsDigit(r)
}

// isKeyTerm: the term is marked up where it stands, a value, or a word of
// the section's heading, its lesson's title or a term the section marks up.
func isKeyTerm(c blankCandidate) bool {
	if strings.Contains(c.sentence, "`"+c.term+"`") || strings.Contains(c.sentence, "**"+c.term+"**") || valueRE.MatchString(c.term) {
		return true
	}
	about := normalizeAnswer(c.src.Heading + " " + c.src.Title)
	for _, m := range regexp.MustCompile("`([^`]+)`|\\*\\*([^*]+)\\*\\*").FindAllStringSubmatch(c.src.Text, -1) {
		about += " " + normalizeAnswer(m[1]+" "+m[2])
	}
	term := normalizeAnswer(c.term)
	for _, w := range strings.Fields(about) {
		if singular(w) == singular(term) {
			return true
		}
	}
	return false
}

// singular drops an English or Spanish plural ending, roughly.
func singular(w string) string {
	return strings.TrimSuffix(strings.TrimSuffix(w, "s"), "e")
}
