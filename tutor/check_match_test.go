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

func TestMatchChoice(t *testing.T) {
	it := &models.CheckItem{Kind: models.KindChoice, Choices: models.TextList{"VLAN", "802.1Q", "router"}, Expected: "802.1Q"}
	tests := []struct{ answer, want string }{
		{"802.1Q", models.VerdictCorrect},
		{"802.1q", models.VerdictCorrect},
		{"VLAN", models.VerdictNotYet},
		{"router", models.VerdictNotYet},
		{"8021q", models.VerdictCorrect}, // none of the choices: matched like a blank
	}
	for _, tt := range tests {
		if got := matchChoice(tt.answer, it); got != tt.want {
			t.Errorf("matchChoice(%q) = %s, want %s", tt.answer, got, tt.want)
		}
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
