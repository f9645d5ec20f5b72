package tutor

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"aula/models"
)

// DefaultLessonBudget is how many characters of a lesson go into a prompt:
// a lesson that fits goes whole; a longer one as its outline plus the
// sections most relevant to the question.
const DefaultLessonBudget = 8000

// relatedBudget bounds the retrieved material from outside the lesson.
const relatedBudget = 4000

// Lesson is a lesson as the prompt uses it.
type Lesson struct {
	ID       string
	ModuleID int64
	Title    string
	Content  string   // the Markdown source
	Chunks   []Source // every section in order, for the outline
}

// Guide is the progress of a guide-style exchange.
type Guide struct {
	HintLevel  int  // guide turns since the last full answer, this one included
	FullAnswer bool // this turn gives the full worked answer
}

// PromptInput is everything the system prompt is built from.
type PromptInput struct {
	Mode   string
	Style  string
	Lang   string
	Lesson *Lesson // lesson mode
	// Passage is the lesson's passage the question is about (lesson mode;
	// nil none): it goes first, and its section leads the sources.
	Passage *Passage
	Sources []Source // retrieved chunks, best first
	Guide   Guide
	Budget  int // lesson characters; 0 means DefaultLessonBudget
	// Guard is the knowledge check open on the lesson whose answers the
	// tutor must not give (nil: none), see models.Policy.GuideDuringChecks.
	Guard *models.CheckGuard
}

// Prompt is the built system prompt and what it showed the model.
type Prompt struct {
	System string
	// Sources are the chunks the prompt contains, the citations' candidates.
	Sources []Source
	// LessonWhole reports that the lesson went in whole (within budget).
	LessonWhole bool
}

// BuildPrompt writes the system prompt for a mode and style.
func BuildPrompt(in PromptInput) Prompt {
	budget := in.Budget
	if budget <= 0 {
		budget = DefaultLessonBudget
	}
	var b strings.Builder
	var p Prompt
	switch in.Mode {
	case models.ModeHelp:
		b.WriteString("You are aula's help assistant. aula is a learning platform with lessons and an AI tutor.\n" +
			"Answer only questions about using aula, and only from the help articles below. " +
			"If the articles do not cover the question, say plainly that the help does not cover it " +
			"(and that you can only help with using aula); do not guess or invent features.\n")
	case models.ModeLesson:
		b.WriteString("You are aula's tutor for the lesson below. Ground your answer in the lesson; " +
			"you may add general knowledge where the lesson stops, and say when you do.\n" +
			"Cite the lesson sections you used as [§ Heading](#anchor), with the heading and anchor given below.\n")
	default:
		b.WriteString("You are aula's tutor for IT and learning questions. Answer from your own knowledge, " +
			"accurately and concretely; when one of the aula lessons below helps, mention it.\n")
	}
	b.WriteString(styleInstructions(in.Style, in.Guide))
	writeGuard(&b, in.Guard)
	b.WriteString(langInstruction(in.Lang))

	switch {
	case in.Mode == models.ModeLesson && in.Lesson != nil:
		hits := in.Sources
		if in.Passage != nil {
			writePassage(&b, in.Passage)
			hits = withPassageSection(in.Lesson, in.Passage, hits)
		}
		p.Sources, p.LessonWhole = writeLesson(&b, in.Lesson, hits, budget)
		var related []Source
		for _, s := range in.Sources {
			if s.LessonID != in.Lesson.ID {
				related = append(related, s)
			}
		}
		if len(related) > 0 {
			b.WriteString("\n## Related sections from other lessons\n")
			p.Sources = append(p.Sources, writeSources(&b, related, relatedBudget)...)
		}
	case in.Mode == models.ModeHelp:
		b.WriteString("\n## Help articles\n")
		if len(in.Sources) == 0 {
			b.WriteString("(No help article matches this question.)\n")
		}
		p.Sources = writeSources(&b, in.Sources, budget)
	default:
		if len(in.Sources) > 0 {
			b.WriteString("\n## aula lessons that may help\n")
			p.Sources = writeSources(&b, in.Sources, relatedBudget)
		}
	}
	p.System = b.String()
	return p
}

// writeLesson adds the lesson within budget characters and returns the
// sections included as sources.
func writeLesson(b *strings.Builder, l *Lesson, hits []Source, budget int) ([]Source, bool) {
	fmt.Fprintf(b, "\n## Lesson: %s\n", l.Title)
	var inLesson []Source
	for _, s := range hits {
		if s.LessonID == l.ID {
			inLesson = append(inLesson, s)
		}
	}
	if utf8.RuneCountInString(l.Content) <= budget {
		b.WriteString("Sections (cite as [§ Heading](#anchor)):\n")
		for _, c := range l.Chunks {
			fmt.Fprintf(b, "- [§ %s](#%s)\n", c.Heading, c.Anchor)
		}
		b.WriteString("\n")
		b.WriteString(l.Content)
		b.WriteString("\n")
		return inLesson, true
	}
	// Too long to send whole: the outline keeps the lesson's shape, and
	// the budget left goes to the sections the question is about.
	var outline strings.Builder
	outline.WriteString("Outline (cite as [§ Heading](#anchor)):\n")
	for _, c := range l.Chunks {
		fmt.Fprintf(&outline, "- [§ %s](#%s)\n", c.Heading, c.Anchor)
	}
	o := outline.String()
	if utf8.RuneCountInString(o) > budget/2 {
		o = clipRunes(o, budget/2)
	}
	b.WriteString(o)
	left := budget - utf8.RuneCountInString(o)
	if len(inLesson) == 0 {
		// Nothing matched: the opening sections are the best guess.
		inLesson = l.Chunks
	}
	b.WriteString("\nMost relevant sections:\n")
	return writeSources(b, inLesson, left), false
}

// writeSources adds chunks while they fit in budget characters, clipping
// the last one when a useful part of it fits.
func writeSources(b *strings.Builder, src []Source, budget int) []Source {
	var used []Source
	left := budget
	for _, s := range src {
		head := fmt.Sprintf("\n### [§ %s](#%s)", s.Heading, s.Anchor)
		if s.Title != "" {
			head += " — " + s.Title
		}
		head += "\n"
		text := s.Text
		need := utf8.RuneCountInString(head) + utf8.RuneCountInString(text) + 1
		if need > left {
			room := left - utf8.RuneCountInString(head) - 1
			if room < 200 {
				break
			}
			text = clipRunes(text, room)
			need = utf8.RuneCountInString(head) + utf8.RuneCountInString(text) + 1
		}
		b.WriteString(head)
		b.WriteString(text)
		b.WriteString("\n")
		left -= need
		used = append(used, s)
	}
	return used
}

func styleInstructions(style string, g Guide) string {
	if style != models.StyleGuide {
		return "Style: give a clear, complete answer, with a short example when it helps.\n"
	}
	switch {
	case g.FullAnswer:
		return "Style: guided (Socratic). The student has tried or asked for the answer: now give the full worked answer, " +
			"step by step, then one short question to check understanding.\n"
	case g.HintLevel >= 2:
		return "Style: guided (Socratic). Give a bigger hint that narrows the next step, building on the student's attempt; " +
			"still do not give the full answer.\n"
	default:
		return "Style: guided (Socratic). Do not give the answer yet: reply with one guiding question or a small hint " +
			"that points the student to the next step.\n"
	}
}

// guardQuestions and guardQuestionChars bound the check's questions a
// guarded prompt lists.
const (
	guardQuestions     = 10
	guardQuestionChars = 300
)

// writeGuard tells the model that a knowledge check on the lesson is open
// and its answers are not to be given, whatever the student asks or the
// style they chose; g nil writes nothing.
func writeGuard(b *strings.Builder, g *models.CheckGuard) {
	if g == nil {
		return
	}
	b.WriteString("Guide only: the student has a knowledge check on this lesson open, and their organization " +
		"asks the tutor only to guide while it is. Whatever the student asks, and whichever style they chose, " +
		"do not give, confirm or correct the answers to the check's questions and do not solve them: reply with " +
		"a guiding question or a small hint that points to the section of the lesson to reread.\n")
	if len(g.Questions) == 0 {
		return
	}
	b.WriteString("The check's questions so far:\n")
	for _, q := range g.Questions[max(len(g.Questions)-guardQuestions, 0):] {
		fmt.Fprintf(b, "- %s\n", strings.Join(strings.Fields(clipRunes(q, guardQuestionChars)), " "))
	}
}

func langInstruction(lang string) string {
	if lang == "es" {
		return "Answer in Spanish (español), whatever the language of the material.\n"
	}
	return "Answer in English, whatever the language of the material.\n"
}

// askForAnswer matches a student asking to be shown the answer.
var askForAnswer = regexp.MustCompile(`(?i)(just tell me|tell me the answer|give me the (full )?answer|show me the (answer|solution)|` +
	`what is the answer|i give up|full answer|the solution|dime la respuesta|dame la respuesta|respuesta completa|` +
	`mu[eé]strame la (respuesta|soluci[oó]n)|la soluci[oó]n|me rindo|no lo s[eé]|resp[oó]ndeme)`)

// NextGuide is the guide state of a new answer: one more hint than the last
// guide answer since a full one, and the full answer when the student asks
// for it or has had two hints. last is the previous answer's receipt (nil
// for the first).
func NextGuide(style, question string, last *Receipt) Guide {
	if style != models.StyleGuide {
		return Guide{}
	}
	level := 1
	if last != nil && last.Style == models.StyleGuide && !last.FullAnswer {
		level = last.HintLevel + 1
	}
	return Guide{HintLevel: level, FullAnswer: level > 2 || askForAnswer.MatchString(question)}
}

// detectLang picks the answer language from the question, falling back to
// the student's locale when the question is too short to tell.
func detectLang(question, locale string) string {
	return DetectLanguageHint(question, locale)
}
