package attachment

// A scan of a PDF's raw bytes for values the parsing library would turn
// into huge allocations or loop counts.

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
)

// checkPDFAllocs scans the raw bytes for the dictionary values and xref
// subsection headers that the library turns into allocation sizes or loop
// counts, and refuses implausible ones before the library sees them.
func checkPDFAllocs(data []byte) error {
	if what := implausibleValue(data); what != "" {
		return implausible(what)
	}
	if implausibleXref(data) {
		return implausible("xref subsection")
	}
	return nil
}

func implausible(what string) error {
	return &PDFError{Reason: "it is damaged or uses features we cannot read", Cause: errors.New("implausible " + what)}
}

// implausibleValue names the first dictionary key whose value is too large
// (or hidden behind a reference), or returns "".
func implausibleValue(data []byte) string {
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '/')
		if j < 0 {
			break
		}
		i += j + 1
		key, next := pdfName(data, i)
		i = next
		var bad string
		switch key {
		case "Size", "N":
			if v, ok := pdfInt(pdfToken(data, i)); ok && (v < 0 || v > pdfMaxXref) {
				bad = "/" + key
			}
		case "Columns":
			bad = implausibleColumns(data, i)
		case "Index", "W":
			bad = implausibleArray(key, data, i)
		}
		if bad != "" {
			return bad
		}
	}
	return ""
}

// implausibleColumns checks the value after "/Columns" at i.
func implausibleColumns(data []byte, i int) string {
	tok, end := pdfToken(data, i)
	v, ok := pdfInt(tok, end)
	if !ok {
		return ""
	}
	if v < 0 || v > pdfMaxAllocNum {
		return "/Columns"
	}
	// "/Columns 12 0 R" would hide the value from this scan
	if t2, e2 := pdfToken(data, end); isInt(t2) {
		if t3, _ := pdfToken(data, e2); string(t3) == "R" {
			return "indirect /Columns"
		}
	}
	return ""
}

// implausibleArray checks the number array after "/Index" or "/W" at i.
func implausibleArray(key string, data []byte, i int) string {
	tok, end := pdfToken(data, i)
	if string(tok) != "[" {
		return ""
	}
	var nums []int64
	for {
		t, e := pdfToken(data, end)
		end = e
		v, ok := pdfInt(t, e)
		if !ok {
			break
		}
		nums = append(nums, v)
	}
	for k, v := range nums {
		if v < 0 || key == "W" && v > pdfMaxAllocNum {
			return "/" + key
		}
		if key == "Index" && k%2 == 1 && nums[k-1]+v > pdfMaxXref {
			return "/Index"
		}
	}
	return ""
}

// implausibleXref reports a classic xref table ("xref" then "start count"
// headers, each followed by count entries) with a subsection too large.
func implausibleXref(data []byte) bool {
	for off := 0; ; {
		k := bytes.Index(data[off:], []byte("xref"))
		if k < 0 {
			return false
		}
		k += off
		off = k + 4
		if k > 0 && !isPDFSpace(data[k-1]) || off < len(data) && !isPDFSpace(data[off]) {
			continue // e.g. "startxref"
		}
		end := off
		for {
			t1, e1 := pdfToken(data, end)
			start, ok1 := pdfInt(t1, e1)
			t2, e2 := pdfToken(data, e1)
			count, ok2 := pdfInt(t2, e2)
			if !ok1 || !ok2 {
				break
			}
			if start < 0 || count < 0 || start+count > pdfMaxXref {
				return true
			}
			end = e2
			for n := int64(0); n < 3*count && end < len(data); n++ {
				_, end = pdfToken(data, end)
			}
		}
	}
}

func isPDFSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0
}

func isPDFDelim(c byte) bool {
	return strings.IndexByte("()<>[]{}/%", c) >= 0
}

// pdfName reads a name starting after its '/', decoding #xx escapes as the library does.
func pdfName(data []byte, i int) (string, int) {
	var b []byte
	for i < len(data) && !isPDFSpace(data[i]) && !isPDFDelim(data[i]) && len(b) < 32 {
		c := data[i]
		if c == '#' && i+2 < len(data) {
			if v, err := strconv.ParseUint(string(data[i+1:i+3]), 16, 8); err == nil {
				c = byte(v)
				i += 2
			}
		}
		b = append(b, c)
		i++
	}
	return string(b), i
}

// pdfToken returns the next token after whitespace and comments.
func pdfToken(data []byte, i int) ([]byte, int) {
	for i < len(data) {
		if isPDFSpace(data[i]) {
			i++
			continue
		}
		if data[i] == '%' {
			for i < len(data) && data[i] != '\n' && data[i] != '\r' {
				i++
			}
			continue
		}
		break
	}
	if i >= len(data) {
		return nil, i
	}
	if isPDFDelim(data[i]) {
		return data[i : i+1], i + 1
	}
	start := i
	for i < len(data) && !isPDFSpace(data[i]) && !isPDFDelim(data[i]) {
		i++
	}
	return data[start:i], i
}

func isInt(tok []byte) bool {
	_, ok := pdfInt(tok, 0)
	return ok
}

// pdfInt parses tok as the library would an integer; a value too big for
// int64 counts as implausible (math.MaxInt64), not as "not a number".
func pdfInt(tok []byte, _ int) (int64, bool) {
	s := string(tok)
	if s == "" {
		return 0, false
	}
	t := strings.TrimLeft(s, "+-")
	if len(s)-len(t) > 1 || t == "" || strings.Trim(t, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 1<<63 - 1, true
	}
	return v, true
}
