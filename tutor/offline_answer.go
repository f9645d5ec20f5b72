package tutor

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// offlineText holds the fixed phrases of the offline tutor in one language.
// None of them is configuration advice: students cannot act on it (admins
// see it on /admin).
type offlineText struct {
	notice, noticeHelp   string
	nothing, nothingHelp string
	mightCover, rephrase string
	hintIntro, hintAsk   string
	intro, introHelp     string
}

var offlineTexts = map[string]offlineText{
	"en": {
		notice:      "_Offline tutor: I answer only from the lesson material, without a language model._",
		noticeHelp:  "_Offline tutor: I answer only from the help articles, without a language model._",
		nothing:     "I found nothing about that in the lesson material: the lessons do not cover it.",
		nothingHelp: "The help articles do not cover that question.",
		mightCover:  "These lessons touch on some of its words and might help:",
		rephrase:    "Try rephrasing your question with words the lessons use.",
		hintIntro:   "Let's work it out together. A hint from the material:",
		hintAsk:     "What do you think this means for your question? Tell me your idea, or ask me for the full explanation.",
		intro: "Hi! I'm aula's offline tutor. I answer questions about the lessons by quoting the lesson material, " +
			"with a link to each section I quote so you can read on there. Ask me about a topic of a lesson, " +
			"and if the lessons do not cover it, I will tell you so.",
		introHelp: "Hi! I'm aula's offline tutor. I answer questions about using aula (conversations, plans, " +
			"teaching styles, API tokens) by quoting the help articles.",
	},
	"es": {
		notice:      "_Tutor sin conexión: respondo solo con el material de la lección, sin un modelo de lenguaje._",
		noticeHelp:  "_Tutor sin conexión: respondo solo con los artículos de ayuda, sin un modelo de lenguaje._",
		nothing:     "No encontré nada sobre eso en el material de la lección: las lecciones no lo tratan.",
		nothingHelp: "Los artículos de ayuda no cubren esa pregunta.",
		mightCover:  "Estas lecciones mencionan algunas de sus palabras y quizá te ayuden:",
		rephrase:    "Prueba a reformular tu pregunta con palabras que usen las lecciones.",
		hintIntro:   "Vamos a resolverlo juntos. Una pista del material:",
		hintAsk:     "¿Qué crees que significa esto para tu pregunta? Cuéntame tu idea o pídeme la explicación completa.",
		intro: "¡Hola! Soy el tutor sin conexión de aula. Respondo preguntas sobre las lecciones citando su material, " +
			"con un enlace a cada sección que cito para que sigas leyendo allí. Pregúntame por un tema de una lección; " +
			"si las lecciones no lo tratan, te lo diré.",
		introHelp: "¡Hola! Soy el tutor sin conexión de aula. Respondo preguntas sobre cómo usar aula (conversaciones, planes, " +
			"estilos de enseñanza, tokens de la API) citando los artículos de ayuda.",
	},
}

// Offline answer sizes.
const (
	offlineMinSentences = 3
	offlineMaxSentences = 6
	offlineHintCount    = 2
	offlineMaxPointers  = 3
)

// OfflineAnswer is the whole text the offline provider streams for req.
func OfflineAnswer(req Request) string {
	text, _ := offlineCompose(req)
	return text
}

// offlineCompose is the offline answer and whether it leaves the quota
// alone (a self-introduction, or the material not covering the question).
func offlineCompose(req Request) (string, bool) {
	tx, ok := offlineTexts[req.Lang]
	if !ok {
		tx = offlineTexts["en"]
	}
	help := req.Mode == "help"
	if isIntroduction(req.Question) {
		return pick(help, tx.introHelp, tx.intro) + "\n", true
	}
	var b strings.Builder
	b.WriteString(pick(help, tx.noticeHelp, tx.notice))
	b.WriteString("\n\n")
	qset := offlineQuery(req)
	covered, partial := coverage(req.Sources, qset)
	if !covered {
		// A follow-up ("and on Cisco?") is covered with its topic.
		covered, partial = coverage(req.Sources, withPrevious(req, qset))
	}
	picked := pickSentences(req, qset)
	if !covered || len(picked) == 0 {
		writeNotCovered(&b, tx, help, partial)
		return b.String(), true
	}
	picked = wholeLists(req, picked)
	if req.Style == "guide" {
		b.WriteString(tx.hintIntro)
		b.WriteString("\n\n")
		// The hint is the best match, not the first in reading order.
		best := slices.Clone(picked)
		slices.SortStableFunc(best, func(a, c sentence) int { return cmp.Compare(c.score, a.score) })
		best = best[:min(offlineHintCount, len(best))]
		slices.SortFunc(best, readingOrder)
		writeSections(&b, "> ", best, req.Sources)
		b.WriteString("\n")
		b.WriteString(tx.hintAsk)
		b.WriteString("\n")
		return b.String(), false
	}
	writeSections(&b, "- ", picked, req.Sources)
	return b.String(), false
}

// writeNotCovered says plainly the material does not cover the question
// and names the lessons that share some of its words.
func writeNotCovered(b *strings.Builder, tx offlineText, help bool, partial []string) {
	b.WriteString(pick(help, tx.nothingHelp, tx.nothing))
	b.WriteString("\n")
	if len(partial) == 0 || help {
		b.WriteString(pick(help, "", tx.rephrase+"\n"))
		return
	}
	b.WriteString("\n")
	b.WriteString(tx.mightCover)
	b.WriteString("\n\n")
	for _, t := range partial {
		b.WriteString("- **" + t + "**\n")
	}
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

func readingOrder(a, b sentence) int {
	return cmp.Or(cmp.Compare(a.source, b.source), cmp.Compare(a.pos, b.pos))
}

// coverage reports whether some section holds two thirds of the
// question's terms (all of one or two) or is named by them (see namedBy;
// a section sharing one common word with a question is not an answer to
// it), and the titles of the lessons that share some.
func coverage(sources []Source, qset map[string]bool) (bool, []string) {
	if len(qset) == 0 {
		return false, nil
	}
	need := max(1, (2*len(qset)+2)/3)
	covered := false
	var partial []string
	for _, src := range sources {
		hits := map[string]bool{}
		for _, t := range offlineTerms(src.Title + " " + src.Heading + " " + src.Text) {
			if qset[t] {
				hits[t] = true
			}
		}
		covered = covered || len(hits) >= need || namedBy(src.Heading, qset, len(hits))
		if len(hits) > 0 && src.Title != "" && !slices.Contains(partial, src.Title) && len(partial) < offlineMaxPointers {
			partial = append(partial, src.Title)
		}
	}
	return covered, partial
}

// namedBy reports whether a section's heading names the question's topic:
// it holds one of the question's terms. A heading that opens with a verb
// ("Cambiar de plan", "Changing your plan") names that verb's object: a
// question sharing only the verb ("¿Cómo cambio mi contraseña?") is about
// another topic unless the section holds another of its terms too.
func namedBy(heading string, qset map[string]bool, hits int) bool {
	verb := ""
	if words := offlineWords(heading); len(words) > 0 && actionWord(words[0]) {
		verb = stem(words[0])
	}
	for _, t := range offlineTerms(heading) {
		if qset[t] && (t != verb || hits >= min(2, len(qset))) {
			return true
		}
	}
	return false
}

// actionWord reports a Spanish infinitive or an English gerund, the way
// a heading names a task.
func actionWord(w string) bool {
	if len(w) > 5 && strings.HasSuffix(w, "ing") {
		return true
	}
	for _, suf := range []string{"ar", "er", "ir"} {
		if len(w) > 4 && strings.HasSuffix(w, suf) {
			return true
		}
	}
	return false
}

// wholeLists adds to picked the list that follows each picked sentence
// introducing one (ending with a colon), so a quote never promises items
// it does not give; the result is in reading order.
func wholeLists(req Request, picked []sentence) []sentence {
	have := map[[2]int]bool{}
	for _, s := range picked {
		have[[2]int{s.source, s.pos}] = true
	}
	var out []sentence
	for _, s := range picked {
		if !strings.HasSuffix(s.text, ":") {
			out = append(out, s)
			continue
		}
		rest := splitSentences(req.Sources[s.source].Text)[s.pos+1:]
		if len(rest) == 0 || !rest[0].item {
			// It introduces code or a table the answer cannot show: a
			// dangling promise is worse than leaving it out.
			continue
		}
		out = append(out, s)
		for j, l := range rest {
			if !l.item {
				break
			}
			pos := s.pos + 1 + j
			if !have[[2]int{s.source, pos}] {
				have[[2]int{s.source, pos}] = true
				out = append(out, sentence{text: l.text, source: s.source, pos: pos, item: true})
			}
		}
	}
	slices.SortFunc(out, readingOrder)
	return out
}

// writeSections writes the sentences grouped by section (in the order
// they first appear), each section cited once: its prose on one line
// (prefix first) with the citation, a list its prose introduces nested below.
func writeSections(b *strings.Builder, prefix string, picked []sentence, sources []Source) {
	type section struct {
		cite         string
		prose, items []string
	}
	var order []*section
	byCite := map[string]*section{}
	for _, s := range picked {
		c := citation(sources[s.source])
		sec := byCite[c]
		if sec == nil {
			sec = &section{cite: c}
			byCite[c] = sec
			order = append(order, sec)
		}
		introduced := len(sec.prose) > 0 && strings.HasSuffix(sec.prose[len(sec.prose)-1], ":")
		if s.item && prefix == "- " && introduced {
			sec.items = append(sec.items, s.text)
		} else {
			sec.prose = append(sec.prose, s.text)
		}
	}
	for _, sec := range order {
		b.WriteString(prefix + strings.TrimSpace(strings.Join(sec.prose, " ")+" "+sec.cite) + "\n")
		for _, it := range sec.items {
			b.WriteString("  - " + it + "\n")
		}
	}
}

// citation links a lesson section by its anchor; help chunks have no page
// anchor in the lesson, so they name the article and section instead.
func citation(src Source) string {
	heading := cmp.Or(src.Heading, src.Title)
	if heading == "" {
		return ""
	}
	if src.Kind != "help" && src.Anchor != "" {
		return "[§ " + heading + "](#" + src.Anchor + ")"
	}
	if src.Kind == "help" && src.Title != "" && src.Heading != "" && src.Title != src.Heading {
		return "[" + src.Title + " § " + src.Heading + "]"
	}
	return "[§ " + heading + "]"
}

// introWords are greetings: a question made only of them is a greeting.
var introWords = set("hi", "hello", "hey", "hola", "buenas", "buenos", "dias", "tardes", "noches", "good", "morning",
	"afternoon", "evening", "there", "tutor", "thanks", "thank", "you", "gracias", "saludos", "yo", "ola")

// introPhrases ask who the tutor is or what it can do.
var introPhrases = []string{"who are you", "what are you", "what can you do", "what do you do", "introduce yourself",
	"quien eres", "que eres", "que puedes hacer", "que sabes hacer", "presentate", "who is this"}

// isIntroduction reports whether the question is a greeting or asks who
// the tutor is, which a self-introduction answers.
func isIntroduction(q string) bool {
	words := strings.FieldsFunc(foldAccents(strings.ToLower(q)), func(r rune) bool {
		return !('a' <= r && r <= 'z') && !('0' <= r && r <= '9')
	})
	if len(words) == 0 {
		return false
	}
	norm := strings.Join(words, " ")
	for _, p := range introPhrases {
		if strings.Contains(" "+norm+" ", " "+p+" ") {
			return true
		}
	}
	for _, w := range words {
		if !introWords[w] {
			return false
		}
	}
	return true
}

// withPrevious is qset and the terms of the student's previous question.
func withPrevious(req Request, qset map[string]bool) map[string]bool {
	out := maps.Clone(qset)
	for _, t := range slices.Backward(req.History) {
		if t.Role == "user" {
			for _, term := range offlineTerms(t.Content) {
				out[term] = true
			}
			break
		}
	}
	return out
}
