package markdown

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// MaxChunkChars is the size above which a section is split further at block
// boundaries; a single block (a long code listing) is never cut.
const MaxChunkChars = 2500

// Chunk is one retrievable piece of a lesson.
//
// The intro (text before the first H2) has Heading = the lesson title and
// Anchor = "" (the top of the page). Every other chunk belongs to one H2:
// Heading is its visible text and Anchor its id in Render's output. Text is
// the section's Markdown without the H2 line, H3 sections and code included.
// Position is the chunk's 0-based index in the lesson; a section split for
// length yields consecutive chunks with the same Heading and Anchor.
type Chunk struct {
	Heading  string
	Anchor   string
	Text     string
	Position int
}

// topBlock is a child of the document and the offset of the line it starts on.
type topBlock struct {
	node  ast.Node
	start int
}

// parse uses the lesson parser so ids come from the same transformer as
// Render's; the document's direct children are the only split points, which
// keeps "##" inside fences, lists and quotes from starting a section.
func parse(source []byte) (*ast.Document, []topBlock) {
	doc := lessonMD.Parser().Parse(text.NewReader(source)).(*ast.Document)
	var blocks []topBlock
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		start := blockStart(c, source)
		if start < 0 {
			continue
		}
		// Offsets only ever grow; a node reporting an earlier one (tables
		// rebuilt from paragraphs) is merged into the block before it.
		if len(blocks) > 0 && start < blocks[len(blocks)-1].start {
			continue
		}
		blocks = append(blocks, topBlock{node: c, start: start})
	}
	return doc, blocks
}

// blockStart is the offset of the beginning of the line a block starts on,
// or -1 when goldmark did not record one.
func blockStart(n ast.Node, source []byte) int {
	pos := n.Pos()
	if pos < 0 {
		for d := n; d != nil && pos < 0; d = d.FirstChild() {
			if d.Type() == ast.TypeBlock && d.Lines().Len() > 0 {
				pos = d.Lines().At(0).Start
			}
		}
	}
	if pos < 0 || pos > len(source) {
		return -1
	}
	return bytes.LastIndexByte(source[:pos], '\n') + 1
}

func isH2(n ast.Node) bool {
	h, ok := n.(*ast.Heading)
	return ok && h.Level == 2
}

// Chunks splits a lesson into its intro and one chunk per H2 section (more
// when a section exceeds MaxChunkChars). Sections with no text are skipped,
// and so is an intro made only of headings. src is Markdown without front
// matter.
func Chunks(title, src string) []Chunk {
	// Bounded as Render bounds it, so anchors and texts agree with the page.
	source := []byte(bound(src))
	_, blocks := parse(source)

	var out []Chunk
	emit := func(heading, anchor string, content []topBlock, end int) {
		for _, piece := range splitBlocks(source, content, end) {
			out = append(out, Chunk{Heading: heading, Anchor: anchor, Text: piece, Position: len(out)})
		}
	}

	i := 0
	for i < len(blocks) && !isH2(blocks[i].node) {
		i++
	}
	intro := blocks[:i]
	introEnd := len(source)
	if i < len(blocks) {
		introEnd = blocks[i].start
	}
	for _, b := range intro {
		if b.node.Kind() != ast.KindHeading {
			emit(title, "", intro, introEnd)
			break
		}
	}

	for i < len(blocks) {
		h := blocks[i].node.(*ast.Heading)
		j := i + 1
		for j < len(blocks) && !isH2(blocks[j].node) {
			j++
		}
		end := len(source)
		if j < len(blocks) {
			end = blocks[j].start
		}
		anchor, _ := h.AttributeString("id")
		anchorStr, _ := anchor.([]byte)
		emit(plainText(h, source), string(anchorStr), blocks[i+1:j], end)
		i = j
	}
	return out
}

// splitBlocks returns the Markdown of content (blocks up to offset end) as
// one piece, or several cut at block starts when it is longer than
// MaxChunkChars.
func splitBlocks(source []byte, content []topBlock, end int) []string {
	if len(content) == 0 {
		return nil
	}
	var pieces []string
	add := func(from, to int) {
		if s := trimBlankLines(string(source[from:to])); s != "" {
			pieces = append(pieces, s)
		}
	}
	from := content[0].start
	for k := 1; k < len(content); k++ {
		next := end
		if k+1 < len(content) {
			next = content[k+1].start
		}
		if utf8.RuneCount(source[from:next]) > MaxChunkChars {
			add(from, content[k].start)
			from = content[k].start
		}
	}
	add(from, end)
	return pieces
}

// trimBlankLines drops leading blank lines and trailing whitespace but keeps
// the first line's indentation, which is meaningful (indented code).
func trimBlankLines(s string) string {
	for {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 || strings.TrimSpace(s[:nl]) != "" {
			break
		}
		s = s[nl+1:]
	}
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return strings.TrimRight(s, " \t\r\n")
}
