package markdown

import (
	"bufio"
	"bytes"
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Draft renders an answer as it grows at its end, rendering each of its
// finished top-level blocks (paragraph, list, code fence, table, heading,
// block quote) once and only the open blocks after them again at every
// step: an answer of n bytes costs about n bytes of rendering, not n²/2.
//
// A block is finished when the text after it proves it closed: a blank
// line, then a whole line that opens a new top-level block where the
// block rewriting (bound) starts afresh. The text from such a line
// parses alone exactly as it does in place, so the rendering of the
// blocks before it is final. The parse of the open part decides it: a
// fence or an HTML block holding the blank line, a list or a quote
// continuing past it, leave no top-level block starting on the line. A
// link reference definition changes links anywhere in the text, and past
// MaxAnswerBytes the cut moves with the text: then every step renders the
// whole text.
type Draft struct {
	final   int  // bytes of the text in the finished blocks
	started bool // a step went out: the next adds to its blocks
	whole   bool // render the whole text at every step
}

// DraftStep is one rendering of an answer in flight. The Final of every
// step since the last Reset, then Open, is byte for byte what
// RenderAnswerDraft makes of the text without its trailing white space
// (and without the rendering's last newline).
type DraftStep struct {
	Final string // the blocks finished since the last step, rendered
	Reset bool   // Final replaces the blocks of the steps before
	Open  string // the blocks after them, rendered
	Tail  string // the text's trailing white space, raw
}

// Final is how many bytes of the text the finished blocks hold.
func (d *Draft) Final() int { return d.final }

// Step renders text, the answer so far: the text of one step starts with
// the text of the step before.
func (d *Draft) Step(text string, links SectionLinks) DraftStep {
	body := strings.TrimRightFunc(text, unicode.IsSpace)
	tail := text[len(body):]
	reset := !d.started
	d.started = true
	d.whole = d.whole || len(body) > MaxAnswerBytes
	if !d.whole {
		if s, ok := d.blocks(body, strings.Contains(tail, "\n"), links); ok {
			s.Reset, s.Tail = reset, tail
			return s
		}
		d.whole, d.final = true, 0
	}
	return DraftStep{Reset: true, Open: strings.TrimSuffix(RenderAnswerDraft(body, links), "\n"), Tail: tail}
}

// blocks renders body after the finished blocks; ok is false when that
// part holds a link reference definition. ended says body's last line is
// whole (a newline follows it in the text).
func (d *Draft) blocks(body string, ended bool, links SectionLinks) (DraftStep, bool) {
	src, cuts := boundCuts(body[d.final:], ended)
	pc := parser.NewContext()
	pc.Set(sectionLinksKey, links)
	doc := answerMD.Parser().Parse(text.NewReader(src), parser.WithContext(pc))
	if len(pc.References()) > 0 {
		return DraftStep{}, false
	}
	open, at := firstOpen(doc, cuts)
	final := renderBlocks(doc.FirstChild(), open, src)
	d.final += at
	return DraftStep{Final: final, Open: strings.TrimSuffix(renderBlocks(open, nil, src), "\n")}, true
}

// cut is a line the open part could start at: after a blank line, whole,
// not blank, and where bound starts afresh. at and end are its bounds in
// the bounded text, from its offset in the text it was bounded from.
type cut struct{ at, end, from int }

// boundCuts is bound of src, and the lines where its rest could start.
func boundCuts(src string, ended bool) ([]byte, []cut) {
	var b strings.Builder
	b.Grow(len(src) + len(src)/8)
	var s bounder
	var cuts []cut
	blank := false
	for from := 0; from < len(src); {
		line := src[from:]
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		isBlank := strings.TrimSpace(line) == ""
		at := b.Len()
		open := blank && !isBlank && s.fresh() && (ended || strings.HasSuffix(line, "\n"))
		s.line(&b, line)
		if open {
			cuts = append(cuts, cut{at: at, end: b.Len(), from: from})
		}
		blank = isBlank
		from += len(line)
	}
	return []byte(b.String()), cuts
}

// firstOpen is the first top-level block of doc still open, and where it
// starts in the text: the latest one that starts on a cut line with a
// block before it (then all before it closed there), else the first.
// Blocks starting on the same line came from the same lines, and are
// taken together: a table takes its header from a paragraph's last line
// and leaves the lines before it a paragraph, both starting where the
// paragraph did ("0\n0\n-|"), and the next token ("-||") can undo the
// table and join them again.
func firstOpen(doc ast.Node, cuts []cut) (ast.Node, int) {
	n := doc.LastChild()
	for i := len(cuts) - 1; i >= 0 && n != nil; i-- {
		for n != nil && n.Pos() >= cuts[i].end {
			n = n.PreviousSibling()
		}
		for n != nil && n.PreviousSibling() != nil && n.PreviousSibling().Pos() >= cuts[i].at {
			n = n.PreviousSibling()
		}
		if n != nil && n.Pos() >= cuts[i].at && n.PreviousSibling() != nil {
			return n, cuts[i].from
		}
	}
	return doc.FirstChild(), 0
}

// renderBlocks renders the top-level blocks from from up to (without) to,
// sanitized as convert does: the sanitizer keeps each block's HTML as it
// keeps it in the whole.
func renderBlocks(from, to ast.Node, src []byte) string {
	if from == to {
		return ""
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	for n := from; n != to; n = n.NextSibling() {
		// Rendering fails only on the writer's errors, and a
		// bytes.Buffer returns none.
		_ = answerMD.Renderer().Render(w, src, n)
	}
	return policy.Sanitize(buf.String())
}
