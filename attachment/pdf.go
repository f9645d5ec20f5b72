package attachment

// PDF text extraction with github.com/ledongthuc/pdf.
//
// That library is a straightforward parser, not a hardened one: malformed
// files make it panic, cyclic structures make it loop, and some numbers in a
// file become allocation sizes. A student's upload is untrusted, so every
// call into it is wrapped in layers, each covering what the previous cannot:
//
//  1. checkPDFAllocs refuses files whose xref sizes, /Index, /W, /Columns
//     or object-stream /N values would become huge allocations or loop
//     counts (an allocation that fails is fatal in Go, not a panic).
//  2. The library reads the file only through budgetReader, which panics
//     once a read count, a byte count or a deadline is exceeded. Every loop
//     the library can be trapped in by a cycle re-reads the file, so this
//     turns those loops into a (recovered) panic.
//  3. We walk the page tree ourselves (the library's Page(n) loops on a
//     cyclic tree), read at most MaxPDFPages pages, measure each content
//     stream's decompressed size before interpreting it (decompression
//     bombs), and stop interpreting once MaxTextChars are collected.
//  4. Everything runs in its own goroutine under recover and a hard
//     timeout, and at most pdfWorkers run at once. If a file still traps the
//     library in a loop that does no I/O, the caller gets ErrUnreadablePDF
//     on time and the stuck goroutine keeps its worker slot, so the damage
//     is capped at pdfWorkers busy cores rather than growing per upload.
//
// One trap does no I/O and is fatal rather than a panic: an object stream
// that the xref says lives in an object stream (itself, or one that lives in
// it) makes the library recurse until the stack overflows, which kills the
// process. checkXrefChains refuses such files right after the xref is read.
//
// Known gap: values inside compressed object streams are not visible to
// checkPDFAllocs. Closing that needs a patched library or running
// extraction in a separate process.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/ledongthuc/pdf"
)

const (
	pdfWorkers      = 2         // concurrent extractions, matching the cores we plan for
	pdfMaxReads     = 50_000    // ReadAt calls; a 30-page document needs a few thousand
	pdfMaxReadBytes = 256 << 20 // bytes handed out by ReadAt, about 50 passes over a 5 MiB file
	pdfMaxContent   = 32 << 20  // decompressed content-stream bytes over all pages read
	pdfMaxCMap      = 1 << 20   // decompressed bytes of one font's ToUnicode map
	pdfMaxOps       = 2_000_000 // content-stream operators over all pages read
	pdfMaxTreeNodes = 10_000    // page-tree nodes visited
	pdfMaxTreeDepth = 64        // page-tree nesting
	pdfMaxXref      = 1 << 21   // xref entries; a 5 MiB file cannot hold more objects
	pdfMaxFonts     = 256       // fonts per page
	pdfMaxParts     = 1000      // content streams per page
	pdfMaxAllocNum  = 1 << 20   // /W and /Columns values
)

var pdfSlots = make(chan struct{}, pdfWorkers)

// pdfClock is the time an extraction may take. The counted budgets above
// are what should end any hostile file; the clock is the last resort for a
// loop they do not see, so an extraction the clock ended (errPDFClock in
// its Cause) is a gap in the budget. Tests raise the clock far above any
// real time, so that only such a gap, never a slow machine, trips it.
type pdfClock struct {
	soft time.Duration // checked on every read and every 1,024 operators
	hard time.Duration // the caller never waits longer than this
}

// productionClock bounds the time an upload's PDF may take in the server.
var productionClock = pdfClock{soft: 5 * time.Second, hard: 8 * time.Second}

// errPDFClock is the Cause of a PDFError the clock ended, errPDFBudget of
// one a counted budget (reads, bytes) ended: the two mean different things.
var (
	errPDFClock  = errors.New("pdf: the time allowed ran out")
	errPDFBudget = errors.New("pdf: the read budget ran out")
)

// budgetExceeded is the panic value budgetReader uses to unwind the library.
type budgetExceeded struct{}

// stopExtraction unwinds pdf.Interpret once we have all the text we keep.
type stopExtraction struct{}

// budgetReader serves the PDF bytes to the library and ends the parse, by
// panicking, once it has read too much or for too long.
type budgetReader struct {
	data     []byte
	head     []byte // replaces the start of data, see pdfHeader
	deadline time.Time
	reads    int
	bytes    int64
	// stopped is nil until the read is ended: errPDFBudget when a count
	// ended it, errPDFClock when the deadline did.
	stopped error
}

func (b *budgetReader) check() {
	if b.stopped == nil && (b.reads > pdfMaxReads || b.bytes > pdfMaxReadBytes) {
		b.stopped = errPDFBudget
	}
	if b.stopped == nil && time.Now().After(b.deadline) {
		b.stopped = errPDFClock
	}
	if b.stopped != nil {
		panic(budgetExceeded{})
	}
}

// ReadAt implements io.ReaderAt within the budget.
func (b *budgetReader) ReadAt(p []byte, off int64) (int, error) {
	b.reads++
	b.bytes += int64(len(p))
	b.check()
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= int64(len(b.data)) {
		return 0, io.EOF
	}
	n := copy(p, b.data[off:])
	if off < int64(len(b.head)) {
		copy(p[:n], b.head[off:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// pdfHeader returns a replacement header when the file's would be refused
// only for its form: the library accepts "%PDF-1.0" to "%PDF-1.7" followed
// by an end of line, but PDF 2.0 files, and headers followed by a comment on
// the same line, are readable by it too. The header is never parsed again.
func pdfHeader(data []byte) []byte {
	if len(data) < 9 || data[6] != '.' || data[5] < '1' || data[5] > '2' || data[7] < '0' || data[7] > '9' {
		return nil
	}
	if data[5] == '1' && data[7] <= '7' && (data[8] == '\n' || data[8] == '\r') {
		return nil
	}
	return []byte("%PDF-1.7\n")
}

// extractPDF returns the text of the first MaxPDFPages pages, the document's
// page count and whether the text stops early.
func extractPDF(data []byte, clock pdfClock) (string, int, bool, error) {
	if err := checkPDFAllocs(data); err != nil {
		return "", 0, false, err
	}
	type result struct {
		text      string
		pages     int
		truncated bool
		err       error
	}
	timer := time.NewTimer(clock.hard)
	defer timer.Stop()
	select {
	case pdfSlots <- struct{}{}:
	case <-timer.C:
		return "", 0, false, &PDFError{Reason: "the server is busy reading other PDFs; try again in a moment", Cause: errPDFClock}
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-pdfSlots }()
		var res result
		res.text, res.pages, res.truncated, res.err = readPDF(data, clock.soft)
		done <- res
	}()
	select {
	case res := <-done:
		return res.text, res.pages, res.truncated, res.err
	case <-timer.C:
		return "", 0, false, &PDFError{Reason: "it is too complex to read in the time allowed", Cause: errPDFClock}
	}
}

// readPDF does the extraction; it must only run under extractPDF's timeout.
func readPDF(data []byte, soft time.Duration) (text string, pages int, truncated bool, err error) {
	br := &budgetReader{data: data, head: pdfHeader(data), deadline: time.Now().Add(soft)}
	x := &pdfText{br: br}
	defer func() {
		if r := recover(); r != nil {
			text, pages, truncated = "", 0, false
			err = pdfFailure(fmt.Errorf("panic: %v", r), br)
		}
	}()
	// Producers may append bytes after the final %%EOF; the library only
	// looks for it in the last 100 bytes.
	size := int64(len(data))
	if i := bytes.LastIndex(data, []byte("%%EOF")); i >= 0 {
		size = int64(i + len("%%EOF"))
	}
	r, err := pdf.NewReader(br, size)
	if err != nil {
		return "", 0, false, pdfFailure(err, br)
	}
	if err := checkXrefChains(r); err != nil {
		return "", 0, false, &PDFError{Reason: "it is damaged or uses features we cannot read", Cause: err}
	}
	encrypted := r.Trailer().Key("Encrypt").Kind() != pdf.Null
	kids, more := collectPages(r)
	pages = max(len(kids), int(min(max(r.NumPage(), 0), 1<<20)))
	truncated = more
	var firstErr error
	for i, p := range kids {
		if i > 0 {
			x.write("\n\n")
		}
		stop, err := x.page(pdf.Page{V: p})
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if stop {
			truncated = true
			break
		}
	}
	text = strings.TrimSpace(x.b.String())
	if text == "" {
		if encrypted && br.stopped == nil {
			// The library opened it with the empty user password but could
			// not decrypt it (it mishandles 40-bit RC4 keys, for one).
			return "", 0, false, &PDFError{Reason: "it is encrypted in a way we cannot read; save or print it as an unencrypted PDF and upload that", Cause: firstErr}
		}
		if firstErr != nil || br.stopped != nil {
			return "", 0, false, pdfFailure(firstErr, br)
		}
		return "", 0, false, &PDFError{Reason: "it has no text layer (scanned pages or images need OCR; paste the text instead)"}
	}
	return text, pages, truncated, nil
}

// checkXrefChains refuses a cross-reference table in which an object is
// stored in an object stream that is itself stored in an object stream. The
// spec forbids it, and the library would resolve such a chain by unbounded
// recursion (a fatal stack overflow, which recover cannot catch). The table
// is unexported, so it is read with reflect; if the library's layout ever
// changes this fails closed, and the PDF tests fail with it.
func checkXrefChains(r *pdf.Reader) error {
	xref := reflect.ValueOf(r).Elem().FieldByName("xref")
	if xref.Kind() != reflect.Slice {
		return errors.New("cannot inspect the cross-reference table")
	}
	entry := func(i int) (inStream bool, stream uint64, ok bool) {
		e := xref.Index(i)
		in, strm := e.FieldByName("inStream"), e.FieldByName("stream").FieldByName("id")
		if in.Kind() != reflect.Bool || strm.Kind() != reflect.Uint32 {
			return false, 0, false
		}
		return in.Bool(), strm.Uint(), true
	}
	for i := 0; i < xref.Len(); i++ {
		in, strm, ok := entry(i)
		if !ok {
			return errors.New("cannot inspect the cross-reference table")
		}
		if !in || strm >= uint64(xref.Len()) {
			continue
		}
		if nested, _, _ := entry(int(strm)); nested {
			return fmt.Errorf("object %d is in object stream %d, which is itself in an object stream", i, strm)
		}
	}
	return nil
}

// pdfFailure turns a library error into a PDFError a student can act on.
func pdfFailure(err error, br *budgetReader) error {
	switch {
	case br.stopped != nil:
		cause := br.stopped
		if err != nil {
			cause = fmt.Errorf("%w: %v", cause, err)
		}
		return &PDFError{Reason: "it is too complex to read in the time allowed", Cause: cause}
	case errors.Is(err, pdf.ErrInvalidPassword) || err != nil && strings.Contains(strings.ToLower(err.Error()), "encrypt"):
		return &PDFError{Reason: "it is password protected; remove the password and upload it again", Cause: err}
	default:
		return &PDFError{Reason: "it is damaged or uses features we cannot read", Cause: err}
	}
}

// collectPages walks the page tree depth-first, in document order, and
// returns up to MaxPDFPages page dictionaries; more reports a further page.
// The walk is ours because the library's Page(n) loops forever on a tree
// whose Kids point back up, and costs O(n) per page.
func collectPages(r *pdf.Reader) (pages []pdf.Value, more bool) {
	root := r.Trailer().Key("Root").Key("Pages")
	if root.Key("Kids").Kind() != pdf.Array {
		if root.Kind() == pdf.Dict { // a lone page as the root: broken, but readable
			return []pdf.Value{root}, false
		}
		return nil, false
	}
	type frame struct {
		kids pdf.Value
		next int
	}
	stack := []frame{{kids: root.Key("Kids")}}
	for visited := 0; len(stack) > 0 && visited < pdfMaxTreeNodes; {
		top := &stack[len(stack)-1]
		if top.next >= top.kids.Len() {
			stack = stack[:len(stack)-1]
			continue
		}
		kid := top.kids.Index(top.next)
		top.next++
		visited++
		if kids := kid.Key("Kids"); kids.Kind() == pdf.Array {
			if len(stack) < pdfMaxTreeDepth {
				stack = append(stack, frame{kids: kids})
			}
			continue
		}
		if kid.Kind() != pdf.Dict {
			continue
		}
		if len(pages) == MaxPDFPages {
			return pages, true
		}
		pages = append(pages, kid)
	}
	return pages, false
}
