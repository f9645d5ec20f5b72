package attachment

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-pdf/fpdf"
)

// makePDF renders one page per entry of pages, using a core font (WinAnsi
// encoding) and compression, as most real producers do.
func makePDF(t testing.TB, pages []string, setup ...func(*fpdf.Fpdf)) []byte {
	t.Helper()
	doc := fpdf.New("P", "mm", "A4", "")
	for _, s := range setup {
		s(doc)
	}
	for _, text := range pages {
		doc.AddPage()
		doc.SetFont("Helvetica", "", 12)
		if text != "" {
			doc.MultiCell(0, 6, text, "", "L", false)
		}
	}
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pageTexts(n int) []string {
	pages := make([]string, n)
	for i := range pages {
		pages[i] = fmt.Sprintf("Page marker %d of the handout.", i+1)
	}
	return pages
}

// rawPDF assembles a PDF from object bodies (object i+1 is objs[i]) with a
// correct xref table, so hostile structures can be written by hand.
func rawPDF(objs []string, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailer, xref)
	return b.Bytes()
}

// xrefStreamPDF builds a PDF whose cross-reference is a stream, with
// entries (type, field 2, field 3) for objects 1 to 5 after object 1, the
// catalog, and object 2, the given body; object 6 is the xref stream.
func xrefStreamPDF(obj2 string, entries [][3]int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	o1 := b.Len()
	b.WriteString("1 0 obj\n<< /Type /Catalog /Pages 3 0 R >>\nendobj\n")
	o2 := b.Len()
	fmt.Fprintf(&b, "2 0 obj\n%s\nendobj\n", obj2)
	o6 := b.Len()
	all := append([][3]int{{0, 0, 255}, {1, o1, 0}, {1, o2, 0}}, entries...)
	all = append(all, [3]int{1, o6, 0})
	var d []byte
	for _, e := range all {
		d = append(d, byte(e[0]), byte(e[1]>>8), byte(e[1]), byte(e[2]))
	}
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 2 1] /Root 1 0 R /Length %d >>\nstream\n", len(all)-1, len(all), len(d))
	b.Write(d)
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", o6)
	return b.Bytes()
}

func pngBytes() []byte {
	return append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"), bytes.Repeat([]byte{0}, 40)...)
}

func TestExtractAccepted(t *testing.T) {
	twoPages := makePDF(t, []string{"Photosynthesis converts light into chemical energy.", "Chlorophyll absorbs mostly blue and red light."})
	tests := []struct {
		name      string
		filename  string
		data      []byte
		mime      string
		want      []string // substrings of Text
		wantText  string   // exact Text when set
		pages     int
		truncated bool
		cleanName string // expected File.Filename when set
	}{
		{name: "plain text", filename: "notes.txt", data: []byte("hello\tworld\n"), mime: "text/plain", wantText: "hello\tworld\n"},
		{name: "markdown", filename: "notes.md", data: []byte("# Title\n\n- item\n"), mime: "text/markdown", want: []string{"# Title"}},
		{name: "csv read as text", filename: "grades.csv", data: []byte("name,grade\nAna,9\n\"Bo, Jr\",7\n"), mime: "text/csv", want: []string{"\"Bo, Jr\",7"}},
		{name: "json by name", filename: "data.json", data: []byte(`{"a": [1, 2, {"b": null}]}`), mime: "application/json", want: []string{`"b": null`}},
		{name: "json by content", filename: "data", data: []byte("  [1, 2, 3]\n"), mime: "application/json"},
		{name: "bracket text that is not json", filename: "settings", data: []byte("[section]\nkey=value\n"), mime: "text/plain"},
		{name: "toml table is not sniffed as json", filename: "Cargo.toml", data: []byte("[package]\nname = \"x\"\n"), mime: "text/x-toml"},
		{name: "go", filename: "main.go", data: []byte("package main\n\nfunc main() {}\n"), mime: "text/x-go"},
		{name: "python", filename: "solve.py", data: []byte("def f(x):\n    return x * 2\n"), mime: "text/x-python"},
		{name: "javascript", filename: "app.js", data: []byte("console.log('hi');\n"), mime: "text/javascript"},
		{name: "typescript", filename: "app.ts", data: []byte("const x: number = 1;\n"), mime: "text/x-typescript"},
		{name: "java", filename: "Main.java", data: []byte("class Main {}\n"), mime: "text/x-java"},
		{name: "c", filename: "a.c", data: []byte("int main(void) { return 0; }\n"), mime: "text/x-c"},
		{name: "c header", filename: "a.h", data: []byte("#pragma once\n"), mime: "text/x-c"},
		{name: "c++", filename: "a.cpp", data: []byte("#include <iostream>\n"), mime: "text/x-c++"},
		{name: "rust", filename: "lib.rs", data: []byte("fn main() {}\n"), mime: "text/x-rust"},
		{name: "ruby", filename: "x.rb", data: []byte("puts 1\n"), mime: "text/x-ruby"},
		{name: "php", filename: "x.php", data: []byte("<?php echo 1;\n"), mime: "text/x-php"},
		{name: "shell", filename: "run.sh", data: []byte("#!/bin/sh\necho hi\n"), mime: "text/x-shellscript"},
		{name: "sql", filename: "q.sql", data: []byte("SELECT 1;\n"), mime: "text/x-sql"},
		{name: "yaml", filename: "ci.yml", data: []byte("a: 1\n"), mime: "text/yaml"},
		{name: "html as text", filename: "index.html", data: []byte("<!doctype html><p>hi</p>\n"), mime: "text/html", want: []string{"<p>hi</p>"}},
		{name: "css as text", filename: "style.css", data: []byte("body { color: red; }\n"), mime: "text/css"},
		{name: "uppercase extension", filename: "README.MD", data: []byte("hi\n"), mime: "text/markdown"},
		{name: "utf-8 text", filename: "es.txt", data: []byte("¿Qué es la fotosíntesis? 光合作用\n"), mime: "text/plain", wantText: "¿Qué es la fotosíntesis? 光合作用\n"},
		{name: "bom stripped", filename: "bom.txt", data: []byte("\xef\xbb\xbfhello"), mime: "text/plain", wantText: "hello"},
		{name: "crlf normalised", filename: "win.txt", data: []byte("a\r\nb\rc\n"), mime: "text/plain", wantText: "a\nb\nc\n"},
		{name: "pdf name on text: content wins", filename: "report.pdf", data: []byte("just text\n"), mime: "text/plain", wantText: "just text\n"},
		{name: "png name on text: content wins", filename: "photo.png", data: []byte("not a picture\n"), mime: "text/plain"},
		{name: "markup in name kept (views escape)", filename: "<script>.txt", data: []byte("x"), mime: "text/plain", cleanName: "<script>.txt"},
		{name: "path traversal name", filename: "../../etc/passwd", data: []byte("root:x:0:0\n"), mime: "text/plain", cleanName: "passwd"},
		{name: "nul in name", filename: "a\x00b.txt", data: []byte("x"), mime: "text/plain", cleanName: "ab.txt"},
		{name: "pdf two pages", filename: "bio.pdf", data: twoPages, mime: "application/pdf", pages: 2,
			want: []string{"Photosynthesis converts light into chemical energy.", "Chlorophyll absorbs mostly blue and red light."}},
		{name: "pdf named txt: content wins", filename: "bio.txt", data: twoPages, mime: "application/pdf", pages: 2, want: []string{"Chlorophyll"}},
		{name: "pdf 2.0 header", filename: "new.pdf", data: append([]byte("%PDF-2.0"), twoPages[8:]...), mime: "application/pdf", pages: 2, want: []string{"Chlorophyll"}},
		{name: "pdf with bytes after EOF", filename: "pad.pdf", data: append(append([]byte{}, twoPages...), bytes.Repeat([]byte("\n"), 300)...), mime: "application/pdf", pages: 2, want: []string{"Chlorophyll"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Extract(tc.filename, tc.data)
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			if f.Mime != tc.mime {
				t.Errorf("Mime = %q, want %q", f.Mime, tc.mime)
			}
			for _, w := range tc.want {
				if !strings.Contains(f.Text, w) {
					t.Errorf("Text %q does not contain %q", f.Text, w)
				}
			}
			if tc.wantText != "" && f.Text != tc.wantText {
				t.Errorf("Text = %q, want %q", f.Text, tc.wantText)
			}
			if f.Pages != tc.pages || f.Truncated != tc.truncated {
				t.Errorf("Pages, Truncated = %d, %v; want %d, %v", f.Pages, f.Truncated, tc.pages, tc.truncated)
			}
			if tc.cleanName != "" && f.Filename != tc.cleanName {
				t.Errorf("Filename = %q, want %q", f.Filename, tc.cleanName)
			}
			if f.Size != len(tc.data) || len(f.SHA256) != 64 {
				t.Errorf("Size, SHA256 = %d, %q", f.Size, f.SHA256)
			}
		})
	}
}

func TestExtractRefused(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	junk := make([]byte, 4096)
	rng.Read(junk)
	pdf := makePDF(t, pageTexts(2))
	corrupt := append([]byte{}, pdf...)
	for i := 200; i < len(corrupt)-200; i += 7 {
		corrupt[i] ^= 0x5a
	}
	tests := []struct {
		name     string
		filename string
		data     []byte
		want     error
		inMsg    string
	}{
		{"empty", "a.txt", nil, ErrEmpty, ""},
		{"too large", "a.txt", bytes.Repeat([]byte("a"), MaxSize+1), ErrTooLarge, ""},
		{"png named txt", "notes.txt", pngBytes(), ErrUnsupportedType, "image/png"},
		{"jpeg", "a.txt", []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01"), ErrUnsupportedType, "image/jpeg"},
		{"gif", "a.txt", []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00"), ErrUnsupportedType, "image/gif"},
		{"zip / docx", "essay.docx", []byte("PK\x03\x04\x14\x00\x06\x00word/document.xml"), ErrUnsupportedType, "zip"},
		{"elf", "a.out", []byte("\x7fELF\x02\x01\x01\x00\x00\x00"), ErrUnsupportedType, "ELF"},
		{"gzip", "a.txt.gz", []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"), ErrUnsupportedType, "gzip"},
		{"old office", "a.doc", []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00"), ErrUnsupportedType, "ole"},
		{"binary junk", "junk.bin", junk, ErrUnsupportedType, ""},
		{"nul bytes", "a.txt", []byte("abc\x00def"), ErrUnsupportedType, "NUL"},
		{"utf-16 text", "a.txt", []byte("\xff\xfeh\x00i\x00"), ErrUnsupportedType, ""},
		{"invalid utf-8", "a.txt", []byte("caf\xe9 au lait"), ErrUnsupportedType, "UTF-8"},
		{"escape control char", "a.txt", []byte("red \x1b[31mtext"), ErrUnsupportedType, "control"},
		{"c1 control char", "a.txt", []byte("a\u0085b"), ErrUnsupportedType, "control"},
		{"invalid json by name", "data.json", []byte(`{"a": 1,}`), ErrUnsupportedType, "invalid JSON"},
		{"truncated pdf", "a.pdf", pdf[:len(pdf)/2], ErrUnreadablePDF, "damaged"},
		{"corrupt pdf", "a.pdf", corrupt, ErrUnreadablePDF, ""},
		{"pdf header only", "a.pdf", []byte("%PDF-"), ErrUnreadablePDF, ""},
		{"pdf header then junk", "a.pdf", append([]byte("%PDF-1.4\n"), junk...), ErrUnreadablePDF, ""},
		{"encrypted pdf", "a.pdf", makePDF(t, pageTexts(1), func(d *fpdf.Fpdf) { d.SetProtection(0, "secret", "owner") }), ErrUnreadablePDF, "password"},
		// fpdf encrypts with 40-bit RC4, which the library opens but decrypts wrongly.
		{"encrypted pdf, owner password only", "a.pdf", makePDF(t, pageTexts(1), func(d *fpdf.Fpdf) { d.SetProtection(fpdf.CnProtectPrint, "", "owner") }), ErrUnreadablePDF, "encrypted"},
		{"pdf without text", "scan.pdf", makePDF(t, []string{""}), ErrUnreadablePDF, "no text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Extract(tc.filename, tc.data)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Extract = %+v, %v; want %v", f, err, tc.want)
			}
			if f != nil {
				t.Errorf("File = %+v, want nil with an error", f)
			}
			if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.inMsg)) {
				t.Errorf("error %q does not mention %q", err, tc.inMsg)
			}
			if errors.Is(err, ErrUnsupportedType) && !strings.Contains(err.Error(), Accepted) {
				t.Errorf("error %q does not list what is accepted", err)
			}
		})
	}
}

func TestSizeLimits(t *testing.T) {
	line := strings.Repeat("x", 1023) + "\n"
	exact := []byte(strings.Repeat(line, MaxSize/len(line)))
	if len(exact) != MaxSize {
		t.Fatalf("test data is %d bytes", len(exact))
	}
	f, err := Extract("big.txt", exact)
	if err != nil {
		t.Fatalf("exactly MaxSize: %v", err)
	}
	if !f.Truncated || utf8.RuneCountInString(f.Text) != MaxTextChars || f.Size != MaxSize {
		t.Errorf("Truncated=%v runes=%d Size=%d", f.Truncated, utf8.RuneCountInString(f.Text), f.Size)
	}
	if _, err := Extract("big.txt", append(exact, 'x')); !errors.Is(err, ErrTooLarge) {
		t.Errorf("MaxSize+1: %v, want ErrTooLarge", err)
	}
	// The cap counts characters, and never splits one.
	multi := []byte(strings.Repeat("é", MaxTextChars+10))
	f, err = Extract("e.txt", multi)
	if err != nil || !f.Truncated || utf8.RuneCountInString(f.Text) != MaxTextChars || !utf8.ValidString(f.Text) {
		t.Errorf("multi-byte cap: err=%v truncated=%v", err, f != nil && f.Truncated)
	}
}

func TestPDFPageCap(t *testing.T) {
	f, err := Extract("long.pdf", makePDF(t, pageTexts(40)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Pages != 40 || !f.Truncated {
		t.Errorf("Pages=%d Truncated=%v, want 40, true", f.Pages, f.Truncated)
	}
	for _, want := range []string{"Page marker 1 of", "Page marker 30 of"} {
		if !strings.Contains(f.Text, want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.Contains(f.Text, "Page marker 31 of") {
		t.Error("read past the page cap")
	}
}

func TestPDFCharCap(t *testing.T) {
	// 10 pages of 12,000 characters: over the character cap, under the page cap.
	doc := fpdf.New("P", "mm", "A4", "")
	for p := 0; p < 10; p++ {
		doc.AddPage()
		doc.SetFont("Helvetica", "", 3)
		for l := 0; l < 60; l++ {
			doc.Text(5, float64(5+l*4), strings.Repeat(fmt.Sprintf("p%dl%d ", p, l), 200)[:200])
		}
	}
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := Extract("dense.pdf", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if f.Pages != 10 || !f.Truncated || utf8.RuneCountInString(f.Text) != MaxTextChars {
		t.Errorf("Pages=%d Truncated=%v runes=%d", f.Pages, f.Truncated, utf8.RuneCountInString(f.Text))
	}
	if !strings.Contains(f.Text, "p7l0") || strings.Contains(f.Text, "p9l59") {
		t.Error("text does not stop at the cap")
	}
}

// TestHostilePDFs feeds structures that make the library loop, allocate or
// panic; each must come back as ErrUnreadablePDF, quickly.
func TestHostilePDFs(t *testing.T) {
	page := "<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 3 0 R >> >> >>"
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
	content := "<< /Length 27 >>\nstream\nBT /F1 12 Tf (hello) Tj ET\nendstream"
	ok := rawPDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [5 0 R] /Count 1 >>", font, content, page}, "")
	if f, err := Extract("ok.pdf", ok); err != nil || !strings.Contains(f.Text, "hello") {
		t.Fatalf("hand-built control PDF: %v, %+v", err, f)
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"page tree cycle", rawPDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R] /Count 1 >>"}, "")},
		{"parent cycle for inherited resources", rawPDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 3 0 R /Contents 4 0 R >>", "<< /Length 27 >>\nstream\nBT /F1 12 Tf (hello) Tj ET\nendstream"}, "")},
		{"huge trailer size", bytes.Replace(ok, []byte("/Size 6"), []byte("/Size 99999999999"), 1)},
		{"huge xref start", bytes.Replace(ok, []byte("xref\n0 6"), []byte("xref\n999999999999 6"), 1)},
		{"huge object stream N", rawPDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /ObjStm /N 9223372036854775807 /First 1 /Length 0 >>\nstream\n\nendstream"}, "")},
		{"huge predictor columns", rawPDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Contents 4 0 R >>", "<< /Length 10 /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 99999999999 >> >>\nstream\nxxxxxxxxxx\nendstream"}, "")},
		{"prev chain loop", bytes.Replace(ok, []byte("/Root 1 0 R"), []byte(fmt.Sprintf("/Root 1 0 R /Prev %d", bytes.LastIndex(ok, []byte("\nxref\n"))+1)), 1)},
		// Objects 3 and 4 each claim to live in the other's object stream:
		// the library would recurse until a fatal stack overflow.
		{"object stream cycle", xrefStreamPDF("null", [][3]int{{2, 4, 0}, {2, 3, 0}, {0, 0, 0}})},
		{"object stream in itself", xrefStreamPDF("null", [][3]int{{2, 3, 0}, {0, 0, 0}, {0, 0, 0}})},
		// The object stream's /Type is object 3, stored in that same stream.
		{"object stream type inside itself", xrefStreamPDF("<< /Type 3 0 R /N 1 /First 4 /Length 4 >>\nstream\n3 0 \nendstream",
			[][3]int{{2, 2, 0}, {0, 0, 0}, {0, 0, 0}})},
		{"unknown filter", rawPDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Contents 4 0 R >>", "<< /Length 4 /Filter /JBIG2Decode >>\nstream\nxxxx\nendstream"}, "")},
		{"missing objects", rawPDF([]string{"<< /Type /Catalog /Pages 9 0 R >>"}, "")},
		{"bad Tf operands", rawPDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Contents 4 0 R >>", "<< /Length 18 >>\nstream\nBT Tf ' \" TJ Tj ET\nendstream"}, "")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := extract("hostile.pdf", tc.data, hangGuard)
			if !errors.Is(err, ErrUnreadablePDF) {
				t.Errorf("Extract = %+v, %v; want ErrUnreadablePDF", f, err)
			}
			var pe *PDFError
			if errors.As(err, &pe) {
				t.Logf("%v (cause: %v)", err, pe.Cause)
			}
			if endedByClock(err) {
				t.Errorf("only the clock ended it (a loop the counted budgets miss): %v", err)
			}
		})
	}
}

// hangGuard makes the PDF clock a guard against a hang only, far above the
// time any input takes on a slow, loaded machine: tests assert on how an
// extraction ended, never on how long it took.
var hangGuard = pdfClock{soft: time.Minute, hard: 90 * time.Second}

// endedByClock reports an extraction that the clock ended, rather than the
// file itself or a counted budget (reads, bytes, operators, pages, runes).
func endedByClock(err error) bool {
	var pe *PDFError
	return errors.As(err, &pe) && errors.Is(pe.Cause, errPDFClock)
}

// TestPDFClockCause checks that the two ways a read is cut short are told
// apart, since the hostile-input tests rely on it.
func TestPDFClockCause(t *testing.T) {
	ok := rawPDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Contents 4 0 R >>", "<< /Length 27 >>\nstream\nBT /F1 12 Tf (hello) Tj ET\nendstream"}, "")
	tests := []struct {
		name    string
		clock   pdfClock
		byClock bool
	}{
		{"clock already out", pdfClock{soft: -time.Second, hard: time.Minute}, true},
		{"hang guard", hangGuard, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := extract("clock.pdf", ok, tc.clock)
			if got := endedByClock(err); got != tc.byClock {
				t.Errorf("extract = %+v, %v; ended by the clock %v, want %v", f, err, got, tc.byClock)
			}
		})
	}
	// A read over the count budget, with the clock far from out.
	br := &budgetReader{data: ok, deadline: time.Now().Add(time.Minute), reads: pdfMaxReads}
	func() {
		defer func() { _ = recover() }()
		_, _ = br.ReadAt(make([]byte, 1), 0)
	}()
	var pe *PDFError
	if err := pdfFailure(nil, br); !errors.As(err, &pe) || !errors.Is(pe.Cause, errPDFBudget) || endedByClock(err) {
		t.Errorf("read count over budget: %v, want the cause errPDFBudget", err)
	}
}

func TestCleanFilename(t *testing.T) {
	long := strings.Repeat("a", 500) + ".txt"
	longRunes := strings.Repeat("é", 500) + ".md"
	tests := []struct{ in, want string }{
		{"notes.md", "notes.md"},
		{"../../etc/passwd", "passwd"},
		{`C:\Users\ana\Desktop\essay.txt`, "essay.txt"},
		{"a\x00b.txt", "ab.txt"},
		{"line\nbreak\r.txt", "linebreak.txt"},
		{"<script>.txt", "<script>.txt"},
		{"tab\there.txt", "tab here.txt"},
		{"evil\u202Etxt.exe", "eviltxt.exe"}, // right-to-left override would display as "exe.txt"
		{"a..b.txt", "a.b.txt"},
		{"..", "attachment"},
		{".", "attachment"},
		{"dir/", "attachment"},
		{"", "attachment"},
		{"   ", "attachment"},
		{"\x00\x01", "attachment"},
		{"\xff\xfe", "attachment"},
		{".bashrc", ".bashrc"},
		{"trailing. ", "trailing"},
		{long, strings.Repeat("a", 196) + ".txt"},
		{longRunes, strings.Repeat("é", 197) + ".md"},
		{strings.Repeat("b", 300), strings.Repeat("b", 200)},
		{"x." + strings.Repeat("y", 300), "x." + strings.Repeat("y", 198)}, // an "extension" that long is not one
	}
	for _, tc := range tests {
		got := CleanFilename(tc.in)
		if got != tc.want {
			t.Errorf("CleanFilename(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > MaxFilenameChars || !utf8.ValidString(got) || strings.ContainsAny(got, "/\\\x00") {
			t.Errorf("CleanFilename(%q) = %q: %d chars", tc.in, got, n)
		}
	}
}

func FuzzExtract(f *testing.F) {
	pdf := makePDF(f, pageTexts(2))
	f.Add("notes.txt", []byte("hello\nworld\n"))
	f.Add("data.json", []byte(`{"a":[1,2,{"b":"c"}]}`))
	f.Add("x", []byte("[1,2"))
	f.Add("grades.csv", []byte("a,b\n1,2\n"))
	f.Add("../../etc/passwd", []byte("\xef\xbb\xbfroot\r\n"))
	f.Add("a\x00b.txt", []byte("caf\xe9"))
	f.Add("p.txt", pngBytes())
	f.Add("bio.pdf", pdf)
	f.Add("half.pdf", pdf[:len(pdf)/2])
	f.Add("raw.pdf", rawPDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Contents 4 0 R >>", "<< /Length 27 >>\nstream\nBT /F1 12 Tf (hello) Tj ET\nendstream"}, ""))
	// Regression seeds: files that once crashed or hung the PDF library.
	f.Add("cycle.pdf", xrefStreamPDF("null", [][3]int{{2, 4, 0}, {2, 3, 0}, {0, 0, 0}}))
	f.Add("type.pdf", xrefStreamPDF("<< /Type 3 0 R /N 1 /First 4 /Length 4 >>\nstream\n3 0 \nendstream", [][3]int{{2, 2, 0}, {0, 0, 0}, {0, 0, 0}}))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		file, err := extract(name, data, hangGuard)
		// The counted budgets must end any input (a few thousand reads, a
		// few million operators at most); one that only the clock ends is a
		// loop they miss. The clock is a hang guard here, not a time limit.
		if endedByClock(err) {
			t.Fatalf("only the clock ended it: %v", err)
		}
		if err != nil {
			if file != nil {
				t.Fatalf("File and error: %+v, %v", file, err)
			}
			if !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrUnsupportedType) && !errors.Is(err, ErrUnreadablePDF) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if !utf8.ValidString(file.Text) {
			t.Fatalf("Text is not valid UTF-8: %q", file.Text)
		}
		if n := utf8.RuneCountInString(file.Text); n > MaxTextChars {
			t.Fatalf("Text has %d chars", n)
		}
		if file.Filename == "" || !utf8.ValidString(file.Filename) || utf8.RuneCountInString(file.Filename) > MaxFilenameChars ||
			strings.ContainsAny(file.Filename, "/\\\x00\n") {
			t.Fatalf("bad Filename %q", file.Filename)
		}
		if file.Size != len(data) || file.Mime == "" {
			t.Fatalf("bad File %+v", file)
		}
	})
}
