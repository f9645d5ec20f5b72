// Package markdown renders lesson and tutor Markdown to safe HTML and splits
// lessons into the chunks the tutor retrieves and cites.
//
// Render and Chunks parse with the same goldmark configuration and the same
// heading-id transformer, so a chunk's Anchor is always the id of its heading
// on the rendered lesson page.
package markdown

import (
	"bytes"
	"crypto/sha256"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

var (
	// lessonMD assigns heading ids; answerMD does not, because several tutor
	// answers share one chat page and their ids would collide with each other
	// and with the page's own hooks (#body-ID, #m-ID).
	lessonMD = newMarkdown(true)
	answerMD = newMarkdown(false)

	policy = newPolicy()
)

func newMarkdown(headingIDs bool) goldmark.Markdown {
	var parserOpts []parser.Option
	if headingIDs {
		parserOpts = append(parserOpts, parser.WithASTTransformers(
			util.Prioritized(headingIDTransformer{}, 1000),
			util.Prioritized(linkRelTransformer{}, 1001),
		))
	} else {
		parserOpts = append(parserOpts, parser.WithASTTransformers(
			util.Prioritized(linkRelTransformer{}, 1001),
			util.Prioritized(sectionLinkTransformer{}, 1002),
		))
	}
	return goldmark.New(
		goldmark.WithExtensions(
			// GFM spelled out so the table can render align=, which the UGC
			// policy keeps, instead of style=, which it strips.
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
			extension.Strikethrough,
			extension.Linkify,
			extension.TaskList,
		),
		goldmark.WithParserOptions(parserOpts...),
		goldmark.WithRendererOptions(
			renderer.WithNodeRenderers(util.Prioritized(codeBlockRenderer{}, 100)),
		),
	)
}

// chromaClass matches the class attribute chroma writes (short token codes
// such as "kd" or "s2", plus its structural classes) and language-* on code
// elements. It is a pattern rather than the exact list from
// chroma.StandardTypes because a ~100-way alternation made sanitizing a
// highlighted lesson twice as slow; content cannot set classes anyway (raw
// HTML is off), so this only guards our own renderer.
var chromaClass = regexp.MustCompile(`^` + classToken + `(?: ` + classToken + `)*$`)

const classToken = `(?:chroma|bg|line|hl|l(?:ntable|ntd|nlinks|nt?)|cl|esc|err|cpf|[a-z]{1,2}[0-9]?|language-[a-z0-9+#_-]{1,32})`

// headingID matches the ids produced by Slug plus the dedup suffix. Their
// length is Slug's to bound (100 bytes and the suffix): a counted
// repetition of these Unicode classes compiled, as an anchored pattern,
// into 2.7 MiB of matcher tables kept for the life of the process.
var headingID = regexp.MustCompile(`^[\p{L}\p{N}_-]+$`)

func newPolicy() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	// UGC allows any id on any element; replace it with ids on headings only.
	p.AllowAttrs("id").Matching(regexp.MustCompile(`[^\s\S]`)).Globally()
	p.AllowAttrs("id").Matching(headingID).OnElements("h1", "h2", "h3", "h4", "h5", "h6")
	p.AllowAttrs("class").Matching(chromaClass).OnElements("code", "span", "pre", "div")
	p.AllowAttrs("rel").Matching(regexp.MustCompile(`^nofollow noopener$`)).OnElements("a")
	// GFM task lists.
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^(|checked|disabled)$`)).OnElements("input")
	// An image's alt is its description for those who cannot see it: UGC
	// keeps only letters and a little punctuation and drops the whole alt
	// otherwise ("Figure 1: a trunk" would lose it). An attribute's value
	// is escaped on output, so any text is safe there.
	p.AllowAttrs("alt").Matching(regexp.MustCompile(`^[^\x00]*$`)).OnElements("img")
	p.RequireNoFollowOnLinks(true)
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowRelativeURLs(true)
	return p
}

// Render converts lesson Markdown to sanitized HTML with heading ids equal to
// the anchors Chunks returns and chroma-highlighted fenced code.
// Output is cached by content, since a lesson page renders the same Markdown
// on every view and highlighting dominates the cost.
func Render(src string) string {
	return renderCache.render(lessonMD, src, SectionLinks{})
}

// RenderPreview renders as Render does, without the cache: an author's
// preview changes at every pause in typing, and caching each state would
// push the lessons students read out of the cache.
func RenderPreview(src string) string { return convertLesson(lessonMD, src, SectionLinks{}) }

// The caches are bounded: lessons in active use, and the answers of the
// threads students are reading (a chat page shows every answer of a thread).
const renderCacheSize = 256

var (
	renderCache = &htmlCache{size: renderCacheSize, convert: convertLesson, m: make(map[[32]byte]string)}
	answerCache = &htmlCache{size: 4096, convert: convertAnswer, m: make(map[[32]byte]string)}
)

// htmlCache evicts an arbitrary entry when full: lessons are few and
// uniformly hot, so LRU bookkeeping would buy little.
type htmlCache struct {
	size    int
	convert func(md goldmark.Markdown, src string, links SectionLinks) string
	mu      sync.Mutex
	m       map[[32]byte]string
}

// render converts src with md and its section links, once per distinct
// content and links.
func (c *htmlCache) render(md goldmark.Markdown, src string, links SectionLinks) string {
	key := sha256.Sum256([]byte(links.key() + "\x00" + src))
	if out, ok := c.get(key); ok {
		return out
	}
	out := c.convert(md, src, links)
	c.put(key, out)
	return out
}

func (c *htmlCache) get(k [32]byte) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *htmlCache) put(k [32]byte, v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.size {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = v
}

// RenderAnswer converts tutor-answer Markdown to sanitized HTML like Render
// but without heading ids, for pages that show many answers at once.
// Output is cached by content: a thread's answers are drawn on every visit.
// Model output is untrusted: it is bounded (see bound) and cut at
// MaxAnswerBytes so that any answer renders in time linear in its size.
func RenderAnswer(src string) string {
	return RenderAnswerAt(src, SectionLinks{})
}

// SectionLinks says where an answer's section links ("#anchor", the
// tutor's citations) point: an anchor in Anchors to that page, any other
// to Base; with neither they stay links into the page showing the answer.
type SectionLinks struct {
	Base    string            // the page of the answer's own lesson
	Anchors map[string]string // anchor → the page of another lesson it is in
}

// target is where the section link to anchor points.
func (l SectionLinks) target(anchor string) string {
	if page, ok := l.Anchors[anchor]; ok {
		return page + Fragment(anchor)
	}
	return l.Base + Fragment(anchor)
}

// IntroAnchor is where a link to a lesson's intro points: the text before
// its first H2 has no heading, so its chunk's anchor is "" and its link
// goes to the lesson page's article (a bare "#" would lead nowhere).
const IntroAnchor = "lesson"

// Fragment is the link fragment of a lesson section's anchor: "#anchor",
// or "#lesson" for the intro.
func Fragment(anchor string) string {
	if anchor == "" {
		anchor = IntroAnchor
	}
	return "#" + anchor
}

// key tells apart, in the cache, renderings whose links differ.
func (l SectionLinks) key() string {
	keys := make([]string, 0, len(l.Anchors))
	for a, page := range l.Anchors {
		keys = append(keys, a+"\x00"+page)
	}
	slices.Sort(keys)
	return l.Base + "\x00" + strings.Join(keys, "\x00")
}

// RenderAnswerAt renders an answer like RenderAnswer with its section
// links pointing where links says, so an answer shown away from its
// lesson, or citing another one, still links into the right page.
func RenderAnswerAt(src string, links SectionLinks) string {
	return answerCache.render(answerMD, src, links)
}

// RenderAnswerDraft renders an answer still being written exactly as
// RenderAnswerAt would, without the cache: each draft is seen once, and
// keeping them would evict the finished answers threads are drawn from.
func RenderAnswerDraft(src string, links SectionLinks) string {
	return convertAnswer(answerMD, src, links)
}

// convertLesson renders a lesson bounded like an answer but never cut:
// lessons come from the content team and may be long.
func convertLesson(md goldmark.Markdown, src string, _ SectionLinks) string {
	return convert(md, bound(src))
}

// convertAnswer renders the first MaxAnswerBytes of an answer as bounded
// Markdown and the rest, if any, as preformatted text.
func convertAnswer(md goldmark.Markdown, src string, links SectionLinks) string {
	head, rest := splitAnswer(src)
	pc := parser.NewContext()
	pc.Set(sectionLinksKey, links)
	out := convert(md, bound(head), parser.WithContext(pc))
	if rest != "" {
		out += policy.Sanitize("<pre>" + escapeHTML(rest) + "</pre>")
	}
	return out
}

func convert(md goldmark.Markdown, src string, opts ...parser.ParseOption) string {
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf, opts...); err != nil {
		// goldmark only fails on writer errors, which bytes.Buffer never
		// returns; escape rather than lose the text if that ever changes.
		return policy.Sanitize("<p>" + escapeHTML(src) + "</p>")
	}
	return policy.Sanitize(buf.String())
}

// linkRelTransformer marks every Markdown link so the sanitizer keeps a
// fixed rel; bluemonday itself only adds noopener together with target=_blank.
type linkRelTransformer struct{}

func (linkRelTransformer) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindLink, ast.KindAutoLink:
			n.SetAttributeString("rel", []byte("nofollow noopener"))
		}
		return ast.WalkContinue, nil
	})
}

// sectionLinksKey carries RenderAnswerAt's links to sectionLinkTransformer.
var sectionLinksKey = parser.NewContextKey()

// sectionLinkTransformer points section links ("#anchor") where the
// parse's SectionLinks say.
type sectionLinkTransformer struct{}

func (sectionLinkTransformer) Transform(doc *ast.Document, _ text.Reader, pc parser.Context) {
	links, _ := pc.Get(sectionLinksKey).(SectionLinks)
	// Without links only the intro's bare "#" changes.
	all := links.Base != "" || len(links.Anchors) > 0
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.Link); ok && entering && bytes.HasPrefix(l.Destination, []byte("#")) && (all || len(l.Destination) == 1) {
			l.Destination = []byte(links.target(string(l.Destination[1:])))
		}
		return ast.WalkContinue, nil
	})
}

// headingIDTransformer gives every heading an id derived from its rendered
// text rather than goldmark's raw-line ids, which drop accented letters
// ("Configuración" → "configuracin") and keep Markdown punctuation noise.
type headingIDTransformer struct{}

func (headingIDTransformer) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	ids := newIDSet()
	src := reader.Source()
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if h, ok := n.(*ast.Heading); ok {
			h.SetAttributeString("id", []byte(ids.next(plainText(h, src))))
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// plainText is the visible text of an inline container: what the reader
// sees, which is what the slug and Chunk.Heading should be based on.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch v := c.(type) {
		case *ast.Text:
			b.Write(v.Segment.Value(src))
			if v.SoftLineBreak() || v.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(v.Value)
		case *ast.AutoLink:
			b.Write(v.Label(src))
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

func escapeHTML(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
