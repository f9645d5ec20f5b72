package tutor

import (
	"regexp"
	"strings"
	"unicode"
)

// Languages DetectLanguage can return.
const (
	LangEnglish = "en"
	LangSpanish = "es"
)

// minLangScore is the evidence below which DetectLanguageHint defers to the
// caller's fallback: about one clear function word ("the", "una") or one
// accented word. Weaker signals ("vlan?", "ok") say nothing about the
// student's language, while their UI locale does.
const minLangScore = 1.0

// DetectLanguage returns "es" or "en" for a student's question, leaning
// English when the text carries no signal at all.
func DetectLanguage(text string) string {
	if langScore(text) > 0 {
		return LangSpanish
	}
	return LangEnglish
}

// DetectLanguageHint returns "es" or "en" for a question, or fallback
// (normalised to "es" or "en") when the question is too short or too
// technical to tell; pass the student's UI locale as fallback.
func DetectLanguageHint(text, fallback string) string {
	s := langScore(text)
	switch {
	case s >= minLangScore:
		return LangSpanish
	case s <= -minLangScore:
		return LangEnglish
	}
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(fallback)), LangSpanish) {
		return LangSpanish
	}
	return LangEnglish
}

var (
	// Code, URLs and quoted text are usually pasted errors or commands,
	// English whatever the student writes in.
	codeFence  = regexp.MustCompile("(?s)```.*?(```|$)")
	codeSpan   = regexp.MustCompile("`[^`]*`")
	urlPattern = regexp.MustCompile(`(?i)\b(?:https?://|www\.)\S+`)
	quoted     = regexp.MustCompile(`"[^"]*"|“[^”]*”|«[^»]*»`)
)

// langScore is positive for Spanish evidence and negative for English.
func langScore(text string) float64 {
	// The checks skip the regexps for the common plain question.
	if strings.Contains(text, "`") {
		text = codeFence.ReplaceAllString(text, " ")
		text = codeSpan.ReplaceAllString(text, " ")
	}
	if strings.Contains(text, "://") || strings.Contains(strings.ToLower(text), "www.") {
		text = urlPattern.ReplaceAllString(text, " ")
	}
	if !strings.ContainsAny(text, "\"“«") {
		return scoreWords(text)
	}
	if s := scoreWords(quoted.ReplaceAllString(text, " ")); s != 0 {
		return s
	}
	// A question that is nothing but a quotation is still the student's words.
	return scoreWords(text)
}

func scoreWords(text string) float64 {
	var score float64
	// Inverted marks are the strongest short-text signal: only Spanish has them.
	score += 3 * float64(strings.Count(text, "¿"))
	score += 2 * float64(strings.Count(text, "¡"))

	for _, w := range words(text) {
		if v, ok := langWords[w]; ok {
			score += v
			continue
		}
		score += shapeScore(w)
	}
	return score
}

// words splits text into lower-case words, keeping apostrophes inside them
// so English contractions stay recognisable.
func words(text string) []string {
	text = strings.ReplaceAll(strings.ToLower(text), "’", "'")
	return strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	})
}

// shapeScore scores a word missing from langWords by its spelling, so
// unlisted vocabulary ("configuración", "segmentando", "forwarding") still
// counts.
func shapeScore(w string) float64 {
	w = strings.Trim(w, "'")
	if len(w) == 0 || neutralWords[w] {
		return 0
	}
	if strings.Contains(w, "'") {
		// Spanish has no apostrophes: what's, don't, I'm, it'll.
		return -1.5
	}
	var s float64
	if strings.ContainsRune(w, 'ñ') {
		s += 2
	}
	if strings.ContainsAny(w, "áéíóú") {
		s += 1.5
	}
	n := len([]rune(w))
	switch {
	case strings.HasSuffix(w, "ción") || strings.HasSuffix(w, "cion") || strings.HasSuffix(w, "ciones"):
		s += 1
	case n > 6 && strings.HasSuffix(w, "mente"):
		s += 1
	case n > 5 && (strings.HasSuffix(w, "ando") || strings.HasSuffix(w, "iendo")):
		s += 0.8
	case n > 5 && (strings.HasSuffix(w, "idad") || strings.HasSuffix(w, "idades")):
		s += 0.8
	case strings.HasSuffix(w, "tion") || strings.HasSuffix(w, "tions"):
		s -= 1
	case n > 5 && strings.HasSuffix(w, "ing"):
		s -= 0.8
	case n > 5 && (strings.HasSuffix(w, "ness") || strings.HasSuffix(w, "ful")):
		s -= 0.8
	case n > 4 && strings.HasSuffix(w, "ly"):
		s -= 0.5
	case n > 5 && (strings.HasSuffix(w, "amos") || strings.HasSuffix(w, "emos") || strings.HasSuffix(w, "imos")):
		s += 0.8
	case n > 4 && strings.HasSuffix(w, "ed"):
		s -= 0.3
	}
	if n >= 4 && s == 0 {
		s += spellingScore(w)
	}
	return s
}

// spellingScore is a faint prior from letters alone, enough to tip an
// otherwise silent question: Spanish nouns and adjectives end in -o/-a/-os/-as,
// while k, w, th, sh and final y are rare in Spanish spelling.
func spellingScore(w string) float64 {
	switch {
	case strings.ContainsAny(w, "kw"), strings.Contains(w, "th"), strings.Contains(w, "sh"),
		strings.HasSuffix(w, "y"):
		return -0.4
	case strings.HasSuffix(w, "o"), strings.HasSuffix(w, "a"), strings.HasSuffix(w, "os"), strings.HasSuffix(w, "as"):
		return 0.4
	}
	return 0
}

// neutralWords are technical terms students of either language type as-is;
// listing them keeps the -ing/-tion rules from reading them as English.
var neutralWords = set(
	"routing", "switching", "subnetting", "networking", "tagging", "trunking",
	"string", "strings", "ping", "spanning", "forwarding", "logging", "caching",
	"hashing", "padding", "mapping", "binding", "marshaling", "unmarshaling",
	"encoding", "streaming", "testing", "debugging", "pooling", "polling",
	"scheduling", "bonding", "peering", "nesting", "casting", "slicing",
	"encapsulation", "configuration", "authentication", "function", "functions",
	"goroutine", "goroutines", "vlan", "vlans", "cisco", "juniper", "subnet",
	"subnets", "trunk", "switch", "router", "go", "golang",
)

// langWords weighs frequent words: positive means Spanish, negative English.
// Words both languages use in questions ("no", "me", "a", "plan", "error",
// "go") are left out on purpose.
var langWords = func() map[string]float64 {
	m := map[string]float64{}
	add := func(w float64, list string) {
		for _, s := range strings.Fields(list) {
			m[s] = w
		}
	}
	// Spanish.
	add(3, "hola gracias porfa porfavor buenas")
	add(2.5, "qué cómo cuál cuáles dónde cuándo cuánto cuántos cuántas quién quiénes")
	add(2, `que como cual cuales donde cuando cuanto cuantos cuantas quien es una unos unas
		los las del por para porque pero muy más también tambien esto esta está están estas
		estos eso esa ese hay puedo puedes puede pueden tengo tienes tiene tienen necesito
		quiero entiendo explica explicas explícame explicame dime dame hazme ayúdame ayudame
		ayuda sirve sirven significa diferencia entre sobre ejemplo lección leccion lecciones
		pregunta preguntas respuesta funciona funcionan hacer hago hace hacen debo debería
		deberia usar uso usa usan sé sabes vale bueno favor siguiente ahora luego después
		despues antes bien mal algo nada todo todos otra otro otras otros mismo misma vez
		cada mucho muchos muchas poco cosa cosas forma manera tiempo paso pasos ver veo
		eres soy estoy sale pasa falta quedan creo mejor peor aquí aqui así asi entonces
		ya aún aun sea fue ser son estar tu tus mis sus nuestro nuestra usted ustedes
		red redes capa capas ruta rutas subred máscara mascara dirección direccion
		direcciones puerto puertos enlace enlaces contraseña idioma historial código codigo
		programa canal canales hilo hilos puntero punteros valor tabla tablas comando
		comandos interfaz archivo curso clase prueba pruebas examen tarea errores
		aprender aprendo empiezo empezar configurar configuro cambiar cambio guardar borrar
		revisar revisa traducir calcular descargar cancelar terminar terminé ejecutar
		ejecuto escribir escribo español inglés`)
	add(1.5, "el la un y de en con sin se lo le les nos te al mi su yo dos tres cinco")
	add(1, "si o solo sólo muestra")
	// English.
	add(-3, "hello thanks thank hey hi yes")
	add(-2.5, "what how why the")
	add(-2, `is are was were does did doesn't don't didn't isn't aren't can't won't
		you your which where when who whom whose this that these those there their they
		and with from about should would could will have has had been being
		please explain explained mean means meaning difference between example show tell
		help understand learn lesson lessons question questions answer wrong right correct
		step next again simple simpler shorter many much happens happen work works using
		used same each every here more less still sure follow start change delete download
		cancel remember check write run close safely order give get got make need want
		know think try keep getting bad practice purpose than then also just only even
		into over after before because any some all other our them it's what's i'm
		configure setup without between instead`)
	add(-1.5, "it i my of to for on do can not an if or")
	add(-1, "in at by be so up out we us am set use")
	return m
}()

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
