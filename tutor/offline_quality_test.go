package tutor

import (
	"regexp"
	"strings"
	"testing"

	"aula/models"
)

// labelled is one question of the offline tutor's measure and what a good
// answer does: cite one of the sections (by heading), say the material
// does not cover it, or introduce itself.
type labelled struct {
	mode, lesson, q string
	cites           []string // headings; empty: not covered (or intro)
	intro           bool
}

var offlineLabelled = []labelled{
	{"tutor", "", "How do I start a goroutine?", []string{"Goroutines"}, false},
	{"tutor", "", "What is a buffered channel?", []string{"Buffered channels"}, false},
	{"tutor", "", "How does select wait on several channels?", []string{"select"}, false},
	{"tutor", "", "What does sync.WaitGroup do?", []string{"Waiting with sync.WaitGroup"}, false},
	{"tutor", "", "How do I protect shared data with a mutex?", []string{"Protecting shared data with sync.Mutex"}, false},
	{"tutor", "", "What is the zero value of a variable in Go?", []string{"Zero values"}, false},
	{"tutor", "", "How do I declare constants with iota?", []string{"Constants and iota"}, false},
	{"tutor", "", "How do I wrap an error with %w?", []string{"Wrapping errors with %w"}, false},
	{"tutor", "", "When do I use errors.Is and errors.As?", []string{"errors.Is and errors.As"}, false},
	{"tutor", "", "Can a Go function return multiple values?", []string{"Multiple return values"}, false},
	{"tutor", "", "What is a VLAN?", []string{"Broadcast domains and the problem VLANs solve", "How a switch keeps VLANs apart", "Summary of key terms", "What a VLAN is"}, false},
	{"tutor", "", "What is a trunk port?", []string{"Access ports and trunk ports", "Configuring 802.1Q trunk ports"}, false},
	{"tutor", "", "What is the native VLAN?", []string{"The native VLAN"}, false},
	{"tutor", "", "How do I check trunks with show interfaces trunk?", []string{"Verifying with show interfaces trunk"}, false},
	{"tutor", "", "What is router-on-a-stick?", []string{"Inter-VLAN routing with router-on-a-stick", "How traffic gets between VLANs"}, false},
	{"tutor", "", "How many usable hosts does a /26 subnet have?", []string{"Counting hosts and subnets", "CIDR prefix notation", "The block size shortcut"}, false},
	{"tutor", "", "What is CIDR prefix notation?", []string{"CIDR prefix notation"}, false},
	{"tutor", "", "What is a default route?", []string{"The default route"}, false},
	{"tutor", "", "What is longest prefix match?", []string{"Longest prefix match"}, false},
	{"tutor", "", "What is VLSM?", []string{"VLSM: subnets of different sizes"}, false},
	{"tutor", "", "What is route summarization?", []string{"Route summarization"}, false},
	{"tutor", "", "¿Qué es una gorutina?", []string{"Gorutinas"}, false},
	{"tutor", "", "¿Cómo cierro un canal y lo recorro con range?", []string{"Cerrar un canal y recorrerlo con range"}, false},
	{"tutor", "", "¿Qué es un canal con búfer?", []string{"Canales con búfer"}, false},
	{"tutor", "", "¿Cómo creo un módulo de Go?", []string{"Crear un módulo"}, false},
	{"tutor", "", "¿Qué es la VLAN nativa?", []string{"La VLAN nativa"}, false},
	{"tutor", "", "¿Cómo creo una VLAN en un switch Cisco?", []string{"Crear una VLAN"}, false},
	{"tutor", "", "¿Qué es un puerto troncal?", []string{"Puertos de acceso y puertos troncales", "Enlaces troncales 802.1Q"}, false},
	{"tutor", "", "¿Para qué sirve sync.WaitGroup?", []string{"Esperar con sync.WaitGroup", "Waiting with sync.WaitGroup"}, false},
	{"tutor", "", "¿Cómo guardo la configuración del switch?", []string{"Guardar la configuración"}, false},
	{"lesson", "vlan-basics", "What problem does a VLAN solve?", []string{"Broadcast domains and the problem VLANs solve"}, false},
	{"help", "", "How are questions counted?", []string{"How questions are counted"}, false},
	{"help", "", "¿Cómo borro un hilo?", []string{"Borrar un hilo"}, false},
	{"tutor", "", "What is DNS?", nil, false},
	{"tutor", "", "How does TCP congestion control work?", nil, false},
	{"tutor", "", "What is a monad?", nil, false},
	{"tutor", "", "How do I bake sourdough bread?", nil, false},
	{"tutor", "", "Explain Kubernetes pods.", nil, false},
	{"tutor", "", "What is the capital of France?", nil, false},
	{"lesson", "go-concurrency", "What is DNS?", nil, false},
	{"tutor", "", "¿Qué es el DNS?", nil, false},
	{"tutor", "", "¿Cómo funciona el protocolo HTTPS?", nil, false},
	{"tutor", "", "¿Quién ganó el mundial de fútbol?", nil, false},
	{"tutor", "", "¿Qué es una base de datos relacional?", nil, false},
	{"tutor", "", "Hello!", nil, true},
	{"tutor", "", "hola", nil, true},
	{"tutor", "", "Who are you?", nil, true},
	{"tutor", "", "¿Quién eres?", nil, true},
	{"lesson", "vlan-basics", "What can you do?", nil, true},
	{"tutor", "", "Buenos días", nil, true},
}

var citationRE = regexp.MustCompile(`\[(?:[^\]]* )?§ ([^\]]+)\]`)

// The offline tutor on the real lessons: each labelled question is answered
// as labelled; none not covered is answered with unrelated quotes; quotes
// keep their lists, cite each section once and uncovered answers and
// introductions are not counted against the quota.
func TestOfflineTutorLabelledQuestions(t *testing.T) {
	f := offlineOnContent(t)
	uid := f.user(models.PlanPro)
	var right, unrelated int
	for _, l := range offlineLabelled {
		cid := f.conv(uid, l.mode, l.lesson, "explain")
		before := f.used(uid)
		m := f.ask(uid, cid, l.q)
		cited := citationRE.FindAllStringSubmatch(m.Content, -1)
		ok, wrong := judge(l, m.Content, cited)
		if ok {
			right++
		} else {
			t.Errorf("%s %q: not answered as labelled (cites %v):\n%s", l.mode, l.q, l.cites, m.Content)
		}
		if wrong {
			unrelated++
		}
		counted := f.used(uid) - before
		if want := map[bool]int{true: 1, false: 0}[len(l.cites) > 0]; counted != want {
			t.Errorf("%q counted %d questions, want %d", l.q, counted, want)
		}
		checkQuoteShape(t, l.q, m.Content, cited)
	}
	t.Logf("offline tutor: %d/%d answered as labelled (%.0f%%), %d answered with unrelated text",
		right, len(offlineLabelled), 100*float64(right)/float64(len(offlineLabelled)), unrelated)
	if unrelated > 0 {
		t.Errorf("%d questions answered with unrelated text, want none", unrelated)
	}
}

// judge says whether an answer is the labelled one, and whether it quotes
// material unrelated to the question.
func judge(l labelled, answer string, cited [][]string) (ok, unrelated bool) {
	switch {
	case l.intro:
		return (strings.HasPrefix(answer, "Hi!") || strings.HasPrefix(answer, "¡Hola!")) && len(cited) == 0, len(cited) > 0
	case len(l.cites) == 0:
		return len(cited) == 0 && (strings.Contains(answer, "do not cover") || strings.Contains(answer, "no lo tratan")), len(cited) > 0
	}
	for _, c := range cited {
		for _, want := range l.cites {
			if strings.TrimSpace(c[1]) == want {
				return true, false
			}
		}
	}
	return false, len(cited) > 0
}

// checkQuoteShape: each section cited once, a line introducing a list is
// followed by its items, no configuration advice.
func checkQuoteShape(t *testing.T, q, answer string, cited [][]string) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cited {
		if seen[c[0]] {
			t.Errorf("%q cites %s twice:\n%s", q, c[0], answer)
		}
		seen[c[0]] = true
	}
	lines := strings.Split(answer, "\n")
	for i, ln := range lines {
		prose := strings.TrimSpace(citationRE.ReplaceAllString(ln, ""))
		if strings.HasPrefix(ln, "- ") && strings.HasSuffix(prose, ":") && (i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "  - ")) {
			t.Errorf("%q: %q introduces a list the answer does not give:\n%s", q, ln, answer)
		}
	}
	if strings.Contains(answer, "AULA_") || strings.Contains(answer, "an admin") || strings.Contains(answer, "administrador") {
		t.Errorf("%q: configuration advice shown to a student:\n%s", q, answer)
	}
}
