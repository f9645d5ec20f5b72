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
	answer, uncounted := offlineCompose(req)
	if req.Partial != "" {
		// Continuing: the rest of the same answer after the text written
		// so far (Partial is its end), or nothing when it would not
		// follow from what was written.
		rest := ""
		if at := strings.Index(answer, req.Partial); at >= 0 {
			rest = answer[at+len(req.Partial):]
		}
		answer = rest
	}
	tokens := splitTokens(answer)
	usage := Usage{TokensIn: estimateUsage(req, "").TokensIn, Uncounted: uncounted}
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

// sentence is one candidate sentence of a source.
type sentence struct {
	text   string
	source int // index in req.Sources
	pos    int // position within the source
	score  float64
	item   bool // a list item
}

// pickSentences chooses 3–6 sentences by term overlap with the question's
// terms qset, weighted by how rare each term is across the candidates, and
// returns them in reading order. When no sentence shares a term with the
// question it falls back to the top-ranked source.
func pickSentences(req Request, qset map[string]bool) []sentence {
	var all []sentence
	for i, src := range req.Sources {
		for j, t := range splitSentences(src.Text) {
			all = append(all, sentence{text: t.text, source: i, pos: j, item: t.item})
		}
	}
	if len(all) == 0 {
		return nil
	}
	scoreSentences(all, req, qset)
	ranked := slices.Clone(all)
	slices.SortStableFunc(ranked, func(a, b sentence) int { return cmp.Compare(b.score, a.score) })
	p := &picker{chosen: map[[2]int]bool{}}
	for _, s := range ranked {
		if s.score > 0 {
			p.add(s)
		}
	}
	direct := len(p.picked) > 0
	// Too few matches: add the sentences that follow the best one (or open
	// the top source), since they usually continue the explanation.
	anchor := sentence{source: 0, pos: -1}
	if direct {
		anchor = ranked[0]
	}
	p.fill(all, func(s sentence) bool { return s.source == anchor.source && s.pos > anchor.pos })
	p.fill(all, func(sentence) bool { return true })
	slices.SortFunc(p.picked, readingOrder)
	return p.picked
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
	defining := asksDefinition(req.Question)
	langOf := make([]string, len(req.Sources))
	for i, src := range req.Sources {
		langOf[i] = DetectLanguage(src.Title + " " + src.Heading)
	}
	for i := range all {
		for t := range termsOf[i] {
			all[i].score += math.Log(1 + n/float64(df[t]))
		}
		if all[i].score > 0 && defining && definesTerm(all[i].text, qset) {
			all[i].score += 2 // "what is X" is answered by "X is …"
		}
		if all[i].score > 0 && req.Lang != "" && langOf[all[i].source] != req.Lang {
			all[i].score *= 0.3 // the other language's material only when it is all there is
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

// line is one sentence of a chunk and whether it is a list item.
type line struct {
	text string
	item bool
}

// splitSentences turns a chunk's Markdown into plain sentences: code blocks,
// headings and table rows are skipped, list markers are dropped (the
// sentence remembers it was an item, so a quote can keep a list whole).
func splitSentences(text string) []line {
	var out []line
	inCode := false
	for l := range strings.SplitSeq(text, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			inCode = !inCode
			continue
		}
		if inCode || l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "|") {
			continue
		}
		bare := trimListMarker(l)
		if i := strings.Index(bare, ". "); i > 0 && i <= 3 && isDigits(bare[:i]) {
			bare = bare[i+2:] // numbered list item
		}
		item := bare != l && !strings.HasPrefix(l, ">")
		for _, s := range cutSentences(bare) {
			if len(strings.Fields(s)) >= 3 || item {
				out = append(out, line{text: balanceMarkup(s), item: item})
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
	for _, w := range offlineWords(s) {
		if len(w) < 2 || offlineStopwords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// offlineWords are the lower-cased, accent-folded runs of letters and digits of s.
func offlineWords(s string) []string {
	return strings.FieldsFunc(foldAccents(strings.ToLower(s)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// stem drops a plural s, then a final e, then a Spanish verb ending, on
// both sides of a match, so
// "goroutines", "goroutine", "funciones" and "función" meet their singular.
func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		w = w[:len(w)-1]
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return spanishVerb(w)
}

// spanishVerb folds the common forms of a Spanish verb together ("borro",
// "borrar", "guardarla" → "borr", "guard"): questions conjugate what the
// lessons name in the infinitive.
func spanishVerb(w string) string {
	if len(w) > 6 && (strings.HasSuffix(w, "rlo") || strings.HasSuffix(w, "rla")) {
		w = w[:len(w)-2]
	}
	for _, suf := range []string{"ar", "er", "ir"} {
		if len(w) > 5 && strings.HasSuffix(w, suf) {
			return w[:len(w)-2]
		}
	}
	if len(w) > 4 && strings.HasSuffix(w, "o") {
		return w[:len(w)-1]
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
		significa usar uso hacen sirve sirven funciona funcionan`) {
		m[foldAccents(w)] = true
	}
	return m
}()

// asksDefinition reports whether the question asks what something is.
func asksDefinition(q string) bool {
	q = foldAccents(strings.ToLower(strings.TrimLeft(strings.TrimSpace(q), "¿¡")))
	for _, p := range []string{"what is ", "what's ", "what are ", "que es ", "que son ", "define "} {
		if strings.HasPrefix(q, p) {
			return true
		}
	}
	return false
}

// definesTerm reports whether a sentence opens with one of the terms and
// then says what it is ("A VLAN is …", "Una gorrutina es …").
func definesTerm(text string, qset map[string]bool) bool {
	words := strings.Fields(foldAccents(strings.ToLower(text)))
	for i, w := range words[:min(len(words), 6)] {
		if w == "is" || w == "are" || w == "es" || w == "son" {
			for _, t := range offlineTerms(strings.Join(words[:i], " ")) {
				if qset[t] {
					return true
				}
			}
			return false
		}
	}
	return false
}
