package markdown

import (
	"testing"

	"github.com/yuin/goldmark/text"
)

// FuzzRender checks that any Markdown renders inert, chunks without a panic,
// and costs bounded work (the costly shapes of bounds_test.go are seeds).
func FuzzRender(f *testing.F) {
	seeds := append([]string{
		"",
		"# Título\n\n## Configuración de VLAN\n\ntexto",
		"```go\nfunc main() {}\n```",
		"| a | b |\n|---|---|\n| <script> | x |",
		"- [x] <img src=x onerror=alert(1)>",
		"[a](<javascript:alert(1)>)",
		"<scr<script>ipt>alert(1)</script>",
		"*<a href='x' onclick='y'>*",
		"``` onerror=x\n```",
		"\x00<script>\x00",
		"> ## q\n> <iframe>",
	}, xssPayloads...)
	for _, c := range costlyInputs() {
		seeds = append(seeds, c.src)
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		assertInert(t, src, Render(src))
		assertInert(t, src, RenderAnswer(src))
		_ = Chunks("t", src)
		// The work is bounded whatever the input (see TestCostlyMarkdownIsBounded).
		head, _ := splitAnswer(src)
		bounded := []byte(bound(head))
		doc := answerMD.Parser().Parse(text.NewReader(bounded))
		if d := astDepth(doc); d > maxASTDepth {
			t.Errorf("document nests %d deep", d)
		}
		if n := paragraphDelimiters(doc, bounded); n > MaxDelimiters {
			t.Errorf("a paragraph keeps %d live delimiters", n)
		}
	})
}
