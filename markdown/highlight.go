package markdown

import (
	"html"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// Light and dark chroma themes used by HighlightCSS.
const (
	lightTheme = "github"
	darkTheme  = "github-dark"
)

// codeBlockRenderer replaces goldmark's fenced-code output with chroma's
// class-based highlighting; goldmark-highlighting is not a dependency.
type codeBlockRenderer struct{}

func (codeBlockRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderFencedCode)
}

// codeFormatter writes classes only, so the output survives the sanitizer
// (no style=) and the theme lives in one cacheable stylesheet.
var codeFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.TabWidth(4))

func renderFencedCode(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.FencedCodeBlock)
	var code strings.Builder
	for i := range n.Lines().Len() {
		seg := n.Lines().At(i)
		code.Write(seg.Value(source))
	}
	lang := cleanLanguage(string(n.Language(source)))

	lexer := lexers.Fallback
	if lang != "" {
		if l := lexers.Get(lang); l != nil {
			lexer = l
		}
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code.String())
	if err == nil {
		var out strings.Builder
		if err = codeFormatter.Format(&out, styles.Get(lightTheme), it); err == nil {
			s := out.String()
			if lang != "" {
				// Keep the author's language visible to CSS and to copy buttons.
				s = strings.Replace(s, "<code>", `<code class="language-`+lang+`">`, 1)
			}
			_, _ = w.WriteString(s)
			_ = w.WriteByte('\n')
			return ast.WalkSkipChildren, nil
		}
	}
	// Chroma failing must not lose the code.
	_, _ = w.WriteString("<pre><code>")
	_, _ = w.WriteString(html.EscapeString(code.String()))
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

// cleanLanguage keeps an info string usable as a lexer name and as a class
// token; anything else is treated as no language.
func cleanLanguage(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) == 0 || len(s) > 32 {
		return ""
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("+#_-", r)) {
			return ""
		}
	}
	return s
}

var (
	cssOnce sync.Once
	cssText string
)

// HighlightCSS returns the stylesheet for highlighted code: the light theme,
// then the dark theme inside @media (prefers-color-scheme: dark).
func HighlightCSS() string {
	cssOnce.Do(func() {
		// All classes are written so dark rules override every light rule
		// instead of letting unstyled tokens inherit light colours.
		f := chromahtml.New(chromahtml.WithClasses(true), chromahtml.WithAllClasses(true))
		var b strings.Builder
		_ = f.WriteCSS(&b, styles.Get(lightTheme))
		b.WriteString("@media (prefers-color-scheme: dark) {\n")
		_ = f.WriteCSS(&b, styles.Get(darkTheme))
		b.WriteString("}\n")
		cssText = b.String()
	})
	return cssText
}
