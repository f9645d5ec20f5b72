// Package importer reads lesson and help files (Markdown with a YAML front
// matter) and hands them, parsed and cut into sections, to the content
// store. `aula seed` imports the embedded demo content through it and
// `aula content import DIR` a directory.
package importer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"aula/models"
)

// Error is a content file that could not be imported, with where.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Report says what an import did.
type Report struct {
	Lessons, HelpArticles, Images, Unchanged int
	Errors                                   []Error
}

// Summary is the report in figures, as the audit log keeps it.
func (r Report) Summary() string {
	s := fmt.Sprintf("%d lessons, %d help articles, %d unchanged, %d errors", r.Lessons, r.HelpArticles, r.Unchanged, len(r.Errors))
	if r.Images > 0 {
		s += fmt.Sprintf(", %d images", r.Images)
	}
	return s
}

// ImportAs is Import by someone (an admin, or the shell's `aula content
// import` with no account), written to the content audit log with subject
// (the folder or the zip's name) and the report's figures.
func ImportAs(ctx context.Context, store *models.Content, fsys fs.FS, who models.Actor, subject string) (Report, error) {
	rep, err := importAll(ctx, store, fsys, who.ID)
	if err != nil {
		return rep, err
	}
	return rep, store.RecordContent(ctx, who, models.AuditImport, subject, rep.Summary())
}

// Import loads every *.md file under fsys into store: lessons (with their
// path and module) and help articles. It is idempotent: files are keyed by
// their ids, and unchanged files are not rewritten. A bad file is reported
// in the report with its line and the others still import. Suggestions in
// a file are only the initial ones: once a lesson has suggestions (perhaps
// edited by an admin) a re-import keeps them.
func Import(ctx context.Context, store *models.Content, fsys fs.FS) (Report, error) {
	return importAll(ctx, store, fsys, "")
}

// importAll is Import, each lesson version written as authorID's ("" for none).
func importAll(ctx context.Context, store *models.Content, fsys fs.FS, authorID string) (Report, error) {
	var rep Report
	files, media, err := contentFiles(fsys)
	if err != nil {
		return rep, err
	}
	if err := importMedia(ctx, store, fsys, media, &rep); err != nil {
		return rep, err
	}
	for _, f := range files {
		src, err := fs.ReadFile(fsys, f)
		if err != nil {
			rep.Errors = append(rep.Errors, Error{File: f, Msg: err.Error()})
			continue
		}
		fm, body, ierr := parseFile(src)
		if ierr != nil {
			ierr.File = f
			rep.Errors = append(rep.Errors, *ierr)
			continue
		}
		changed, err := save(ctx, store, f, fm, body, authorID)
		if taken, ok := errors.AsType[*models.LessonIDTakenError](err); ok {
			rep.Errors = append(rep.Errors, Error{File: f, Line: fm.IDLine, Msg: taken.Error()})
			continue
		}
		if err != nil {
			return rep, fmt.Errorf("import %s: %w", f, err)
		}
		switch {
		case !changed:
			rep.Unchanged++
		case fm.Kind == "help":
			rep.HelpArticles++
		default:
			rep.Lessons++
		}
	}
	return rep, nil
}

// contentFiles lists the *.md files of fsys but READMEs, and the images
// under media/, sorted.
func contentFiles(fsys fs.FS) (files, media []string, err error) {
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
		case path.Dir(p) == "media" && imageExt(p) != "":
			media = append(media, p)
		case strings.HasSuffix(p, ".md") && !strings.EqualFold(path.Base(p), "README.md"):
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list content: %w", err)
	}
	sort.Strings(files)
	sort.Strings(media)
	return files, media, nil
}

// save hands one parsed file to the store; it reports whether anything changed.
func save(ctx context.Context, store *models.Content, file string, fm *FrontMatter, body, authorID string) (bool, error) {
	hash := models.ContentHash(fm.Title, fm.Summary, body)
	chunks := models.LessonSections(fm.Title, body)
	if fm.Kind == "help" {
		return store.SaveHelpArticle(ctx, models.HelpArticle{ID: fm.ID, Title: fm.Title, Language: fm.Language,
			Position: fm.Position, ContentMD: body, ContentHash: hash, SourceFile: file}, chunks)
	}
	return store.SaveLesson(ctx, models.LessonImport{
		Lesson: models.Lesson{ID: fm.ID, Title: fm.Title, Summary: fm.Summary, Position: fm.Position,
			Language: fm.Language, ContentMD: body, ContentHash: hash, SourceFile: file},
		Path: models.Path{Slug: fm.Path, Title: fm.PathTitle, Description: fm.PathDescription,
			Language: fm.Language, Position: fm.PathPosition},
		Module:      models.Module{Slug: fm.Module, Title: fm.ModuleTitle, Position: fm.ModulePosition},
		Suggestions: fm.Suggestions,
		Chunks:      chunks,
		Status:      fm.Status,
		AuthorID:    authorID,
	})
}
