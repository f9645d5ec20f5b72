package markdown

import (
	"math/rand/v2"
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

// FuzzDraft checks that any answer, fed to a Draft in tokens cut at any
// points, shows at every step the whole text's rendering (the shapes of
// TestDraftStepsAreTheWholeRendering are seeds).
func FuzzDraft(f *testing.F) {
	for _, src := range draftAnswers {
		f.Add(src, uint64(1))
	}
	f.Fuzz(func(t *testing.T, src string, seed uint64) {
		// Each step is checked against a whole rendering, so an input
		// costs the square of its length (2 KB of one paragraph took
		// 0.6 s, and minimizing one ran into the minute's limit): keep
		// the inputs short enough for many of them a second.
		if len(src) > 1024 {
			src = src[:1024]
		}
		replayDraft(t, src, SectionLinks{Base: "/learn/a/b"}, rand.New(rand.NewPCG(seed, 29)))
	})
}
