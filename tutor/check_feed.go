package tutor

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"aula/models"
	"aula/tutor/stream"
)

// verdictFeed reads the quiz model's JSON verdict as it streams and hands
// on, decoded, the text of the one field the student will read: the
// feedback or, in the guide style (guide set), the hint when the verdict
// is not yet. In the guide style a field that starts before the verdict
// is known is held back: it might give the answer away.
type verdictFeed struct {
	feed  CheckFeed
	guide bool

	depth           int  // nesting of the reply's first object; text before it is prose
	ended           bool // the first object closed
	inString        bool
	escape          bool
	unicode         []byte // the hex digits of a \u escape being read
	high            rune   // a high surrogate waiting for its pair
	expectKey       bool
	key             string
	isKey, emitting bool
	capture         strings.Builder // the key or the verdict being read
	verdict         string
	out             []byte // decoded text not handed on yet
}

// newVerdictFeed reads a verdict for feed.
func newVerdictFeed(feed CheckFeed, guide bool) *verdictFeed {
	return &verdictFeed{feed: feed, guide: guide}
}

// write takes the next piece of the reply and hands on what it adds to
// the chosen field, whole characters only.
func (v *verdictFeed) write(tok string) {
	for i := 0; i < len(tok) && !v.ended; i++ {
		v.byte(tok[i])
	}
	if n := stream.CompleteRunes(v.out); n > 0 {
		v.feed(string(v.out[:n]))
		v.out = append(v.out[:0], v.out[n:]...)
	}
}

// byte moves the reader by one byte of the reply.
func (v *verdictFeed) byte(b byte) {
	if v.inString {
		v.stringByte(b)
		return
	}
	switch b {
	case '{':
		v.depth++
		v.expectKey = v.depth == 1
	case '}':
		if v.depth > 0 {
			v.depth--
			v.ended = v.depth == 0
		}
	case ',':
		v.expectKey = v.depth == 1
	case '"':
		if v.depth == 0 {
			return
		}
		v.inString, v.isKey = true, v.expectKey
		v.expectKey = false
		v.capture.Reset()
		v.emitting = !v.isKey && v.depth == 1 && v.wanted(v.key)
	}
}

// wanted reports whether the value of key is the text the student reads.
func (v *verdictFeed) wanted(key string) bool {
	if !v.guide {
		return key == "feedback"
	}
	switch normalizeVerdict(v.verdict) {
	case "":
		return false
	case models.VerdictNotYet:
		return key == "hint"
	}
	return key == "feedback"
}

// stringByte reads one byte inside a string.
func (v *verdictFeed) stringByte(b byte) {
	switch {
	case v.unicode != nil:
		v.unicode = append(v.unicode, b)
		if len(v.unicode) == 4 {
			n, err := strconv.ParseUint(string(v.unicode), 16, 32)
			v.unicode = nil
			if err == nil {
				v.rune(rune(n))
			}
		}
	case v.escape:
		v.escape = false
		switch b {
		case 'u':
			v.unicode = []byte{}
		case 'n':
			v.rune('\n')
		case 't':
			v.rune('\t')
		case 'r', 'b', 'f':
		default: // \" \\ \/
			v.rune(rune(b))
		}
	case b == '\\':
		v.escape = true
	case b == '"':
		v.inString = false
		if v.isKey {
			v.key = v.capture.String()
		} else if v.depth == 1 && v.key == "verdict" {
			v.verdict = v.capture.String()
		}
	default:
		v.raw(b)
	}
}

// rune adds a decoded character of the string being read.
func (v *verdictFeed) rune(r rune) {
	if utf16.IsSurrogate(r) {
		if v.high == 0 {
			v.high = r
			return
		}
		r, v.high = utf16.DecodeRune(v.high, r), 0
	}
	v.raw(utf8.AppendRune(nil, r)...)
}

// raw adds bytes of the string being read.
func (v *verdictFeed) raw(bs ...byte) {
	if v.emitting {
		v.out = append(v.out, bs...)
	} else if v.isKey || v.key == "verdict" {
		v.capture.Write(bs)
	}
}
