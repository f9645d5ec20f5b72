package tutor

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"aula/models"
)

func TestRetrieverSearch(t *testing.T) {
	f := newFixture(t)
	mod := f.seedLessons(testLessons...)
	f.seedHelp()
	r := NewRetriever(f.db.DB)
	tests := []struct {
		name  string
		query string
		scope Scope
		want  string // heading of the best chunk
	}{
		{"english", "how do I create a VLAN on a Cisco switch", Scope{Mode: models.ModeTutor}, "Configuring VLANs on a Cisco switch"},
		{"spanish", "cómo se configura una VLAN en Cisco", Scope{Mode: models.ModeTutor, Lang: "es"}, "Configuración de VLAN en Cisco"},
		{"NUL and invalid UTF-8", "cómo se configura una VLAN\x00 en Cisco\xff", Scope{Mode: models.ModeTutor, Lang: "es"}, "Configuración de VLAN en Cisco"},
		{"spanish accents and stems", "máscaras de subred", Scope{Mode: models.ModeTutor, Lang: "es"}, "Máscaras de subred"},
		{"lesson scope", "configuration", Scope{Mode: models.ModeLesson, LessonID: "go-basics", ModuleID: mod}, "Configuring the Go toolchain"},
		{"lesson falls back to module", "goroutine runtime", Scope{Mode: models.ModeLesson, LessonID: "subnetting", ModuleID: mod}, "Goroutines"},
		{"help", "how many questions a month on the free plan", Scope{Mode: models.ModeHelp}, "Monthly question limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Search(context.Background(), tt.query, tt.scope, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || got[0].Heading != tt.want {
				t.Fatalf("top chunk for %q: %v, want %q", tt.query, headings(got), tt.want)
			}
			if got[0].Score <= 0 || got[0].Hash == "" || got[0].Anchor == "" || got[0].ChunkID == 0 {
				t.Fatalf("incomplete source: %+v", got[0])
			}
			for i := 1; i < len(got); i++ {
				if got[i].Score > got[i-1].Score {
					t.Fatalf("not ranked: %v", got)
				}
			}
			if tt.scope.Mode == models.ModeHelp && got[0].Kind != "help" {
				t.Fatalf("help mode returned %s chunks", got[0].Kind)
			}
		})
	}
	if got, _ := r.Search(context.Background(), "the of and ¿?", Scope{Mode: models.ModeTutor}, 3); len(got) != 0 {
		t.Fatalf("stop words alone matched %v", headings(got))
	}
}

func headings(src []Source) []string {
	var out []string
	for _, s := range src {
		out = append(out, s.Heading)
	}
	return out
}

// The follow-up alone would match router configuration as well as VLAN
// configuration; condensation carries the VLAN topic from the previous turn.
func TestFollowUpRetrievesTopicChunks(t *testing.T) {
	tests := []struct {
		name, first, followUp, want string
	}{
		{"english", "What is a VLAN?", "and how do I configure it on Cisco?", "Configuring VLANs on a Cisco switch"},
		{"spanish", "¿Qué es una VLAN?", "¿y cómo se configura en Cisco?", "Configuración de VLAN en Cisco"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.seedLessons(testLessons...)
			u := f.user(models.PlanPro)
			c := f.conv(u, models.ModeTutor, "", "")
			first := ParseReceipt(f.ask(u, c, tt.first).Metadata)
			if len(first.Citations) == 0 || !strings.Contains(strings.ToLower(first.Citations[0].Heading), "vlan") {
				t.Fatalf("first question cited %+v", first.Citations)
			}
			r := ParseReceipt(f.ask(u, c, tt.followUp).Metadata)
			if len(r.Citations) == 0 || r.Citations[0].Heading != tt.want {
				t.Fatalf("follow-up (query %q) cited %+v, want %q first", r.RetrievalQuery, r.Citations, tt.want)
			}
			if !strings.Contains(strings.ToLower(r.RetrievalQuery), "vlan") || r.CondenseMethod != "keyword" {
				t.Fatalf("condensed query %q (%s)", r.RetrievalQuery, r.CondenseMethod)
			}
			if r.TurnsSent != 2 || r.TurnsOmitted != 0 || r.Mode != models.ModeTutor || r.Lang == "" {
				t.Fatalf("receipt: %+v", r)
			}
			if c := r.Citations[0]; c.Hash != hashOf(chunkText(tt.want)) || c.Kind != "lesson" || c.LessonID == "" {
				t.Fatalf("citation: %+v", c)
			}
			req := f.prov.last(t)
			if len(req.Sources) == 0 || req.Sources[0].Heading != tt.want || req.Sources[0].Text == "" {
				t.Fatalf("the provider was not given the chunk: %+v", req.Sources)
			}
		})
	}
}

func chunkText(heading string) string {
	for _, l := range testLessons {
		for _, c := range l.chunks {
			if c.heading == heading {
				return c.text
			}
		}
	}
	return ""
}

// TestFollowUpNeverWaitsForAModel: with a model on the condense route, a
// follow-up still goes straight to its answer: no model call stands
// between the question and its first token, and the keyword method still
// finds the topic's section.
func TestFollowUpNeverWaitsForAModel(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.CheckCredentials = func(string, Credentials) error { return nil } })
	f.seedLessons(testLessons...)
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	f.ask(u, c, "What is a VLAN?")
	f.exec(`UPDATE ai_routes SET provider = 'ollama', model = 'small' WHERE use_case = 'condense'`)
	var modes []string
	f.prov.set(func(ctx context.Context, req Request, on func(string) error) (Usage, error) {
		modes = append(modes, req.Mode)
		return emit("ok")(ctx, req, on)
	})
	r := ParseReceipt(f.ask(u, c, "and on Cisco?").Metadata)
	if len(modes) != 1 || modes[0] == "condense" {
		t.Fatalf("the follow-up made the calls %q; want only its answer", modes)
	}
	if r.CondenseMethod != "keyword" || len(r.Citations) == 0 || r.Citations[0].Heading != "Configuring VLANs on a Cisco switch" {
		t.Fatalf("receipt %+v", r)
	}
}

func TestKeywordCondense(t *testing.T) {
	prior := []priorTurn{
		{Role: models.RoleAssistant, Content: "A VLAN splits…", Headings: []string{"What is a VLAN"}},
		{Role: models.RoleUser, Content: "What is a VLAN?"},
	}
	tests := []struct {
		name, q  string
		prior    []priorTurn
		contains string
		same     bool
	}{
		{"no history", "how do I configure it?", nil, "", true},
		{"standalone question keeps its own terms", "How does OSPF choose the shortest path between routers?", prior, "", true},
		{"english follow-up", "and on Cisco?", prior, "vlan", false},
		{"spanish follow-up", "¿y cómo se configura en Cisco?", prior, "vlan", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := KeywordCondense(tt.q, tt.prior)
			if tt.same && got != tt.q {
				t.Fatalf("got %q, want the question unchanged", got)
			}
			if !tt.same && (!strings.HasPrefix(got, tt.q) || !strings.Contains(got, tt.contains)) {
				t.Fatalf("got %q, want %q plus %q", got, tt.q, tt.contains)
			}
		})
	}
}

// TestHelpAnswersInTheQuestionsLanguage: help mode retrieves only the
// articles in the question's language, the other language only when none
// of its articles match.
func TestHelpAnswersInTheQuestionsLanguage(t *testing.T) {
	f := newFixture(t)
	f.exec(`INSERT INTO help_articles (id, title, language, content_md, content_hash) VALUES
		('tokens', 'API tokens', 'en', 'x', 'x'), ('tokens-es', 'Tokens de API', 'es', 'x', 'x'),
		('export', 'Exportar tus datos', 'es', 'x', 'x')`)
	f.exec(`INSERT INTO help_chunks (article_id, position, heading, anchor, text, hash) VALUES
		('tokens', 0, 'Creating an API token', 'create', 'Open Settings, then API tokens, and press Create token. The token is shown once.', 'h1'),
		('tokens-es', 0, 'Crear un token de API', 'crear', 'Abre Ajustes, luego Tokens de API (API token), y pulsa Crear token. El token se muestra una vez.', 'h2'),
		('export', 0, 'Descargar la exportación', 'descargar', 'En Ajustes pulsa Exportar (export) para descargar un archivo JSON con tus conversaciones.', 'h3')`)
	tests := []struct {
		name, query, lang string
		want              []string // article ids retrieved
	}{
		{"English question, English article only", "How do I create an API token?", "en", []string{"tokens"}},
		{"Spanish question, Spanish article only", "¿Cómo creo un token de API?", "es", []string{"tokens-es"}},
		{"nothing in English: the Spanish article", "How do I export my conversations?", "en", []string{"export"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := f.svc.retr.Search(context.Background(), tt.query, Scope{Mode: models.ModeHelp, Lang: tt.lang}, 5)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range src {
				got = append(got, s.LessonID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("retrieved %v, want %v", got, tt.want)
			}
		})
	}
}

// A question whose key word is misspelt finds the section its right
// spelling names, and is not taken for one the lessons do not cover; a
// question of words no lesson holds, one of them near a lesson's word,
// still finds nothing.
func TestMisspeltWordsFindTheirSection(t *testing.T) {
	f := newFixture(t)
	f.seedLessons(testLessons...)
	r := NewRetriever(f.db.DB)
	tests := []struct {
		query, lang, want string // want: the first section's heading, "" none
	}{
		{"what is a brodcast domain?", "en", "What is a VLAN"},
		{"how many usable hosst in a /26 netwrok?", "en", "Counting hosts"},
		{"¿Qué es una gorrutinna?", "es", "Gorrutinas"},
		{"¿Qué hace un puerto tronkal?", "es", "Puertos troncales"},
		{"give me a recipe for paella", "en", ""},
	}
	for _, tt := range tests {
		got, err := r.ForTurn(context.Background(), tt.query, nil, Scope{Mode: models.ModeTutor, Lang: tt.lang}, 3)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tt.want == "" && len(got.Sources) > 0:
			t.Errorf("%q found %v, want none", tt.query, headings(got.Sources))
		case tt.want != "" && (len(got.Sources) == 0 || got.Sources[0].Heading != tt.want):
			t.Errorf("%q found %v, want %q first", tt.query, headings(got.Sources), tt.want)
		}
	}
}
