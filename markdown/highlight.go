package markdown

import (
	"html"
	"math"
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

	it, err := knownLexers.get(lang).Tokenise(nil, code.String())
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

// lexerCacheMax bounds the language names remembered: an answer can name
// any, and the cache is emptied whole when full.
const lexerCacheMax = 4096

// lexerCache remembers the lexer each language name resolves to. Chroma
// looks up a name it does not know ("text", "cisco", a typo) against
// every lexer's file name patterns, twice: 6.8 ms a code block against
// 0.25 for "go", and an answer's open block is rendered again at every
// pause of its draft.
type lexerCache struct {
	mu sync.Mutex
	by map[string]chroma.Lexer
}

// knownLexers is the process's cache: the lexers are chroma's own
// package-level registry, so there is nothing to inject.
var knownLexers lexerCache

// get returns lang's lexer (chroma's fallback for "" or a name it does
// not know), coalesced.
func (c *lexerCache) get(lang string) chroma.Lexer {
	c.mu.Lock()
	l, ok := c.by[lang]
	c.mu.Unlock()
	if ok {
		return l
	}
	l = lexers.Fallback
	if lang != "" {
		if found := lexers.Get(lang); found != nil {
			l = found
		}
	}
	l = chroma.Coalesce(l)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil || len(c.by) >= lexerCacheMax {
		c.by = make(map[string]chroma.Lexer)
	}
	c.by[lang] = l
	return l
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
// then the dark theme inside @media (prefers-color-scheme: dark). Both are
// first made readable (every token at least 4.5:1 on the code background).
func HighlightCSS() string {
	cssOnce.Do(func() {
		// All classes are written so dark rules override every light rule
		// instead of letting unstyled tokens inherit light colours.
		f := chromahtml.New(chromahtml.WithClasses(true), chromahtml.WithAllClasses(true))
		var b strings.Builder
		_ = f.WriteCSS(&b, readable(styles.Get(lightTheme)))
		b.WriteString("@media (prefers-color-scheme: dark) {\n")
		// A token the dark theme leaves unstyled (names, punctuation) would
		// keep its light colour, dark on dark: reset every token to the
		// block's colour first; the dark theme's own rules come after it,
		// with the same specificity, and win.
		b.WriteString(".chroma [class] { color: inherit; background-color: transparent; font-weight: inherit; font-style: inherit; }\n")
		_ = f.WriteCSS(&b, readable(styles.Get(darkTheme)))
		b.WriteString("}\n")
		cssText = b.String()
	})
	return cssText
}

// minContrast is WCAG AA's contrast for body text.
const minContrast = 4.5

// readable returns style with every token colour that reads below
// minContrast on the style's background moved away from it (lighter on a
// dark background, darker on a light one) until it reaches it.
func readable(style *chroma.Style) *chroma.Style {
	bg := style.Get(chroma.Background)
	back := bg.Background
	if !back.IsSet() {
		back = chroma.NewColour(255, 255, 255)
	}
	b := style.Builder()
	for _, tt := range style.Types() {
		e := style.Get(tt)
		if !e.Colour.IsSet() || contrast(e.Colour, back) >= minContrast {
			continue
		}
		step := -0.08
		if luminance(back) < 0.5 {
			step = 0.12
		}
		for i := 0; i < 40 && contrast(e.Colour, back) < minContrast; i++ {
			e.Colour = e.Colour.Brighten(step)
		}
		b.AddEntry(tt, e)
	}
	out, err := b.Build()
	if err != nil {
		return style
	}
	return out
}

// luminance is a colour's WCAG relative luminance.
func luminance(c chroma.Colour) float64 {
	ch := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*ch(c.Red()) + 0.7152*ch(c.Green()) + 0.0722*ch(c.Blue())
}

// contrast is the WCAG contrast ratio of two colours (1 to 21).
func contrast(a, b chroma.Colour) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}
