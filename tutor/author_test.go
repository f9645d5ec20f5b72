package tutor

import (
	"strings"
	"testing"
)

// Only exactly three distinct, non-empty, short questions are the
// model's; anything else is refused so the author gets the offline three.
func TestParseSuggestionsTakesExactlyThree(t *testing.T) {
	for name, tc := range map[string]struct {
		reply string
		ok    bool
	}{
		"three":            {`{"questions": ["A?", "B?", "C?"]}`, true},
		"fenced, in prose": {"Here:\n```json\n{\"questions\": [\"A?\", \"B?\", \"C?\"]}\n```", true},
		"two":              {`{"questions": ["A?", "B?"]}`, false},
		"four":             {`{"questions": ["A?", "B?", "C?", "D?"]}`, false},
		"repeated":         {`{"questions": ["A?", "a ?", "C?"]}`, false},
		"empty":            {`{"questions": ["A?", " ", "C?"]}`, false},
		"too long":         {`{"questions": ["A?", "` + strings.Repeat("b", 201) + `", "C?"]}`, false},
		"garbage":          {"I cannot help with that.", false},
		"other object":     {`{"question": "A?"}`, false},
	} {
		got, err := parseSuggestions(tc.reply)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, %v", name, got, err)
		}
	}
}

// The offline three come from the headings and marked terms in the
// lesson's language, and a lesson with neither still gets three.
func TestOfflineSuggestions(t *testing.T) {
	body := "Intro.\n\n## Trunk ports\n\nA **trunk** carries many VLANs.\n\n## Access ports\n\nOne VLAN.\n"
	got := offlineSuggestions(LessonText{Title: "VLANs", Body: body, Lang: LangEnglish})
	want := [3]string{"Can you explain “Trunk ports” with an example?", "What does “trunk” mean, and when does it matter?",
		"Can you explain “Access ports” with an example?"}
	if got != want {
		t.Errorf("English: %q", got)
	}
	es := offlineSuggestions(LessonText{Title: "VLAN", Body: "Solo un párrafo.", Lang: LangSpanish})
	for _, q := range es {
		if !strings.HasPrefix(q, "¿") || !strings.Contains(q, "«VLAN»") {
			t.Errorf("Spanish, no headings: %q", es)
		}
	}
}
