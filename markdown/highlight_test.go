package markdown

import (
	"fmt"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// A language name resolves to the same lexer as chroma's own lookup (a
// name, an alias, a file extension, or the fallback for a name chroma
// does not know), and is looked up once: the second code block naming it
// uses the remembered lexer.
func TestLexerCacheResolvesAsChroma(t *testing.T) {
	var c lexerCache
	for _, tc := range []struct{ lang, want string }{
		{"go", "Go"}, {"golang", "Go"}, {"py", "Python"}, {"", "fallback"}, {"nosuchlang", "fallback"}, {"cisco", "fallback"},
	} {
		first := c.get(tc.lang)
		if name := first.Config().Name; name != tc.want {
			t.Errorf("%q resolves to %q, want %q", tc.lang, name, tc.want)
		}
		if remembered, ok := c.by[tc.lang]; !ok || remembered != first || c.get(tc.lang) != first {
			t.Errorf("%q is not remembered", tc.lang)
		}
	}
	if lexers.Get("nosuchlang") != nil {
		t.Fatal("chroma knows nosuchlang: pick another unknown name")
	}
}

// The cache empties itself when full instead of growing with every name
// an answer makes up.
func TestLexerCacheIsBounded(t *testing.T) {
	c := lexerCache{by: map[string]chroma.Lexer{}}
	for i := range lexerCacheMax {
		c.by[fmt.Sprintf("made-up-%d", i)] = lexers.Fallback
	}
	c.get("go")
	if _, ok := c.by["go"]; !ok || len(c.by) != 1 {
		t.Fatalf("a full cache holds %d names after one more (go remembered: %v), want only go", len(c.by), ok)
	}
}

// BenchmarkRenderUnknownLanguage renders an answer whose code block names
// a language chroma does not know, as a draft does at every pause.
func BenchmarkRenderUnknownLanguage(b *testing.B) {
	src := "Configure the port:\n\n```cisco\ninterface g0/1\n switchport mode trunk\n```\n"
	for b.Loop() {
		RenderAnswerDraft(src, SectionLinks{})
	}
}
