package tutor

import (
	"strings"
	"testing"
	"unicode/utf8"

	"aula/markdown"
)

// fuzzChunks is a lesson with Markdown the page renders differently from
// its source: emphasis, code, a link, a list, a fenced block.
var fuzzChunks = []Source{
	{ChunkID: 1, Heading: "Trunks", Text: "A **trunk** carries many `VLANs` ([802.1Q](https://example.com))."},
	{ChunkID: 2, Heading: "Tags", Anchor: "tags", Text: "- one tag\n- two tags\n\n```go\nx := 802\n```"},
	{ChunkID: 3, Heading: "Native VLAN", Anchor: "native-vlan", Text: "Untagged frames _use_ the native VLAN; ñandú 10."},
}

// Any run of the page's text (cut anywhere, its spaces and line breaks
// changed) is found, in the chunk it starts in; any text at all is
// answered without a panic.
func FuzzLocatePassage(f *testing.F) {
	f.Add(0, 5, 40, "\n")
	f.Add(2, 0, 1000, " ")
	f.Add(1, 3, 9, "\t\n")
	f.Fuzz(func(t *testing.T, chunk, from, n int, sep string) {
		if _, ok := LocatePassage(sep, fuzzChunks); ok && len(passageWords(sep)) == 0 {
			t.Fatalf("%q has no words yet was found", sep)
		}
		if chunk < 0 || from < 0 || n < 0 {
			return
		}
		c := fuzzChunks[chunk%len(fuzzChunks)]
		words := passageWords(markdown.LessonText(c.Text))
		from %= len(words)
		end := min(len(words), from+1+n%len(words))
		if sep == "" || strings.TrimSpace(sep) != "" || !utf8.ValidString(sep) {
			sep = " "
		}
		text := strings.Join(words[from:end], sep)
		got, ok := LocatePassage(text, fuzzChunks)
		if utf8.RuneCountInString(strings.Join(words[from:end], " ")) < 2 {
			return
		}
		if !ok {
			t.Fatalf("%q of chunk %d not found", text, c.ChunkID)
		}
		if got.ChunkID > c.ChunkID {
			t.Fatalf("%q of chunk %d found in the later chunk %d", text, c.ChunkID, got.ChunkID)
		}
	})
}
