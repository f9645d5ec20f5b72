package markdown

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// costlyInputs are Markdown shapes whose unbounded rendering grows with the
// square of their size (65,536 `>` took 3.2 s, 64 KB of `*a_` 8 s).
func costlyInputs() []struct{ name, src string } {
	nestedList := func(depth int) string {
		var b strings.Builder
		for i := range depth {
			b.WriteString(strings.Repeat("  ", i) + "- a\n")
		}
		return b.String()
	}
	return []struct{ name, src string }{
		{"65536 >", strings.Repeat(">", 65536)},
		{"64 KB of *a_", strings.Repeat("*a_", 65536/3)},
		{"64 KB of [a](", strings.Repeat("[a](", 16384)},
		{"64 KB of [", strings.Repeat("[", 65536)},
		{"64 KB of `a``", strings.Repeat("`a``", 16384)},
		{"64 KB of <a", strings.Repeat("<a", 32768)},
		{"32768 > and spaces", strings.Repeat("> ", 32768)},
		{"32768 bullets", strings.Repeat("- ", 32768)},
		{"list nested 250 deep", nestedList(250)},
		{"paragraphs of 512 links", strings.Repeat(strings.Repeat("[a](", 128)+"\n\n", 128)},
		{"*a_ on 16384 lines", strings.Repeat("*a_\n", 16384)},
		{"1 MB of a**b", strings.Repeat("a**b", 1<<18)},
	}
}

// maxASTDepth bounds the document's nesting: indentation continues at most
// MaxIndent/2 list levels, a line's markers open at most MaxNesting more, a
// list level is two nodes (list, item), plus document, paragraph and inlines.
const maxASTDepth = 2*(MaxIndent/2+MaxNesting) + 4

// astDepth is the deepest nesting of the document goldmark builds.
func astDepth(n ast.Node) int {
	d := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		d = max(d, astDepth(c))
	}
	return d + 1
}

// paragraphDelimiters is the largest number of live (unescaped) inline
// delimiters in one paragraph of the parsed document: the emphasis, link
// and code-span passes do work that grows with its square.
func paragraphDelimiters(doc ast.Node, src []byte) int {
	most := 0
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Type() != ast.TypeBlock || n.Lines() == nil {
			return ast.WalkContinue, nil
		}
		count := 0
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			line := seg.Value(src)
			for j := 0; j < len(line); j++ {
				if line[j] == '\\' {
					j++
				} else if isDelimiter(line[j]) {
					count++
				}
			}
		}
		most = max(most, count)
		return ast.WalkContinue, nil
	})
	return most
}

// TestCostlyMarkdownIsBounded checks the work a costly answer can cause:
// the Markdown part is at most MaxAnswerBytes, the document goldmark builds
// nests at most maxASTDepth nodes, no
// paragraph has more than MaxDelimiters live delimiters, and no character
// of the answer is lost on the way.
func TestCostlyMarkdownIsBounded(t *testing.T) {
	for _, tt := range costlyInputs() {
		t.Run(tt.name, func(t *testing.T) {
			head, rest := splitAnswer(tt.src)
			if len(head) > MaxAnswerBytes || head+rest != tt.src {
				t.Fatalf("split into %d + %d bytes of %d", len(head), len(rest), len(tt.src))
			}
			src := []byte(bound(head))
			doc := answerMD.Parser().Parse(text.NewReader(src))
			if d := astDepth(doc); d > maxASTDepth {
				t.Errorf("document nests %d deep, bound %d", d, maxASTDepth)
			}
			if n := paragraphDelimiters(doc, src); n > MaxDelimiters {
				t.Errorf("a paragraph keeps %d live delimiters, bound %d", n, MaxDelimiters)
			}
			out := RenderAnswer(tt.src)
			if want, got := strings.Count(tt.src, "a"), strings.Count(out, "a")-strings.Count(out, "<a")-
				strings.Count(out, "</a")-strings.Count(out, "&amp;"); got < want {
				t.Errorf("the rendered answer shows %d of the %d letters a", got, want)
			}
		})
	}
}

func TestLongAnswerTailIsText(t *testing.T) {
	src := strings.Repeat("**bold** line\n", MaxAnswerBytes/14+100) + "<script>tail</script> end"
	out := RenderAnswer(src)
	if !strings.Contains(out, "<strong>bold</strong>") || !strings.Contains(out, "<pre>") ||
		!strings.Contains(out, "&lt;script&gt;tail&lt;/script&gt; end") {
		t.Errorf("a long answer's head should be Markdown and its tail escaped text; ends %q", out[max(0, len(out)-200):])
	}
	assertInert(t, src, out)
}

// TestBoundLeavesOrdinaryMarkdownAlone: every shipped lesson and help
// article, and the usual shapes of an answer, come out of bound unchanged.
func TestBoundLeavesOrdinaryMarkdownAlone(t *testing.T) {
	srcs := map[string]string{
		"lesson10K":   lesson10K(),
		"deep quote":  strings.Repeat("> ", MaxNesting) + "quoted",
		"fenced code": "- item\n\n  ```python\n" + strings.Repeat("    ", 20) + "return [x*y for x in a_b]\n  ```\n",
		"indented":    "1. one\n   - two\n     > three *em* _em_ `code` [link](https://example.com)\n",
	}
	err := filepath.WalkDir("../content", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		srcs[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range srcs {
		if got := bound(src); got != src {
			t.Errorf("%s changed by bound", name)
		}
	}
}

// BenchmarkRenderCostly renders each costly input uncached and reports its
// time against a budget of 100 ms per input (budget-% over 100 is over
// budget). Run with: go test -run '^$' -bench RenderCostly ./markdown
func BenchmarkRenderCostly(b *testing.B) {
	const budgetMS = 100.0
	for _, tt := range costlyInputs() {
		b.Run(strings.NewReplacer(" ", "_").Replace(tt.name), func(b *testing.B) {
			b.SetBytes(int64(len(tt.src)))
			for b.Loop() {
				convertAnswer(answerMD, tt.src, SectionLinks{})
			}
			ms := float64(b.Elapsed().Nanoseconds()) / 1e6 / float64(b.N)
			b.ReportMetric(ms, "ms/render")
			b.ReportMetric(100*ms/budgetMS, "budget-%")
		})
	}
}
