package tutor

import (
	"context"
	"errors"
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

// demoLessons imports the demo content and lists its lessons.
func demoLessons(t *testing.T, f *fixture) []struct{ ID, Language string } {
	t.Helper()
	if _, err := importer.Import(context.Background(), models.NewContent(f.db.DB), content.FS); err != nil {
		t.Fatal(err)
	}
	var lessons []struct{ ID, Language string }
	if err := f.db.Raw(`SELECT id, language FROM lessons ORDER BY id`).Scan(&lessons).Error; err != nil {
		t.Fatal(err)
	}
	return lessons
}

// Every offline blank question the demo lessons can ask, in English and
// Spanish, shows a whole sentence: it opens like a sentence, ends with
// ., ! or ?, elides nothing, and has exactly one blank, which stands for
// a key term (marked up as code or bold, a value, a word of what the
// section is about, or a term its lesson marks up) and not for any plain word.
func TestCheckOfflineBlanksAreWholeSentences(t *testing.T) {
	f := newFixture(t)
	asked := map[string]int{}
	for _, l := range demoLessons(t, f) {
		run, err := f.svc.resolveScope(context.Background(), CheckScope{LessonID: l.ID})
		if err != nil {
			t.Fatal(err)
		}
		var lesson strings.Builder
		for _, src := range run.sections {
			lesson.WriteString(src.Text + "\n\n")
		}
		for _, c := range run.blankCandidates() {
			asked[l.Language]++
			where := l.ID + "#" + c.src.Anchor
			if why := unfairBlank(c, lesson.String()); why != "" {
				t.Errorf("%s: %s:\n  %s", where, why, c.blanked)
			}
		}
	}
	if asked["en"] == 0 || asked["es"] == 0 {
		t.Fatalf("blank questions by language: %v", asked)
	}
}

// unfairBlank says what is wrong with a blank question of a section of
// the lesson whose text is lesson, "" when nothing.
func unfairBlank(c blankCandidate, lesson string) string {
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
	case !isKeyTerm(c, lesson):
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
// the section's heading, its lesson's title or a term the lesson marks up.
func isKeyTerm(c blankCandidate, lesson string) bool {
	if strings.Contains(c.sentence, "`"+c.term+"`") || strings.Contains(c.sentence, "**"+c.term+"**") || valueRE.MatchString(c.term) {
		return true
	}
	about := normalizeAnswer(c.src.Heading + " " + c.src.Title)
	for _, m := range regexp.MustCompile("`([^`]+)`|\\*\\*([^*]+)\\*\\*").FindAllStringSubmatch(lesson, -1) {
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

// Checking any one section of the demo lessons alone, offline, in
// English and Spanish, asks at least one question about it (a blank from
// its text: an intro of two sentences and a section that is mostly code
// included).
func TestCheckEverySectionAloneAsksOffline(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	checked := map[string]int{}
	for _, l := range demoLessons(t, f) {
		whole, err := f.svc.resolveScope(ctx, CheckScope{LessonID: l.ID})
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range whole.sections {
			where := l.ID + "#" + src.Anchor
			// A section's button names its anchor; the intro, which has
			// none (no anchor is the whole lesson), is alone in a review.
			scope := CheckScope{LessonID: l.ID, Anchor: src.Anchor}
			if src.Anchor == "" {
				scope = CheckScope{Sections: []models.SectionRef{{LessonID: l.ID}}}
			}
			u := &models.User{ID: f.user(models.PlanPro)}
			st, err := f.svc.StartCheck(ctx, u, scope)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			checked[l.Language]++
			q := st.Current()
			if q == nil || q.Anchor != src.Anchor || !strings.Contains(q.Question, "_____") {
				t.Errorf("%s alone asks nothing: %+v", where, q)
			}
		}
	}
	if checked["en"] == 0 || checked["es"] == 0 {
		t.Fatalf("sections checked by language: %v", checked)
	}
}

// codeOnlyLessons are lessons whose one section gives no blank: code
// alone, and a sentence too short beside code.
var codeOnlyLessons = []lessonFixture{
	{"code-only", "Code only", "en", []chunkFixture{{"Example", "```go\nfmt.Println(\"hi\")\n```"}}},
	{"solo-codigo", "Solo código", "es", []chunkFixture{{"Ejemplo", "Mira:\n\n```go\nx := 1\n```"}}},
}

// A section that gives no question offline (all code, or a sentence too
// short to blank) is refused before anything is written, in English and
// Spanish lessons alike: no thread, no question counted. A quiz model,
// which can write a question about code, takes it.
func TestCheckNothingToAskIsRefused(t *testing.T) {
	f := newFixture(t)
	f.seedLessons(codeOnlyLessons...)
	ctx := context.Background()
	for _, l := range codeOnlyLessons {
		u := &models.User{ID: f.user(models.PlanPro)}
		if _, err := f.svc.StartCheck(ctx, u, CheckScope{LessonID: l.id}); !isRefusal(err, RefusedNothingToAsk) || !errors.Is(err, ErrNothingToAsk) {
			t.Fatalf("%s: a check with nothing to ask: %v", l.id, err)
		}
		var threads int
		f.scalar(&threads, `SELECT count(*) FROM conversations WHERE user_id = ?`, u.ID)
		if threads != 0 || f.used(u.ID) != 0 {
			t.Fatalf("%s: refused, yet %d threads and %d questions counted", l.id, threads, f.used(u.ID))
		}
	}

	fm, u := quizFixture(t, quizServer(t, ""))
	fm.seedLessons(codeOnlyLessons...)
	st, err := fm.svc.StartCheck(ctx, u, CheckScope{LessonID: "code-only"})
	if err != nil || st.Current() == nil || st.Current().Kind != models.KindOpen {
		t.Fatalf("with a quiz model: %v", err)
	}
}
