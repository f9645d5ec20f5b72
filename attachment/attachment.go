// Package attachment turns a file a student attached to a tutor question into
// bounded, clean text that can be placed in that turn's prompt.
//
// The type of a file is decided by its content, never by its name: a name
// can say anything, and what matters for the prompt is whether the bytes are
// text we can read. So a PNG called notes.txt is refused, and UTF-8 text
// called report.pdf is accepted as text/plain. The name only refines the
// reported MIME type of content that is already known to be text (notes.md
// becomes text/markdown, main.go text/x-go).
//
// Decisions worth knowing:
//   - Text must be valid UTF-8 (a leading BOM is stripped) with no control
//     characters other than tab, newline and carriage return; anything else
//     is treated as binary and refused. Line endings are normalised to "\n"
//     in Text (SHA256 is always of the bytes as uploaded).
//   - JSON: a file named *.json must parse, or it is refused (its parse
//     error is in the message, so the student can see what is wrong). A file
//     with no more specific name whose content starts with '{' or '[' and
//     parses as JSON is reported as application/json; if it does not parse it
//     is simply text/plain, since INI sections, TOML tables and Markdown
//     links also start with '['.
//   - PDF: the content must start with "%PDF-". At most MaxPDFPages pages
//     are read and at most MaxTextChars characters kept; a PDF that cannot
//     be parsed, is password protected or has no text layer (a scan) is
//     refused with ErrUnreadablePDF.
//   - Every extraction is bounded: files over MaxSize are refused before
//     any parsing, and PDF parsing runs under a read budget and a deadline
//     (see pdf.go), because the PDF library is not hardened against hostile
//     files.
package attachment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSize is the largest accepted upload in bytes; bigger files are refused before any parsing.
const MaxSize = 5 << 20

// MaxTextChars caps the characters (runes) kept in File.Text, so one attachment cannot crowd out the prompt.
const MaxTextChars = 100_000

// MaxPDFPages caps how many PDF pages are read, bounding the time spent on one upload.
const MaxPDFPages = 30

// MaxFilenameChars caps the cleaned filename length in characters, extension included.
const MaxFilenameChars = 200

// Accepted describes, for error messages and UI hints, which files Extract accepts.
const Accepted = "plain text, Markdown, CSV, JSON, source code (UTF-8 text) and PDF"

// ErrEmpty is returned for a zero-byte file, which has nothing to add to a prompt.
var ErrEmpty = errors.New("attachment: the file is empty")

// ErrTooLarge is returned for files over MaxSize, before any parsing is attempted.
var ErrTooLarge = fmt.Errorf("attachment: the file is larger than %d MiB", MaxSize>>20)

// ErrUnsupportedType is matched (errors.Is) by every *TypeError, for callers that only need the category.
var ErrUnsupportedType = errors.New("attachment: unsupported file type")

// ErrUnreadablePDF is matched (errors.Is) by every *PDFError, for callers that only need the category.
var ErrUnreadablePDF = errors.New("attachment: unreadable PDF")

// TypeError says why content was refused, so the message can tell the student what to upload instead.
type TypeError struct {
	Detected string // what the content looks like, e.g. "image/png" or "binary data"
	Reason   string // optional detail, e.g. the JSON parse error
}

// Error names what was detected and lists what is accepted.
func (e *TypeError) Error() string {
	msg := "attachment: unsupported file type (" + e.Detected
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg + "); accepted: " + Accepted
}

// Unwrap lets errors.Is(err, ErrUnsupportedType) match.
func (e *TypeError) Unwrap() error { return ErrUnsupportedType }

// PDFError says why a PDF gave no text, in words a student can act on.
type PDFError struct {
	Reason string // for the student, e.g. "it is password protected; ..."
	Cause  error  // the library's detail, for logs; not shown in Error
}

// Error includes the reason, e.g. that the PDF is password protected.
func (e *PDFError) Error() string { return "attachment: unreadable PDF: " + e.Reason }

// Unwrap lets errors.Is(err, ErrUnreadablePDF) match.
func (e *PDFError) Unwrap() error { return ErrUnreadablePDF }

// File is an accepted attachment with its text ready for a prompt.
type File struct {
	Filename  string // cleaned base name, safe to store; still needs escaping in HTML
	Mime      string // decided from the content, refined by the extension for text
	Size      int    // bytes as uploaded
	SHA256    string // hex digest of the bytes as uploaded, for de-duplication and audit
	Text      string // extracted text, valid UTF-8, at most MaxTextChars characters
	Pages     int    // page count for PDFs (the whole document, not only the pages read); 0 otherwise
	Truncated bool   // Text stops before the end of the file (character or page cap)
}

// Extract checks data by its content and returns its text, or a typed error saying why it was refused.
func Extract(filename string, data []byte) (*File, error) {
	return extract(filename, data, productionClock)
}

// extract is Extract with the time a PDF may take as a parameter, so that
// tests can make the clock a hang guard only (see pdfClock).
func extract(filename string, data []byte, clock pdfClock) (*File, error) {
	if len(data) == 0 {
		return nil, ErrEmpty
	}
	if len(data) > MaxSize {
		return nil, ErrTooLarge
	}
	sum := sha256.Sum256(data)
	f := &File{
		Filename: CleanFilename(filename),
		Size:     len(data),
		SHA256:   hex.EncodeToString(sum[:]),
	}
	if bytes.HasPrefix(data, []byte("%PDF-")) {
		text, pages, truncated, err := extractPDF(data, clock)
		if err != nil {
			return nil, err
		}
		f.Mime, f.Text, f.Pages, f.Truncated = "application/pdf", text, pages, truncated
		return f, nil
	}
	if kind := binaryKind(data); kind != "" {
		return nil, &TypeError{Detected: kind}
	}
	body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := checkText(body); err != nil {
		return nil, err
	}
	mime, err := textMime(f.Filename, body)
	if err != nil {
		return nil, err
	}
	f.Mime = mime
	f.Text, f.Truncated = capRunes(normalizeNewlines(string(body)), MaxTextChars)
	return f, nil
}

// magic lists signatures of common binary formats, so the refusal can name
// the format. Content sniffing alone would also refuse these (they are not
// valid control-free UTF-8), but "image/png" is a more useful message than
// "binary data".
var magic = []struct {
	prefix string
	kind   string
}{
	{"\x89PNG\r\n\x1a\n", "image/png"},
	{"\xff\xd8\xff", "image/jpeg"},
	{"GIF87a", "image/gif"},
	{"GIF89a", "image/gif"},
	{"PK\x03\x04", "application/zip (also .docx, .xlsx, .pptx, .odt, .jar)"},
	{"PK\x05\x06", "application/zip"},
	{"\x7fELF", "application/x-executable (ELF)"},
	{"\x1f\x8b", "application/gzip"},
	{"BZh", ""}, // checked below: "BZh" alone is a valid start of text
	{"\xfd7zXZ\x00", "application/x-xz"},
	{"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"},
	{"Rar!\x1a\x07", "application/vnd.rar"},
	{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/x-ole-storage (old .doc, .xls, .ppt)"},
	{"MZ", ""}, // checked below: "MZ" alone is a valid start of text
	{"\xcf\xfa\xed\xfe", "application/x-mach-binary"},
	{"\xfe\xed\xfa\xcf", "application/x-mach-binary"},
	{"\xca\xfe\xba\xbe", "application/java-vm or Mach-O"},
	{"\x00asm", "application/wasm"},
	{"SQLite format 3\x00", "application/vnd.sqlite3"},
	{"%!PS-Adobe-", "application/postscript"},
	{"{\\rtf", "application/rtf"},
}

// binaryKind returns a description of data if it is a known non-text format, or "".
func binaryKind(data []byte) string {
	for _, m := range magic {
		if m.kind != "" && bytes.HasPrefix(data, []byte(m.prefix)) {
			return m.kind
		}
	}
	// PE executables: "MZ" then, at the offset stored at 0x3c, "PE\0\0".
	if len(data) >= 0x40 && bytes.HasPrefix(data, []byte("MZ")) {
		off := int(data[0x3c]) | int(data[0x3d])<<8 | int(data[0x3e])<<16 | int(data[0x3f])<<24
		if off >= 0 && off+4 <= len(data) && string(data[off:off+4]) == "PE\x00\x00" {
			return "application/x-msdownload (executable)"
		}
	}
	if len(data) >= 10 && bytes.HasPrefix(data, []byte("BZh")) && data[3] >= '1' && data[3] <= '9' &&
		string(data[4:10]) == "1AY&SY" {
		return "application/x-bzip2"
	}
	// http.DetectContentType knows more formats (audio, video, fonts, images).
	// Its text/* answers and its "don't know" are left to checkText.
	ct := http.DetectContentType(data)
	if strings.HasPrefix(ct, "text/") || strings.HasPrefix(ct, "application/octet-stream") {
		return ""
	}
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return ct
}

// checkText refuses content that is not clean UTF-8 text: we only put text in
// prompts, and binary that happens to be valid UTF-8 is still not text.
func checkText(b []byte) error {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				if c == 0 {
					return &TypeError{Detected: "binary data", Reason: "contains NUL bytes"}
				}
				return &TypeError{Detected: "binary data", Reason: fmt.Sprintf("contains control character 0x%02x at byte %d", c, i)}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return &TypeError{Detected: "non-UTF-8 data", Reason: fmt.Sprintf("invalid UTF-8 at byte %d; save the file as UTF-8", i)}
		}
		if unicode.IsControl(r) { // C1 controls (U+0080-U+009F)
			return &TypeError{Detected: "binary data", Reason: fmt.Sprintf("contains control character U+%04X at byte %d", r, i)}
		}
		i += n
	}
	return nil
}

// textMime names text content, using the extension only as a refinement of
// content already known to be text.
func textMime(filename string, body []byte) (string, error) {
	ext := strings.ToLower(path.Ext(filename))
	if ext == ".json" {
		if err := validJSON(body); err != nil {
			return "", &TypeError{Detected: "invalid JSON", Reason: err.Error()}
		}
		return "application/json", nil
	}
	if m, ok := textTypes[ext]; ok {
		return m, nil
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && validJSON(body) == nil {
		return "application/json", nil
	}
	return "text/plain", nil
}

// validJSON reports the first JSON syntax error with its offset, for the student.
func validJSON(b []byte) error {
	if json.Valid(b) {
		return nil
	}
	var v any
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%v at byte %d", se, se.Offset)
	}
	if err == nil {
		err = errors.New("not valid JSON")
	}
	return err
}

// textTypes maps extensions to the MIME type reported for text content.
var textTypes = map[string]string{
	".txt": "text/plain", ".text": "text/plain", ".log": "text/plain",
	".md": "text/markdown", ".markdown": "text/markdown",
	".csv": "text/csv", ".tsv": "text/tab-separated-values",
	".go": "text/x-go", ".py": "text/x-python",
	".js": "text/javascript", ".mjs": "text/javascript", ".cjs": "text/javascript", ".jsx": "text/javascript",
	".ts": "text/x-typescript", ".tsx": "text/x-typescript",
	".java": "text/x-java", ".kt": "text/x-kotlin", ".scala": "text/x-scala", ".swift": "text/x-swift",
	".c": "text/x-c", ".h": "text/x-c",
	".cpp": "text/x-c++", ".cc": "text/x-c++", ".cxx": "text/x-c++", ".hpp": "text/x-c++", ".hh": "text/x-c++",
	".cs": "text/x-csharp", ".rs": "text/x-rust", ".rb": "text/x-ruby", ".php": "text/x-php",
	".sh": "text/x-shellscript", ".bash": "text/x-shellscript", ".zsh": "text/x-shellscript",
	".ps1": "text/x-powershell", ".sql": "text/x-sql", ".r": "text/x-r", ".jl": "text/x-julia",
	".lua": "text/x-lua", ".pl": "text/x-perl", ".hs": "text/x-haskell", ".ex": "text/x-elixir",
	".exs": "text/x-elixir", ".erl": "text/x-erlang", ".dart": "text/x-dart", ".m": "text/x-objc",
	".yaml": "text/yaml", ".yml": "text/yaml", ".toml": "text/x-toml", ".ini": "text/plain", ".cfg": "text/plain",
	".xml": "text/xml", ".html": "text/html", ".htm": "text/html", ".css": "text/css",
	".scss": "text/x-scss", ".vue": "text/x-source", ".svelte": "text/x-source",
	".tex": "text/x-tex", ".bib": "text/x-bibtex", ".rst": "text/x-rst", ".org": "text/plain",
	".proto": "text/x-source", ".graphql": "text/x-source", ".dockerfile": "text/x-source",
	".makefile": "text/x-source", ".mk": "text/x-source", ".asm": "text/x-asm", ".s": "text/x-asm",
}

// normalizeNewlines turns CRLF and lone CR into LF: fewer tokens, one convention.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// capRunes cuts s to at most max runes, on a rune boundary.
func capRunes(s string, max int) (string, bool) {
	if len(s) <= max { // bytes >= runes, so this is a cheap exact test
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// CleanFilename reduces an uploaded name to a safe base name: no directories,
// no "..", no NUL, control or invisible formatting characters (which can
// disguise an extension), at most MaxFilenameChars characters with the
// extension kept. An empty result becomes "attachment". HTML escaping is
// left to the views.
func CleanFilename(name string) string {
	name = strings.ToValidUTF8(name, "")
	name = strings.ReplaceAll(name, "\\", "/") // Windows paths from some browsers
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r == '\t' || unicode.IsSpace(r) && !unicode.IsControl(r) {
			return ' '
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, name)
	for strings.Contains(name, "..") {
		name = strings.ReplaceAll(name, "..", ".")
	}
	name = strings.Trim(name, " ")
	name = strings.TrimRight(name, ".") // Windows drops trailing dots; "." alone is no name
	if utf8.RuneCountInString(name) > MaxFilenameChars {
		ext := path.Ext(name)
		if utf8.RuneCountInString(ext) > 20 { // not a real extension
			ext = ""
		}
		stem, _ := capRunes(strings.TrimSuffix(name, ext), MaxFilenameChars-utf8.RuneCountInString(ext))
		name = strings.TrimRight(stem, " .") + ext
	}
	if name == "" || name == "." {
		return "attachment"
	}
	return name
}
