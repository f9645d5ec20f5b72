package exporter

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"

	"aula/content/importer"
	"aula/models"
)

// lessonHeader is a lesson's front matter, in the order the demo files use.
type lessonHeader struct {
	Kind            string   `yaml:"kind"`
	ID              string   `yaml:"id"`
	Path            string   `yaml:"path"`
	PathTitle       string   `yaml:"path_title"`
	PathDescription string   `yaml:"path_description"`
	PathPosition    int      `yaml:"path_position"`
	Module          string   `yaml:"module"`
	ModuleTitle     string   `yaml:"module_title"`
	ModulePosition  int      `yaml:"module_position"`
	Title           string   `yaml:"title"`
	Summary         string   `yaml:"summary"`
	Position        int      `yaml:"position"`
	Language        string   `yaml:"language"`
	Status          string   `yaml:"status,omitempty"`
	Suggestions     []string `yaml:"suggestions"`
}

// helpHeader is a help article's front matter.
type helpHeader struct {
	Kind     string `yaml:"kind"`
	ID       string `yaml:"id"`
	Title    string `yaml:"title"`
	Language string `yaml:"language"`
	Position int    `yaml:"position"`
}

// lessonFile is a lesson's Markdown file: its front matter (status only
// for a lesson students do not see) and its text as stored.
func lessonFile(l models.ExportedLesson) []byte {
	h := lessonHeader{Kind: "lesson", ID: l.ID, Path: l.PathSlug, PathTitle: l.PathTitle,
		PathDescription: l.PathDescription, PathPosition: l.PathPosition, Module: l.ModuleSlug,
		ModuleTitle: l.ModuleTitle, ModulePosition: l.ModulePosition, Title: l.Title, Summary: l.Summary,
		Position: l.Position, Language: l.Language, Suggestions: []string(l.Suggestions)}
	if h.Suggestions == nil {
		h.Suggestions = []string{}
	}
	if l.Status != models.StatusPublished {
		h.Status = l.Status
	}
	return withHeader(h, l.ContentMD)
}

// helpFile is a help article's Markdown file.
func helpFile(a models.ExportedHelp) []byte {
	return withHeader(helpHeader{Kind: "help", ID: a.ID, Title: a.Title, Language: a.Language, Position: a.Position}, a.ContentMD)
}

// withHeader is the front matter between '---' lines, then the body as the
// importer keeps it (everything after the closing line).
func withHeader(h any, body string) []byte {
	var buf bytes.Buffer
	buf.WriteString("---\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(h); err != nil {
		// A struct of strings, ints and a list always encodes.
		panic(fmt.Sprintf("front matter: %v", err))
	}
	enc.Close()
	buf.WriteString("---\n")
	buf.WriteString(body)
	return buf.Bytes()
}

// namer gives each file its name: the one it was imported from when it is
// a safe, unused name of a Markdown file, otherwise one from its place in
// the catalog; never twice the same.
type namer struct{ used map[string]bool }

func (n namer) lesson(l models.ExportedLesson) string {
	return n.pick(l.SourceFile, fmt.Sprintf("lessons/%s/%s/%02d-%s", l.PathSlug, l.ModuleSlug, l.Position, l.ID))
}

func (n namer) help(a models.ExportedHelp) string {
	return n.pick(a.SourceFile, "help/"+a.ID)
}

func (n namer) pick(source, canonical string) string {
	name := source
	if !n.fits(name) {
		name = canonical + ".md"
		for i := 2; n.used[name]; i++ {
			name = fmt.Sprintf("%s-%d.md", canonical, i)
		}
	}
	n.used[name] = true
	return name
}

// fits reports a source file name the importer would read back as the
// same file: a safe name (importer.SafeName) of a Markdown file, not a
// README, not under media/, not one a zip's reader skips.
func (n namer) fits(name string) bool {
	return importer.SafeName(name) && strings.HasSuffix(name, ".md") && !strings.EqualFold(path.Base(name), "README.md") &&
		!strings.HasPrefix(name, "media/") && !strings.HasPrefix(name, "__MACOSX/") &&
		!strings.HasPrefix(path.Base(name), "._") && !n.used[name]
}
