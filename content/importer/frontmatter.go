package importer

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// FrontMatter is the YAML header of a content file.
type FrontMatter struct {
	Kind            string   `yaml:"kind"` // lesson or help
	ID              string   `yaml:"id"`
	Title           string   `yaml:"title"`
	Summary         string   `yaml:"summary"`
	Language        string   `yaml:"language"`
	Position        int      `yaml:"position"`
	Path            string   `yaml:"path"`
	PathTitle       string   `yaml:"path_title"`
	PathDescription string   `yaml:"path_description"`
	PathPosition    int      `yaml:"path_position"`
	Module          string   `yaml:"module"`
	ModuleTitle     string   `yaml:"module_title"`
	ModulePosition  int      `yaml:"module_position"`
	Suggestions     []string `yaml:"suggestions"`
	// Status is draft or unpublished for a lesson saved as a version that
	// students do not see; absent (or published) publishes the file.
	Status string `yaml:"status"`
	// IDLine is the line of the id field, for errors found after parsing.
	IDLine int `yaml:"-"`
}

var (
	slugRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	// yaml.v3 errors say "line N: ..." relative to the front matter.
	yamlLineRE = regexp.MustCompile(`line (\d+)`)
)

// parseFile splits the front matter from the body and validates it.
func parseFile(src []byte) (*FrontMatter, string, *Error) {
	if ierr := badBytes(src); ierr != nil {
		return nil, "", ierr
	}
	header, body, ierr := splitFrontMatter(src)
	if ierr != nil {
		return nil, "", ierr
	}
	var fm FrontMatter
	dec := yaml.NewDecoder(bytes.NewReader(header))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil {
		line := 1
		if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
			fmt.Sscan(m[1], &line)
			line++ // the opening '---'
		}
		return nil, "", &Error{Line: line, Msg: "front matter: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	fm.IDLine = headerLine(header, "id")
	if ierr := fm.validate(header, body); ierr != nil {
		return nil, "", ierr
	}
	return &fm, body, nil
}

// badBytes refuses a file that is not text: invalid UTF-8 or a NUL byte,
// at the line where it first occurs.
func badBytes(src []byte) *Error {
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return &Error{Line: bytes.Count(src[:i], []byte("\n")) + 1, Msg: "the file is not valid UTF-8 text"}
		case r == 0:
			return &Error{Line: bytes.Count(src[:i], []byte("\n")) + 1, Msg: "the file contains a NUL byte"}
		}
		i += n
	}
	return nil
}

// splitFrontMatter cuts src into the YAML between the '---' lines and the body.
func splitFrontMatter(src []byte) (header []byte, body string, ierr *Error) {
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(src, []byte("---\n")) {
		return nil, "", &Error{Line: 1, Msg: "missing front matter: the file must start with a line '---'"}
	}
	rest := src[4:]
	end := bytes.Index(rest, []byte("\n---\n"))
	if end < 0 {
		if !bytes.HasSuffix(rest, []byte("\n---")) {
			return nil, "", &Error{Line: 1, Msg: "front matter is not closed by a line '---'"}
		}
		end = len(rest) - 4
	}
	header = rest[:end+1]
	if end+5 <= len(rest) {
		body = string(rest[end+5:])
	}
	return header, body, nil
}

// headerLine is the file line of key in the front matter (1 when absent).
func headerLine(header []byte, key string) int {
	for i, l := range strings.Split(string(header), "\n") {
		if strings.HasPrefix(l, key+":") {
			return i + 2
		}
	}
	return 1
}

// validate checks the fields every file needs, and a lesson's path, module
// and suggestions; the error points at the offending key's line.
func (fm *FrontMatter) validate(header []byte, body string) *Error {
	bad := func(key, msg string) *Error { return &Error{Line: headerLine(header, key), Msg: msg} }
	switch {
	case fm.Kind != "lesson" && fm.Kind != "help":
		return bad("kind", fmt.Sprintf("kind must be lesson or help, not %q", fm.Kind))
	case !slugRE.MatchString(fm.ID):
		return bad("id", fmt.Sprintf("id %q must be lowercase letters, digits and '-'", fm.ID))
	case strings.TrimSpace(fm.Title) == "":
		return bad("title", "title is required")
	case fm.Language != "en" && fm.Language != "es":
		return bad("language", fmt.Sprintf("language must be en or es, not %q", fm.Language))
	case fm.Status != "" && fm.Status != "published" && (fm.Kind != "lesson" || fm.Status != "draft" && fm.Status != "unpublished"):
		return bad("status", fmt.Sprintf("status must be draft, unpublished or published (lessons only), not %q", fm.Status))
	case strings.TrimSpace(body) == "" && !fm.hidden():
		return &Error{Line: bytes.Count(header, []byte("\n")) + 3, Msg: "the lesson has no text"}
	case fm.Kind != "lesson":
		return nil
	case !slugRE.MatchString(fm.Path):
		return bad("path", fmt.Sprintf("path %q must be a slug", fm.Path))
	case !slugRE.MatchString(fm.Module):
		return bad("module", fmt.Sprintf("module %q must be a slug", fm.Module))
	case fm.PathTitle == "" || fm.ModuleTitle == "":
		return bad("path_title", "path_title and module_title are required")
	case len(fm.Suggestions) > 3:
		return bad("suggestions", "at most three suggestions")
	}
	for _, sg := range fm.Suggestions {
		if l := len([]rune(strings.TrimSpace(sg))); l == 0 || l > 200 {
			return bad("suggestions", "each suggestion must have 1 to 200 characters")
		}
	}
	return nil
}

// hidden reports a lesson file saved as a version students do not see.
func (fm *FrontMatter) hidden() bool { return fm.Status == "draft" || fm.Status == "unpublished" }
