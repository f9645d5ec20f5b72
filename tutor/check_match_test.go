package tutor

import (
	"errors"
	"testing"

	"aula/models"
)

// The offline matcher forgives case, accents, markup, punctuation and a
// small typo, never a wrong value.
func TestMatchAnswer(t *testing.T) {
	tests := []struct {
		answer, expected, want string
	}{
		{"closure", "closure", models.VerdictCorrect},
		{"  CLOSURE. ", "closure", models.VerdictCorrect},
		{"`error`", "error", models.VerdictCorrect},
		{"a closure", "closure", models.VerdictCorrect},
		{"clousre", "closure", models.VerdictNotYet}, // two edits in seven letters
		{"closre", "closure", models.VerdictCorrect},
		{"configuraton", "configuration", models.VerdictCorrect},
		{"difusion", "difusión", models.VerdictCorrect},
		{"Difusión", "difusion", models.VerdictCorrect},
		{"802.1q", "802.1Q", models.VerdictCorrect},
		{"8021Q", "802.1Q", models.VerdictCorrect},
		{"802.1P", "802.1Q", models.VerdictNotYet},
		{"62", "64", models.VerdictNotYet},
		{"broadcast", "broadcast domains", models.VerdictPartly},
		{"broadcast domain", "broadcast domains", models.VerdictCorrect},
		{"router", "closure", models.VerdictNotYet},
		{"closure variadic defer panic recover goroutine", "closure", models.VerdictNotYet},
		// The term among many words is not the answer: content words beside
		// the term may be at most half as many as the term's own.
		{"Security routed ARP access port", "access port", models.VerdictNotYet},
		{"it is the access port", "access port", models.VerdictCorrect},
		{"an acess port", "access port", models.VerdictCorrect},
		{"trunk access port", "access port", models.VerdictCorrect},
		{"closure function", "closure", models.VerdictNotYet},
		{"es la difusión", "difusión", models.VerdictCorrect},
		{"the broadcast", "broadcast domains", models.VerdictPartly},
		{"broadcast storm flood", "broadcast domains", models.VerdictNotYet},
		{"VLAN trunk router switch broadcast domains", "broadcast domains", models.VerdictNotYet},
		{"", "closure", models.VerdictNotYet},
		{"!!!", "closure", models.VerdictNotYet},
	}
	for _, tt := range tests {
		t.Run(tt.answer+"~"+tt.expected, func(t *testing.T) {
			if got := matchAnswer(tt.answer, tt.expected); got != tt.want {
				t.Fatalf("matchAnswer(%q, %q) = %s, want %s", tt.answer, tt.expected, got, tt.want)
			}
		})
	}
}

// A which-of-these takes exactly one choice: an answer that names another
// choice too (or every choice) is not yet, however it is written.
func TestMatchChoice(t *testing.T) {
	vlan := &models.CheckItem{Kind: models.KindChoice, Choices: models.TextList{"VLAN", "802.1Q", "router"}, Expected: "802.1Q"}
	port := &models.CheckItem{Kind: models.KindChoice, Choices: models.TextList{"Security", "routed", "ARP", "access port"},
		Expected: "access port"}
	nested := &models.CheckItem{Kind: models.KindChoice, Choices: models.TextList{"port", "access port", "trunk"}, Expected: "access port"}
	tests := []struct {
		it           *models.CheckItem
		answer, want string
	}{
		{vlan, "802.1Q", models.VerdictCorrect},
		{vlan, "802.1q", models.VerdictCorrect},
		{vlan, "VLAN", models.VerdictNotYet},
		{vlan, "router", models.VerdictNotYet},
		{vlan, "8021q", models.VerdictCorrect}, // none of the choices: matched like a blank
		{vlan, "VLAN 802.1Q router", models.VerdictNotYet},
		{vlan, "802.1Q or VLAN", models.VerdictNotYet},
		{port, "Security routed ARP access port", models.VerdictNotYet}, // the example
		{port, "access port", models.VerdictCorrect},
		{port, "an access port", models.VerdictCorrect},
		{port, "acces port", models.VerdictCorrect},
		{port, "access port, not ARP", models.VerdictNotYet},
		{port, "routed", models.VerdictNotYet},
		{nested, "access port", models.VerdictCorrect}, // names "port" only as part of the right choice
		{nested, "access port trunk", models.VerdictNotYet},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			if got := matchChoice(tt.answer, tt.it); got != tt.want {
				t.Fatalf("matchChoice(%q) of %v = %s, want %s", tt.answer, tt.it.Choices, got, tt.want)
			}
		})
	}
}

// A verdict is read from JSON wherever the model put it; anything else
// is errNotJSON, never a guess.
func TestParseModelVerdict(t *testing.T) {
	tests := []struct {
		name, reply, want string
	}{
		{"bare", `{"verdict":"correct","feedback":"Yes.","hint":""}`, models.VerdictCorrect},
		{"fenced", "```json\n{\"verdict\": \"not_yet\", \"feedback\": \"No.\"}\n```", models.VerdictNotYet},
		{"prose around", "Here you go: {\"verdict\": \"Partly\", \"feedback\": \"Half {right}.\"} Cheers", models.VerdictPartly},
		{"synonym", `{"verdict":"Not yet"}`, models.VerdictNotYet},
		{"brace in prose first", `I think {so}. {"verdict":"incorrect","feedback":"x"}`, models.VerdictNotYet},
		{"unknown verdict", `{"verdict":"maybe"}`, ""},
		{"no verdict", `{"feedback":"ok"}`, ""},
		{"truncated", `{"verdict": "correct", "feedback": "cut`, ""},
		{"no JSON", `Correct! Well done.`, ""},
		{"empty", ``, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := parseModelVerdict(tt.reply)
			if tt.want == "" {
				if !errors.Is(err, errNotJSON) {
					t.Fatalf("got %+v %v, want errNotJSON", v, err)
				}
				return
			}
			if err != nil || v.Verdict != tt.want {
				t.Fatalf("got %+v %v, want %s", v, err, tt.want)
			}
		})
	}
}

func TestParseModelQuestion(t *testing.T) {
	tests := []struct {
		name, reply string
		ok          bool
	}{
		{"open", `{"kind":"open","question":"Why?","answer":"Because."}`, true},
		{"choice", `{"kind":"choice","question":"Which?","choices":["a","B "],"answer":"b"}`, true},
		{"choice without its answer", `{"kind":"choice","question":"Which?","choices":["a","b"],"answer":"c"}`, false},
		{"open without answer", `{"kind":"open","question":"Why?"}`, false},
		{"unknown kind", `{"kind":"essay","question":"Why?","answer":"x"}`, false},
		{"prose", `A good question would be: why?`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := parseModelQuestion(tt.reply)
			if (err == nil) != tt.ok {
				t.Fatalf("got %+v %v, want ok=%v", q, err, tt.ok)
			}
			if tt.ok && q.Kind == models.KindChoice && q.Answer != "B" {
				t.Fatalf("answer %q is not the choice's own text", q.Answer)
			}
		})
	}
}
