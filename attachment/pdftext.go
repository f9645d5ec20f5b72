package attachment

// The text of PDF pages: content-stream operators turned into clean lines.

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// pdfText accumulates the text of the pages read, cleaned and capped.
type pdfText struct {
	br         *budgetReader
	b          strings.Builder
	runes      int
	space      bool // a space is due before the next visible rune
	newlines   int  // consecutive newlines at the end
	ops        int
	contentLen int64
}

// write appends s without invalid UTF-8, control characters or runs of
// blank space, and stops the extraction once MaxTextChars are kept.
func (x *pdfText) write(s string) {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\f' || r == '\v':
			x.space = false // no trailing spaces before a line break
			if x.runes == 0 || x.newlines >= 2 {
				continue
			}
			x.put('\n')
			x.newlines++
		case unicode.IsSpace(r):
			x.space = x.runes > 0 && x.newlines == 0
		case r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
		default:
			if x.space {
				x.space = false
				x.put(' ')
			}
			x.put(r)
			x.newlines = 0
		}
	}
}

func (x *pdfText) put(r rune) {
	if x.runes >= MaxTextChars {
		panic(stopExtraction{})
	}
	x.b.WriteRune(r)
	x.runes++
}

// rawEncoder passes text through for fonts we cannot map; write drops what is not UTF-8.
type rawEncoder struct{}

func (rawEncoder) Decode(raw string) string { return raw }

// dropEncoder hides the text of a font whose map was too large to read.
type dropEncoder struct{}

func (dropEncoder) Decode(string) string { return "" }

// page appends one page's text. stop reports that no further page should be
// read (a cap was reached); err is why this page gave nothing.
func (x *pdfText) page(p pdf.Page) (stop bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			switch r.(type) {
			case stopExtraction:
				stop, err = true, nil
			case budgetExceeded:
				stop, err = true, errors.New("read budget exceeded")
			default:
				err = fmt.Errorf("page: %v", r)
			}
		}
	}()
	contents := p.V.Key("Contents")
	n, ok := streamSize(contents, pdfMaxContent-x.contentLen)
	if !ok {
		return true, nil
	}
	x.contentLen += n
	st := &textState{x: x, fonts: pageFonts(p), enc: rawEncoder{}}
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		x.ops++
		if x.ops > pdfMaxOps {
			panic(stopExtraction{})
		}
		if x.ops%1024 == 0 {
			x.br.check()
		}
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		st.op(op, args)
	})
	return false, nil
}

// pageFonts returns the page's first pdfMaxFonts fonts by resource name.
func pageFonts(p pdf.Page) map[string]*pdf.Font {
	fonts := map[string]*pdf.Font{}
	for i, name := range p.Fonts() {
		if i == pdfMaxFonts {
			break
		}
		f := p.Font(name)
		fonts[name] = &f
	}
	return fonts
}

// textState is what the text operators of one page's content stream change:
// the current font's encoding and the last line's position.
type textState struct {
	x     *pdfText
	fonts map[string]*pdf.Font
	enc   pdf.TextEncoding
	lastY float64
	haveY bool
}

// encoder returns the encoding of the named font, or one that passes bytes
// through (unknown font) or drops them (a map too large to read).
func (st *textState) encoder(name string) pdf.TextEncoding {
	f, ok := st.fonts[name]
	if !ok {
		return rawEncoder{}
	}
	if tu := f.V.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		if _, ok := streamSize(tu, pdfMaxCMap); !ok {
			return dropEncoder{}
		}
	}
	return f.Encoder() // cached in *f after the first call
}

func (st *textState) show(v pdf.Value) { st.x.write(st.enc.Decode(v.RawString())) }

// op applies one text operator with its operands.
func (st *textState) op(op string, args []pdf.Value) {
	switch {
	case op == "BT" || op == "T*":
		st.x.write("\n")
	case op == "Tf" && len(args) == 2:
		st.enc = st.encoder(args[0].Name())
	case (op == "Td" || op == "TD") && len(args) == 2:
		if args[1].Float64() != 0 {
			st.x.write("\n")
		} else if args[0].Float64() > 0 {
			st.x.write(" ")
		}
	case op == "Tm" && len(args) == 6:
		st.moveTo(args[5].Float64())
	case op == "Tj" && len(args) == 1:
		st.show(args[0])
	case op == "'" || op == "\"": // next line, then show the last operand
		st.x.write("\n")
		if len(args) > 0 {
			st.show(args[len(args)-1])
		}
	case op == "TJ" && len(args) == 1:
		st.showArray(args[0])
	}
}

// moveTo starts a new line when the text matrix moves to another y.
func (st *textState) moveTo(y float64) {
	if st.haveY && y != st.lastY {
		st.x.write("\n")
	} else {
		st.x.write(" ")
	}
	st.lastY, st.haveY = y, true
}

// showArray shows a TJ array: strings, and numbers that are kerning or,
// when wide, a word space.
func (st *textState) showArray(a pdf.Value) {
	for i := 0; i < a.Len(); i++ {
		switch v := a.Index(i); v.Kind() {
		case pdf.String:
			st.show(v)
		case pdf.Integer, pdf.Real:
			if v.Float64() < -200 { // a gap this wide is a word space
				st.x.write(" ")
			}
		}
	}
}

// streamSize measures the decompressed length of a content stream (or array
// of them) without keeping it, so a small compressed stream that inflates to
// gigabytes is found before the library tries to tokenise it.
func streamSize(v pdf.Value, limit int64) (int64, bool) {
	one := func(s pdf.Value) int64 {
		rc := s.Reader()
		defer rc.Close()
		n, _ := io.Copy(io.Discard, io.LimitReader(rc, limit+1))
		return n
	}
	var total int64
	switch v.Kind() {
	case pdf.Stream:
		total = one(v)
	case pdf.Array:
		if v.Len() > pdfMaxParts {
			return 0, false
		}
		for i := 0; i < v.Len() && total <= limit; i++ {
			if s := v.Index(i); s.Kind() == pdf.Stream {
				total += one(s)
			}
		}
	}
	return total, total <= limit
}
