package tutor

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Offline is the built-in provider: no network, no model. It answers with
// the sentences of req.Sources that best match the question, each cited,
// and says plainly that it is the offline tutor. Its output depends only on
// the request, so tests can assert on it.
type Offline struct {
	// TokenDelay paces the streamed tokens, so the offline tutor can stand
	// in for a real model in demos and load tests.
	TokenDelay time.Duration
}

// NewOffline returns the offline provider, pacing tokens delayMs apart.
func NewOffline(delayMs int) *Offline {
	return &Offline{TokenDelay: time.Duration(max(delayMs, 0)) * time.Millisecond}
}

// Name returns "offline".
func (*Offline) Name() string { return ProviderOffline }

// Model returns "offline-tutor".
func (*Offline) Model() string { return OfflineModel }

// Stream writes the offline answer word by word (each token keeps its
// trailing whitespace), stopping as soon as ctx is done.
func (o *Offline) Stream(ctx context.Context, req Request, onToken func(string) error) (Usage, error) {
	answer := OfflineAnswer(req)
	tokens := splitTokens(answer)
	usage := Usage{TokensIn: estimateUsage(req, "").TokensIn}
	var timer *time.Timer
	if o.TokenDelay > 0 {
		timer = time.NewTimer(o.TokenDelay)
		defer timer.Stop()
	}
	for i, tok := range tokens {
		if i > 0 && timer != nil {
			timer.Reset(o.TokenDelay)
			select {
			case <-timer.C:
			case <-ctx.Done():
			}
		}
		if err := ctx.Err(); err != nil {
			code := CodeCancelled
			if errors.Is(err, context.DeadlineExceeded) {
				code = CodeTimeout
			}
			return usage, &ProviderError{Provider: ProviderOffline, Code: code, Err: err}
		}
		if err := onToken(tok); err != nil {
			return usage, &ProviderError{Provider: ProviderOffline, Code: CodeAborted, Err: err}
		}
		usage.TokensOut++
	}
	return usage, nil
}

// splitTokens cuts text into words that keep their trailing whitespace, so
// the tokens concatenate back to text exactly.
func splitTokens(text string) []string {
	var out []string
	start, inSpace := 0, false
	for i, r := range text {
		sp := unicode.IsSpace(r)
		if !sp && inSpace && i > start {
			out = append(out, text[start:i])
			start = i
		}
		inSpace = sp
		if i == 0 {
			inSpace = false // leading whitespace stays with the first word
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// offlineText holds the fixed phrases of the offline tutor in one language.
type offlineText struct {
	notice, noticeHelp   string
	nothing, nothingHelp string
	closest              string
	hintIntro, hintAsk   string
}

var offlineTexts = map[string]offlineText{
	"en": {
		notice:      "_Offline tutor: I answer only from the lesson material, without a language model. To connect one, set AULA_LLM_PROVIDER (or ask an admin to set the tutor route)._",
		noticeHelp:  "_Offline tutor: I answer only from the help articles, without a language model. To connect one, set AULA_LLM_PROVIDER (or ask an admin to set the tutor route)._",
		nothing:     "I found nothing about that in the lesson material. Try rephrasing your question with words the lesson uses.",
		nothingHelp: "The help articles do not cover that question. Try rephrasing it with other words.",
		closest:     "I found no direct match; this is the closest material:",
		hintIntro:   "Let's work it out together. A hint from the material:",
		hintAsk:     "What do you think this means for your question? Tell me your idea, or ask me for the full explanation.",
	},
	"es": {
		notice:      "_Tutor sin conexión: respondo solo con el material de la lección, sin un modelo de lenguaje. Para conectar uno, define AULA_LLM_PROVIDER (o pide a un administrador que configure la ruta del tutor)._",
		noticeHelp:  "_Tutor sin conexión: respondo solo con los artículos de ayuda, sin un modelo de lenguaje. Para conectar uno, define AULA_LLM_PROVIDER (o pide a un administrador que configure la ruta del tutor)._",
		nothing:     "No encontré nada sobre eso en el material de la lección. Prueba a reformular tu pregunta con palabras que use la lección.",
		nothingHelp: "Los artículos de ayuda no cubren esa pregunta. Prueba a reformularla con otras palabras.",
		closest:     "No encontré una coincidencia directa; esto es lo más cercano del material:",
		hintIntro:   "Vamos a resolverlo juntos. Una pista del material:",
		hintAsk:     "¿Qué crees que significa esto para tu pregunta? Cuéntame tu idea o pídeme la explicación completa.",
	},
}

// Offline answer sizes.
const (
	offlineMinSentences = 3
	offlineMaxSentences = 6
	offlineHintCount    = 2
)

// OfflineAnswer is the whole text the offline provider streams for req.
func OfflineAnswer(req Request) string {
	tx, ok := offlineTexts[req.Lang]
	if !ok {
		tx = offlineTexts["en"]
	}
	help := req.Mode == "help"
	var b strings.Builder
	b.WriteString(pick(help, tx.noticeHelp, tx.notice))
	b.WriteString("\n\n")

	picked, direct := pickSentences(req)
	if len(picked) == 0 {
		b.WriteString(pick(help, tx.nothingHelp, tx.nothing))
		b.WriteString("\n")
		return b.String()
	}
	if req.Style == "guide" {
		b.WriteString(tx.hintIntro)
		b.WriteString("\n\n")
		// The hint is the best match, not the first in reading order.
		slices.SortStableFunc(picked, func(a, c sentence) int { return cmp.Compare(c.score, a.score) })
		for _, s := range picked[:min(offlineHintCount, len(picked))] {
			writeCited(&b, "> ", s, req.Sources)
		}
		b.WriteString("\n")
		b.WriteString(tx.hintAsk)
		b.WriteString("\n")
		return b.String()
	}
	if !direct {
		b.WriteString(tx.closest)
		b.WriteString("\n\n")
	}
	for _, s := range picked {
		writeCited(&b, "- ", s, req.Sources)
	}
	return b.String()
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

func writeCited(b *strings.Builder, prefix string, s sentence, sources []Source) {
	b.WriteString(prefix)
	b.WriteString(s.text)
	if c := citation(sources[s.source]); c != "" {
		b.WriteString(" ")
		b.WriteString(c)
	}
	b.WriteString("\n")
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

// sentence is one candidate sentence of a source.
type sentence struct {
	text   string
	source int // index in req.Sources
	pos    int // position within the source
	score  float64
}

// pickSentences chooses 3–6 sentences by term overlap with the question,
// weighted by how rare each term is across the candidates, and returns them
// in reading order. direct is false when no sentence shares a term with the
// question and the answer falls back to the top-ranked source.
func pickSentences(req Request) (picked []sentence, direct bool) {
	var all []sentence
	for i, src := range req.Sources {
		for j, t := range splitSentences(src.Text) {
			all = append(all, sentence{text: t, source: i, pos: j})
		}
	}
	if len(all) == 0 {
		return nil, false
	}
	scoreSentences(all, req, offlineQuery(req))
	ranked := slices.Clone(all)
	slices.SortStableFunc(ranked, func(a, b sentence) int { return cmp.Compare(b.score, a.score) })
	p := &picker{chosen: map[[2]int]bool{}}
	for _, s := range ranked {
		if s.score > 0 {
			p.add(s)
		}
	}
	direct = len(p.picked) > 0
	// Too few matches: add the sentences that follow the best one (or open
	// the top source), since they usually continue the explanation.
	anchor := sentence{source: 0, pos: -1}
	if direct {
		anchor = ranked[0]
	}
	p.fill(all, func(s sentence) bool { return s.source == anchor.source && s.pos > anchor.pos })
	p.fill(all, func(sentence) bool { return true })
	slices.SortFunc(p.picked, func(a, b sentence) int {
		return cmp.Or(cmp.Compare(a.source, b.source), cmp.Compare(a.pos, b.pos))
	})
	return p.picked, direct
}

// offlineQuery is the set of the question's terms; a follow-up like "why?"
// carries its topic in the previous question, so that one's terms join.
func offlineQuery(req Request) map[string]bool {
	query := offlineTerms(req.Question)
	if len(query) < 2 {
		for _, t := range slices.Backward(req.History) {
			if t.Role == "user" {
				query = append(query, offlineTerms(t.Content)...)
				break
			}
		}
	}
	qset := map[string]bool{}
	for _, t := range query {
		qset[t] = true
	}
	return qset
}

// scoreSentences gives each sentence the inverse-document-frequency weight
// of the query terms it holds.
func scoreSentences(all []sentence, req Request, qset map[string]bool) {
	termsOf := make([]map[string]bool, len(all))
	df := map[string]int{}
	for i, s := range all {
		termsOf[i] = map[string]bool{}
		for _, t := range offlineTerms(s.text) {
			if qset[t] && !termsOf[i][t] {
				termsOf[i][t] = true
				df[t]++
			}
		}
	}
	n := float64(len(all))
	for i := range all {
		for t := range termsOf[i] {
			all[i].score += math.Log(1 + n/float64(df[t]))
		}
		if all[i].score > 0 {
			// Break ties toward the sources retrieval ranked first and toward
			// sections whose heading names the topic.
			for _, t := range offlineTerms(req.Sources[all[i].source].Heading) {
				if qset[t] {
					all[i].score += 0.25
				}
			}
			all[i].score += 0.1 / float64(1+all[i].source)
		}
	}
}

// picker collects up to offlineMaxSentences distinct sentences.
type picker struct {
	picked []sentence
	chosen map[[2]int]bool
}

func (p *picker) add(s sentence) {
	if len(p.picked) < offlineMaxSentences && !p.chosen[[2]int{s.source, s.pos}] {
		p.chosen[[2]int{s.source, s.pos}] = true
		p.picked = append(p.picked, s)
	}
}

// fill adds the sentences that match, in order, until offlineMinSentences are picked.
func (p *picker) fill(all []sentence, match func(sentence) bool) {
	for _, s := range all {
		if len(p.picked) >= offlineMinSentences {
			return
		}
		if match(s) {
			p.add(s)
		}
	}
}

// splitSentences turns a chunk's Markdown into plain sentences: code blocks,
// headings and table rows are skipped, list markers are dropped.
func splitSentences(text string) []string {
	var out []string
	inCode := false
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inCode = !inCode
			continue
		}
		if inCode || line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "|") {
			continue
		}
		line = trimListMarker(line)
		if i := strings.Index(line, ". "); i > 0 && i <= 3 && isDigits(line[:i]) {
			line = line[i+2:] // numbered list item
		}
		for _, s := range cutSentences(line) {
			if len(strings.Fields(s)) >= 3 {
				out = append(out, balanceMarkup(s))
			}
		}
	}
	return out
}

// trimListMarker drops list and quote markers ("- ", "* ", "> "), but not
// the "**" that opens bold text.
func trimListMarker(line string) string {
	for {
		trimmed := line
		for _, m := range []string{"- ", "* ", "+ ", "> ", ">"} {
			trimmed = strings.TrimPrefix(trimmed, m)
		}
		trimmed = strings.TrimSpace(trimmed)
		if trimmed == line {
			return line
		}
		line = trimmed
	}
}

// balanceMarkup removes bold and code markers a sentence cut left unpaired,
// so a quoted sentence never turns the rest of the answer bold or code.
func balanceMarkup(s string) string {
	if strings.Count(s, "**")%2 == 1 {
		s = strings.ReplaceAll(s, "**", "")
	}
	if strings.Count(s, "`")%2 == 1 {
		s = strings.ReplaceAll(s, "`", "")
	}
	return s
}

func isDigits(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// cutSentences splits a line after ., ! or ? followed by a space.
func cutSentences(line string) []string {
	var out []string
	start := 0
	rs := []rune(line)
	for i := 0; i < len(rs)-1; i++ {
		if (rs[i] == '.' || rs[i] == '!' || rs[i] == '?') && rs[i+1] == ' ' {
			out = append(out, strings.TrimSpace(string(rs[start:i+1])))
			start = i + 1
		}
	}
	if tail := strings.TrimSpace(string(rs[start:])); tail != "" {
		out = append(out, tail)
	}
	return out
}

// offlineTerms lower-cases, folds accents, drops English and Spanish
// stopwords and stems what is left.
func offlineTerms(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(foldAccents(strings.ToLower(s)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) < 2 || offlineStopwords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stem drops a plural s and then a final e, on both sides of a match, so
// "goroutines", "goroutine", "funciones" and "función" meet their singular.
func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		w = w[:len(w)-1]
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

var accentFolder = strings.NewReplacer("á", "a", "é", "e", "í", "i", "ó", "o", "ú", "u", "ü", "u", "ñ", "n")

func foldAccents(s string) string { return accentFolder.Replace(s) }

var offlineStopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a an the and or but if then else of to in on at by for with from as is are was were be been being
		it its this that these those there here what which who whom whose when where why how do does did
		can could should would will shall may might must i me my you your we our they them their he she his her
		not no yes so than too very just about into over under again more most some any all each also only
		have has had get got use used using explain tell show please mean means
		el la los las un una unos unas y o pero si de del al en con por para como es son era fue ser estar esta
		este esto estos estas ese esa eso esos esas que qué cual cuál quien quién cuando cuándo donde dónde
		por porque cómo como se su sus lo le les me mi mis tu tus te nos yo nosotros ellos ellas hay muy mas más
		no sí ya tambien también sobre entre sin hasta desde puedo puede pueden hace hacer explica explicame dime
		significa usar uso`) {
		m[foldAccents(w)] = true
	}
	return m
}()
