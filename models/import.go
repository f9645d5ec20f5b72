package models

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"aula/markdown"
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
	// IDLine is the line of the id field, for errors found after parsing.
	IDLine int `yaml:"-"`
}

// ImportError is a content file that could not be imported, with where.
type ImportError struct {
	File string
	Line int
	Msg  string
}

func (e ImportError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ImportReport says what an import did.
type ImportReport struct {
	Lessons, HelpArticles, Unchanged int
	Errors                           []ImportError
}

var (
	slugRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	// yaml.v3 errors say "line N: ..." relative to the front matter.
	yamlLineRE = regexp.MustCompile(`line (\d+)`)
)

// Import loads every *.md file under fsys: lessons (with their path and
// module) and help articles. It is idempotent: files are keyed by their
// ids, and unchanged files are not rewritten. A bad file is reported in
// the report with its line and the others still import. Suggestions in a
// file are only the initial ones: once a lesson has suggestions (perhaps
// edited by an admin) a re-import keeps them.
func (s *Content) Import(ctx context.Context, fsys fs.FS) (ImportReport, error) {
	var rep ImportReport
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.EqualFold(path.Base(p), "README.md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("list content: %w", err)
	}
	sort.Strings(files)
	for _, f := range files {
		src, err := fs.ReadFile(fsys, f)
		if err != nil {
			rep.Errors = append(rep.Errors, ImportError{File: f, Msg: err.Error()})
			continue
		}
		fm, body, ierr := parseContentFile(src)
		if ierr != nil {
			ierr.File = f
			rep.Errors = append(rep.Errors, *ierr)
			continue
		}
		changed, err := s.importOne(ctx, f, fm, body)
		var ie *ImportError
		switch {
		case errors.As(err, &ie):
			ie.File = f
			rep.Errors = append(rep.Errors, *ie)
			continue
		case err != nil:
			return rep, fmt.Errorf("import %s: %w", f, err)
		}
		if !changed {
			rep.Unchanged++
		} else if fm.Kind == "help" {
			rep.HelpArticles++
		} else {
			rep.Lessons++
		}
	}
	return rep, nil
}

// parseContentFile splits the front matter from the body and validates it.
func parseContentFile(src []byte) (*FrontMatter, string, *ImportError) {
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(src, []byte("---\n")) {
		return nil, "", &ImportError{Line: 1, Msg: "missing front matter: the file must start with a line '---'"}
	}
	rest := src[4:]
	end := bytes.Index(rest, []byte("\n---\n"))
	if end < 0 {
		if bytes.HasSuffix(rest, []byte("\n---")) {
			end = len(rest) - 4
		} else {
			return nil, "", &ImportError{Line: 1, Msg: "front matter is not closed by a line '---'"}
		}
	}
	header, body := rest[:end+1], ""
	if end+5 <= len(rest) {
		body = string(rest[end+5:])
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
		return nil, "", &ImportError{Line: line, Msg: "front matter: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	line := func(key string) int {
		for i, l := range strings.Split(string(header), "\n") {
			if strings.HasPrefix(l, key+":") {
				return i + 2
			}
		}
		return 1
	}
	bad := func(key, msg string) *ImportError { return &ImportError{Line: line(key), Msg: msg} }
	fm.IDLine = line("id")
	if fm.Kind != "lesson" && fm.Kind != "help" {
		return nil, "", bad("kind", fmt.Sprintf("kind must be lesson or help, not %q", fm.Kind))
	}
	if !slugRE.MatchString(fm.ID) {
		return nil, "", bad("id", fmt.Sprintf("id %q must be lowercase letters, digits and '-'", fm.ID))
	}
	if strings.TrimSpace(fm.Title) == "" {
		return nil, "", bad("title", "title is required")
	}
	if fm.Language != "en" && fm.Language != "es" {
		return nil, "", bad("language", fmt.Sprintf("language must be en or es, not %q", fm.Language))
	}
	if strings.TrimSpace(body) == "" {
		return nil, "", &ImportError{Line: bytes.Count(header, []byte("\n")) + 3, Msg: "the lesson has no text"}
	}
	if fm.Kind == "lesson" {
		if !slugRE.MatchString(fm.Path) {
			return nil, "", bad("path", fmt.Sprintf("path %q must be a slug", fm.Path))
		}
		if !slugRE.MatchString(fm.Module) {
			return nil, "", bad("module", fmt.Sprintf("module %q must be a slug", fm.Module))
		}
		if fm.PathTitle == "" || fm.ModuleTitle == "" {
			return nil, "", bad("path_title", "path_title and module_title are required")
		}
		if len(fm.Suggestions) > 3 {
			return nil, "", bad("suggestions", "at most three suggestions")
		}
		for _, sg := range fm.Suggestions {
			if l := len([]rune(strings.TrimSpace(sg))); l == 0 || l > 200 {
				return nil, "", bad("suggestions", "each suggestion must have 1 to 200 characters")
			}
		}
	}
	return &fm, body, nil
}

func hashText(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// importOne writes one parsed file in a transaction; it reports whether anything changed.
func (s *Content) importOne(ctx context.Context, file string, fm *FrontMatter, body string) (bool, error) {
	hash := hashText(fm.Title + "\x00" + fm.Summary + "\x00" + body)
	changed := false
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		if fm.Kind == "help" {
			var cur HelpArticle
			if err := tx.Where("id = ?", fm.ID).Take(&cur).Error; err == nil && cur.ContentHash == hash &&
				cur.Language == fm.Language && cur.Position == fm.Position {
				return nil
			}
			changed = true
			a := HelpArticle{ID: fm.ID, Title: fm.Title, Language: fm.Language, Position: fm.Position,
				ContentMD: body, ContentHash: hash, SourceFile: file}
			if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&a).Error; err != nil {
				return fmt.Errorf("upsert help article: %w", err)
			}
			return replaceChunks(tx, "help_chunks", "article_id", fm.ID, fm.Title, body)
		}

		var other Lesson
		if err := tx.Select("id, source_file").Where("id = ? AND source_file <> ? AND source_file <> ''", fm.ID, file).
			Take(&other).Error; err == nil {
			return &ImportError{Line: fm.IDLine, Msg: fmt.Sprintf("lesson id %q is already used by %s", fm.ID, other.SourceFile)}
		}
		p := Path{Slug: fm.Path, Title: fm.PathTitle, Description: fm.PathDescription, Language: fm.Language, Position: fm.PathPosition}
		if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "slug"}},
			DoUpdates: clause.AssignmentColumns([]string{"title", "description", "language", "position"})}).
			Create(&p).Error; err != nil {
			return fmt.Errorf("upsert path: %w", err)
		}
		if p.ID == 0 {
			tx.Model(&Path{}).Where("slug = ?", fm.Path).Pluck("id", &p.ID)
		}
		m := Module{PathID: p.ID, Slug: fm.Module, Title: fm.ModuleTitle, Position: fm.ModulePosition}
		if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "path_id"}, {Name: "slug"}},
			DoUpdates: clause.AssignmentColumns([]string{"title", "position"})}).Create(&m).Error; err != nil {
			return fmt.Errorf("upsert module: %w", err)
		}
		if m.ID == 0 {
			tx.Model(&Module{}).Where("path_id = ? AND slug = ?", p.ID, fm.Module).Pluck("id", &m.ID)
		}
		var cur Lesson
		same := tx.Select("id, module_id, content_hash, position, language").Where("id = ?", fm.ID).Take(&cur).Error == nil &&
			cur.ContentHash == hash && cur.ModuleID == m.ID && cur.Position == fm.Position && cur.Language == fm.Language
		if !same {
			changed = true
			l := Lesson{ID: fm.ID, ModuleID: m.ID, Title: fm.Title, Summary: fm.Summary, Position: fm.Position,
				Language: fm.Language, ContentMD: body, ContentHash: hash, SourceFile: file}
			if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&l).Error; err != nil {
				return fmt.Errorf("upsert lesson: %w", err)
			}
			if err := replaceChunks(tx, "lesson_chunks", "lesson_id", fm.ID, fm.Title, body); err != nil {
				return err
			}
		}
		for i, text := range fm.Suggestions {
			sg := Suggestion{LessonID: fm.ID, Position: i + 1, Text: strings.TrimSpace(text)}
			if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&sg).Error; err != nil {
				return fmt.Errorf("insert suggestion: %w", err)
			}
		}
		return nil
	})
	return changed, err
}

// replaceChunks rewrites the chunks of one lesson or article from its Markdown.
func replaceChunks(tx *gorm.DB, table, owner, id, title, body string) error {
	if err := tx.Exec("DELETE FROM "+table+" WHERE "+owner+" = ?", id).Error; err != nil {
		return fmt.Errorf("delete chunks: %w", err)
	}
	chunks := markdown.Chunks(title, body)
	if len(chunks) == 0 {
		return nil
	}
	rows := make([]map[string]any, 0, len(chunks))
	for i, c := range chunks {
		rows = append(rows, map[string]any{owner: id, "position": i, "heading": c.Heading,
			"anchor": c.Anchor, "text": c.Text, "hash": hashText(c.Text)})
	}
	if err := tx.Table(table).Create(rows).Error; err != nil {
		return fmt.Errorf("insert chunks: %w", err)
	}
	return nil
}
