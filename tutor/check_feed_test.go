package tutor

import (
	"strings"
	"testing"
)

// The feedback is handed on as the verdict streams, decoded and whole
// characters only, wherever the reply's pieces are cut; in the guide
// style the hint replaces the feedback of a "not yet", and nothing is
// handed on before the verdict is known.
func TestVerdictFeed(t *testing.T) {
	tests := []struct {
		name, reply string
		guide       bool
		want        string
	}{
		{"plain", `{"verdict": "correct", "feedback": "Yes, the tag.", "hint": "h"}`, false, "Yes, the tag."},
		{"prose and fence", "Sure:\n```json\n{\"verdict\":\"partly\",\"feedback\":\"Half {right}.\"}\n``` ok {\"feedback\":\"no\"}", false, "Half {right}."},
		{"escapes", `{"verdict":"correct","feedback":"a \"quote\"\nline \u00e9\ud83d\ude00 \\ end"}`, false, "a \"quote\"\nline é😀 \\ end"},
		{"accents", `{"verdict":"correct","feedback":"¡Sí, añadió el módulo!"}`, false, "¡Sí, añadió el módulo!"},
		{"nested ignored", `{"verdict":"correct","extra":{"feedback":"inner"},"feedback":"outer"}`, false, "outer"},
		{"guide not yet gives the hint", `{"verdict":"not_yet","feedback":"It is 802.1Q.","hint":"Think of the standard."}`, true, "Think of the standard."},
		{"guide correct gives the feedback", `{"verdict":"Correct","feedback":"Right.","hint":"h"}`, true, "Right."},
		{"guide feedback before the verdict held back", `{"feedback":"It is 802.1Q.","verdict":"not_yet","hint":"Look again."}`, true, "Look again."},
		{"no JSON", `Correct! Well done.`, false, ""},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 2, 3, 7, 1000} {
			var got strings.Builder
			pieces := 0
			v := newVerdictFeed(func(s string) {
				if !strings.ContainsRune(s, '\uFFFD') && s != "" {
					pieces++
				}
				got.WriteString(s)
			}, tt.guide)
			for i := 0; i < len(tt.reply); i += size {
				v.write(tt.reply[i:min(i+size, len(tt.reply))])
			}
			if got.String() != tt.want {
				t.Errorf("%s in pieces of %d: got %q, want %q", tt.name, size, got.String(), tt.want)
			}
			if size == 1 && len(tt.want) > 1 && pieces < 2 {
				t.Errorf("%s: the feedback came in %d piece(s), not as it streamed", tt.name, pieces)
			}
		}
	}
}
