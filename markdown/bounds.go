package markdown

import (
	"strings"
)

// Model output is untrusted Markdown, and goldmark's cost grows with the
// square of some shapes: 64 KB of `>` nests 65,536 block quotes, 64 KB of
// `*a_` gives the emphasis pass 43,000 delimiters to pair. bound rewrites
// such input so that the work per line and per paragraph is capped, which
// makes rendering linear in the answer's size:
//   - at most MaxNesting container markers (`>`, list bullets) open a line
//     and its indentation counts at most MaxIndent columns;
//   - a paragraph (a run of non-blank lines) keeps at most MaxDelimiters
//     live delimiters (* _ ~ [ ] `); later ones are backslash-escaped, so
//     they show as the characters they are;
//   - only the first MaxAnswerBytes are Markdown; the rest is shown as text.
//
// Ordinary answers are far below every limit and come out unchanged.
const (
	// MaxNesting is the deepest container nesting a line can open.
	MaxNesting = 16
	// MaxIndent is the widest indentation, in columns, outside code fences:
	// it continues at most MaxIndent/2 list levels from the lines before.
	MaxIndent = 2 * MaxNesting
	// MaxDelimiters is how many inline delimiters one paragraph keeps.
	MaxDelimiters = 512
	// MaxAnswerBytes is how much of an answer is rendered as Markdown.
	MaxAnswerBytes = 64 << 10
)

// splitAnswer cuts src at MaxAnswerBytes (at a line end when there is one
// in the last quarter) into the part rendered as Markdown and the rest.
func splitAnswer(src string) (md, rest string) {
	if len(src) <= MaxAnswerBytes {
		return src, ""
	}
	cut := MaxAnswerBytes
	if i := strings.LastIndexByte(src[:cut], '\n'); i > cut*3/4 {
		cut = i + 1
	}
	// Never cut inside a UTF-8 sequence.
	for cut > 0 && src[cut]&0xC0 == 0x80 {
		cut--
	}
	return src[:cut], src[cut:]
}

// bound rewrites src so that no line nests deeper than MaxNesting, no
// indentation outside fences is wider than MaxIndent and no paragraph has
// more than MaxDelimiters live delimiters.
func bound(src string) string {
	var b strings.Builder
	b.Grow(len(src) + len(src)/8)
	var s bounder
	for len(src) > 0 {
		line := src
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			line = src[:i+1]
		}
		src = src[len(line):]
		s.line(&b, line)
	}
	return b.String()
}

// bounder is what bound carries from one line to the next: the fence it
// is in and the live delimiters of the paragraph so far.
type bounder struct {
	delims int
	fence  string
}

// line writes line (with its newline, if any) to b as bound rewrites it.
func (s *bounder) line(b *strings.Builder, line string) {
	if f := fenceMarker(line); f != "" && (s.fence == "" || strings.HasPrefix(f, s.fence)) {
		if s.fence == "" {
			s.fence = f
		} else {
			s.fence = ""
		}
		b.WriteString(line)
		return
	}
	if s.fence != "" {
		b.WriteString(line)
		return
	}
	if strings.TrimSpace(line) == "" {
		s.delims = 0
	}
	rest := boundPrefix(b, line)
	s.delims = boundDelimiters(b, rest, s.delims)
}

// fresh says the next line is rewritten as the first line of a text is:
// bound of the text from there is the rest of bound of the whole.
func (s *bounder) fresh() bool { return s.fence == "" && s.delims == 0 }

// fenceMarker returns the run of ``` or ~~~ that opens or closes a code
// fence on line (after any container markers), or "".
func fenceMarker(line string) string {
	s := strings.TrimLeft(line, " \t>")
	for _, bullet := range []string{"- ", "* ", "+ "} {
		s = strings.TrimLeft(strings.TrimPrefix(s, bullet), " \t")
	}
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(s) && s[n] == c {
			n++
		}
		if n >= 3 {
			return s[:n]
		}
	}
	return ""
}

// boundPrefix copies the line's container markers and indentation, capped,
// and returns the rest of the line.
func boundPrefix(b *strings.Builder, line string) string {
	depth, col, i := 0, 0, 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			w := 1
			if c == '\t' {
				w = 4 - col%4
			}
			col += w
			if col <= MaxIndent {
				b.WriteByte(c)
			}
			i++
		case c == '>' || isBullet(line[i:]):
			if depth == MaxNesting {
				b.WriteByte('\\')
				return line[i:]
			}
			depth++
			n := markerLen(line[i:])
			b.WriteString(line[i : i+n])
			col += n
			i += n
		default:
			return line[i:]
		}
	}
	return ""
}

// isBullet reports a list marker ("-", "*", "+" or "1." / "1)") followed by
// a space or the end of the line.
func isBullet(s string) bool {
	n := markerLen(s)
	if n == 0 || s[0] == '>' {
		return false
	}
	return n == len(s) || s[n] == ' ' || s[n] == '\t' || s[n] == '\n' || s[n] == '\r'
}

// markerLen is the length of the container marker s starts with, or 0.
func markerLen(s string) int {
	switch {
	case s == "":
		return 0
	case s[0] == '>' || s[0] == '-' || s[0] == '*' || s[0] == '+':
		return 1
	}
	n := 0
	for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n > 0 && n < len(s) && (s[n] == '.' || s[n] == ')') {
		return n + 1
	}
	return 0
}

// boundDelimiters copies s, escaping delimiters once the paragraph has
// MaxDelimiters of them, and returns the paragraph's count so far.
func boundDelimiters(b *strings.Builder, s string, n int) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			// Already escaped: copy the pair as it is.
			b.WriteByte(c)
			b.WriteByte(s[i+1])
			i++
			continue
		case isDelimiter(c):
			n++
			if n > MaxDelimiters {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(c)
	}
	return n
}

func isDelimiter(c byte) bool {
	switch c {
	case '*', '_', '~', '[', ']', '`':
		return true
	}
	return false
}
