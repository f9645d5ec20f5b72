package tutor

import (
	"aula/models"

	"fmt"
	"strings"
)

// suggestTexts are the offline tutor's suggested questions, in the
// lesson's language (content, like the check's texts): %s a section's
// heading, a term the lesson marks, or its title.
type suggestTexts struct {
	heading, term string
	fill          [3]string
}

var suggestTextsEN = suggestTexts{
	heading: "Can you explain “%s” with an example?",
	term:    "What does “%s” mean, and when does it matter?",
	fill:    [3]string{"What is the main idea of “%s”?", "Can you give me an example from “%s”?", "What should I remember from “%s”?"},
}

var suggestTextsES = suggestTexts{
	heading: "¿Puedes explicarme «%s» con un ejemplo?",
	term:    "¿Qué significa «%s» y cuándo importa?",
	fill:    [3]string{"¿Cuál es la idea principal de «%s»?", "¿Puedes darme un ejemplo de «%s»?", "¿Qué debo recordar de «%s»?"},
}

// offlineSuggestions are three questions from the lesson's own text: its
// headings and the terms it marks as code or bold, in reading order,
// taking turns; a lesson with too few of them is asked about as a whole.
func offlineSuggestions(l LessonText) [3]string {
	tx := suggestTextsEN
	if l.Lang == LangSpanish {
		tx = suggestTextsES
	}
	var headings, terms []string
	for _, src := range l.sections() {
		// The text before the first heading is headed by the lesson's
		// title, which the questions about the whole lesson ask about.
		if src.Heading != "" && src.Heading != l.Title {
			headings = append(headings, fmt.Sprintf(tx.heading, src.Heading))
		}
		for _, m := range keyTermRE.FindAllStringSubmatch(src.Text, -1) {
			if t := strings.TrimSpace(m[1] + m[2]); t != "" {
				terms = append(terms, fmt.Sprintf(tx.term, t))
			}
		}
	}
	var out [3]string
	seen, n := map[string]bool{}, 0
	take := func(q string) {
		q = clipRunes(q, models.MaxSuggestion)
		if n < 3 && !seen[normalizeAnswer(q)] {
			seen[normalizeAnswer(q)], out[n] = true, q
			n++
		}
	}
	for i := 0; i < max(len(headings), len(terms)) && n < 3; i++ {
		if i < len(headings) {
			take(headings[i])
		}
		if i < len(terms) {
			take(terms[i])
		}
	}
	title := strings.TrimSpace(l.Title)
	for _, f := range tx.fill {
		take(fmt.Sprintf(f, title))
	}
	return out
}
