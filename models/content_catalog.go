package models

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Content audit actions of the catalog (beside publish, import and delete).
const (
	AuditCreate = "create"
	AuditRename = "rename"
	AuditMove   = "move"
)

// Bounds of what an author types into the catalog's forms.
const (
	MaxCatalogTitle       = 200
	MaxCatalogDescription = 2000
	MaxCatalogSlug        = 80
)

// Errors of the catalog's forms: the web door says each in the author's language.
var (
	ErrBadSlug       = errors.New("a slug is lowercase letters, digits and hyphens, starting with a letter or digit")
	ErrTitleRequired = errors.New("a title is required")
	ErrTitleTooLong  = errors.New("the title is too long")
	ErrDescTooLong   = errors.New("the description is too long")
	ErrBadLanguage   = errors.New("the language is English or Spanish")
	ErrBadTitle      = errors.New("a title holds no control characters")
)

// contentKey is the shape of lesson ids, path slugs and module slugs: the
// database's CHECK on lessons.id, and URL keys.
var contentKey = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// TakenError means a lesson id, path slug or module slug is already used:
// Kind is "lesson", "path" or "module", Title names who holds it and Path
// the path it is in (for a lesson or a module).
type TakenError struct{ Kind, Key, Title, Path string }

func (e *TakenError) Error() string {
	return fmt.Sprintf("%s %q is already used by %q", e.Kind, e.Key, e.Title)
}

// CatalogLesson is a lesson as the authors' catalog lists it: its status
// and its newest version's time and author ("" and Kind "import" for the
// importer; "" and another kind when the account is gone).
type CatalogLesson struct {
	ID, Title, Language, Status string
	ModuleID                    int64
	Position, Version           int
	EditedAt                    time.Time
	EditedBy, EditKind          string
}

// CatalogModule is a module with all its lessons, drafts included.
type CatalogModule struct {
	Module
	Lessons []CatalogLesson
}

// CatalogPath is a path with all its modules; Visible is whether students
// see it (a module of it has a published lesson).
type CatalogPath struct {
	Path
	Modules []CatalogModule
	Visible bool
}

// AuthorsCatalog is everything the authors' catalog page lists.
type AuthorsCatalog struct {
	Paths []CatalogPath
	Help  []HelpArticleRow
}

// HelpArticleRow is a help article as the catalog lists it.
type HelpArticleRow struct {
	ID, Title, Language, Status string
	Position                    int
	UpdatedAt                   time.Time
}

// AuthorsCatalog returns every path, module, lesson (drafts and unpublished
// ones too) and help article in display order: four statements whatever
// the catalog's size.
func (s *Content) AuthorsCatalog(ctx context.Context) (*AuthorsCatalog, error) {
	db := conn(ctx, s.db)
	paths, modules, err := pathsAndModules(db)
	if err != nil {
		return nil, err
	}
	var lessons []CatalogLesson
	err = db.Raw(`SELECT l.id, l.title, l.language, l.status, l.module_id, l.position, l.version,
			coalesce(v.created_at, l.updated_at) AS edited_at, coalesce(u.email, '') AS edited_by,
			coalesce(v.kind, 'import') AS edit_kind
		FROM lessons l
		LEFT JOIN lesson_versions v ON v.lesson_id = l.id AND v.number = l.version
		LEFT JOIN users u ON u.id = v.author_id
		ORDER BY l.module_id, l.position, l.id`).Scan(&lessons).Error
	if err != nil {
		return nil, fmt.Errorf("list lessons: %w", err)
	}
	out := &AuthorsCatalog{Paths: assembleCatalog(paths, modules, lessons)}
	if err := db.Model(&HelpArticle{}).Select("id, title, language, status, position, updated_at").
		Order("language, position, id").Scan(&out.Help).Error; err != nil {
		return nil, fmt.Errorf("list help articles: %w", err)
	}
	return out, nil
}

// pathsAndModules reads every path and module in display order (two statements).
func pathsAndModules(db *gorm.DB) ([]Path, []Module, error) {
	var paths []Path
	if err := db.Order("position, slug").Find(&paths).Error; err != nil {
		return nil, nil, fmt.Errorf("list paths: %w", err)
	}
	var modules []Module
	if err := db.Order("path_id, position, slug").Find(&modules).Error; err != nil {
		return nil, nil, fmt.Errorf("list modules: %w", err)
	}
	return paths, modules, nil
}

func assembleCatalog(paths []Path, modules []Module, lessons []CatalogLesson) []CatalogPath {
	byModule := map[int64][]CatalogLesson{}
	for _, l := range lessons {
		byModule[l.ModuleID] = append(byModule[l.ModuleID], l)
	}
	byPath := map[int64][]CatalogModule{}
	for _, m := range modules {
		byPath[m.PathID] = append(byPath[m.PathID], CatalogModule{Module: m, Lessons: byModule[m.ID]})
	}
	out := make([]CatalogPath, len(paths))
	for i, p := range paths {
		out[i] = CatalogPath{Path: p, Modules: byPath[p.ID]}
		for _, m := range out[i].Modules {
			for _, l := range m.Lessons {
				out[i].Visible = out[i].Visible || l.Status == StatusPublished
			}
		}
	}
	return out
}

// NewPath is what an author types to start a path.
type NewPath struct{ Slug, Title, Description, Language string }

// NewModule is what an author types to add a module to a path.
type NewModule struct{ Slug, Title string }

// NewLesson is what an author types to add a lesson to a module; an empty
// Language takes the path's.
type NewLesson struct{ ID, Title, Language string }

// checkSlug validates a URL key.
func checkSlug(s string) error {
	if len(s) > MaxCatalogSlug || !contentKey.MatchString(s) {
		return ErrBadSlug
	}
	return nil
}

// checkTitle validates a title: present, bounded, one line of text.
func checkTitle(s string) error {
	switch {
	case s == "":
		return ErrTitleRequired
	case utf8.RuneCountInString(s) > MaxCatalogTitle:
		return ErrTitleTooLong
	case !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0:
		return ErrBadTitle
	}
	return nil
}

// checkDescription validates a path's description (newlines allowed).
func checkDescription(s string) error {
	if utf8.RuneCountInString(s) > MaxCatalogDescription {
		return ErrDescTooLong
	}
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return ErrBadTitle
	}
	return nil
}

func checkLanguage(s string) error {
	if s != "en" && s != "es" {
		return ErrBadLanguage
	}
	return nil
}

// pathsOrderLock serializes writes to the order of paths, which have no
// parent row to lock.
const pathsOrderLock = "SELECT pg_advisory_xact_lock(hashtext('aula.paths.order'))"

// CreatePath adds a path at the end of the catalog; a taken slug is a
// *TakenError naming the path that holds it.
func (s *Content) CreatePath(ctx context.Context, who Actor, in NewPath) (*Path, error) {
	in.Title, in.Description = strings.TrimSpace(in.Title), strings.TrimSpace(in.Description)
	if err := firstErr(checkSlug(in.Slug), checkTitle(in.Title), checkDescription(in.Description), checkLanguage(in.Language)); err != nil {
		return nil, err
	}
	p := &Path{Slug: in.Slug, Title: in.Title, Description: in.Description, Language: in.Language}
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		if err := tx.Exec(pathsOrderLock).Error; err != nil {
			return fmt.Errorf("lock paths: %w", err)
		}
		var held Path
		if err := tx.Where("slug = ?", in.Slug).Limit(1).Find(&held).Error; err != nil {
			return fmt.Errorf("find path: %w", err)
		}
		if held.ID != 0 {
			return &TakenError{Kind: "path", Key: in.Slug, Title: held.Title}
		}
		if err := tx.Raw(`INSERT INTO paths (slug, title, description, language, position)
			VALUES (?, ?, ?, ?, (SELECT coalesce(max(position), 0) + 1 FROM paths)) RETURNING id, position`,
			p.Slug, p.Title, p.Description, p.Language).Row().Scan(&p.ID, &p.Position); err != nil {
			return fmt.Errorf("insert path: %w", err)
		}
		return s.RecordContent(ctx, who, AuditCreate, p.Slug, p.Title)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// lockPath reads a path FOR UPDATE: its modules' order changes queue behind each other.
func lockPath(tx *gorm.DB, slug string) (*Path, error) {
	var p Path
	if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("slug = ?", slug).Take(&p).Error; err != nil {
		return nil, notFound(err)
	}
	return &p, nil
}

// lockModule reads a module FOR UPDATE: its lessons' order changes queue behind each other.
func lockModule(tx *gorm.DB, id int64) (*Module, error) {
	var m Module
	if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id).Take(&m).Error; err != nil {
		return nil, notFound(err)
	}
	return &m, nil
}

// CreateModule adds a module at the end of the path with that slug; a
// slug taken in that path is a *TakenError.
func (s *Content) CreateModule(ctx context.Context, who Actor, pathSlug string, in NewModule) (*Module, error) {
	in.Title = strings.TrimSpace(in.Title)
	if err := firstErr(checkSlug(in.Slug), checkTitle(in.Title)); err != nil {
		return nil, err
	}
	m := &Module{Slug: in.Slug, Title: in.Title}
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		p, err := lockPath(tx, pathSlug)
		if err != nil {
			return err
		}
		var held Module
		if err := tx.Where("path_id = ? AND slug = ?", p.ID, in.Slug).Limit(1).Find(&held).Error; err != nil {
			return fmt.Errorf("find module: %w", err)
		}
		if held.ID != 0 {
			return &TakenError{Kind: "module", Key: in.Slug, Title: held.Title, Path: p.Title}
		}
		m.PathID = p.ID
		if err := tx.Raw(`INSERT INTO modules (path_id, slug, title, position)
			VALUES (?, ?, ?, (SELECT coalesce(max(position), 0) + 1 FROM modules WHERE path_id = ?)) RETURNING id, position`,
			p.ID, m.Slug, m.Title, p.ID).Row().Scan(&m.ID, &m.Position); err != nil {
			return fmt.Errorf("insert module: %w", err)
		}
		return s.RecordContent(ctx, who, AuditCreate, p.Slug+"/"+m.Slug, m.Title)
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// CreateLesson adds a draft lesson at the end of a module with its version
// 1 (an empty text), in one transaction; students see nothing of it until
// it is published. A taken id is a *TakenError naming its lesson and path.
func (s *Content) CreateLesson(ctx context.Context, who Actor, moduleID int64, in NewLesson) (*Lesson, error) {
	in.Title = strings.TrimSpace(in.Title)
	if err := firstErr(checkSlug(in.ID), checkTitle(in.Title)); err != nil {
		return nil, err
	}
	if in.Language != "" {
		if err := checkLanguage(in.Language); err != nil {
			return nil, err
		}
	}
	l := &Lesson{ID: in.ID, ModuleID: moduleID, Title: in.Title, Language: in.Language, Status: StatusDraft}
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		m, err := lockModule(tx, moduleID)
		if err != nil {
			return err
		}
		if err := lessonIDFree(tx, in.ID); err != nil {
			return err
		}
		var path Path
		if err := tx.Where("id = ?", m.PathID).Take(&path).Error; err != nil {
			return fmt.Errorf("load path: %w", err)
		}
		if l.Language == "" {
			l.Language = path.Language
		}
		if err := tx.Raw(`INSERT INTO lessons (id, module_id, title, language, content_md, content_hash, status, position)
			VALUES (?, ?, ?, ?, '', '', 'draft', (SELECT coalesce(max(position), 0) + 1 FROM lessons WHERE module_id = ?))
			RETURNING position`, l.ID, moduleID, l.Title, l.Language, moduleID).Row().Scan(&l.Position); err != nil {
			return fmt.Errorf("insert lesson: %w", err)
		}
		if _, err := addVersion(tx, l.ID, 1, LessonDraft{Title: l.Title, Language: l.Language}, VersionSave, who.ID); err != nil {
			return err
		}
		l.Version = 1
		return s.RecordContent(ctx, who, AuditCreate, l.ID, l.Title)
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// lessonIDFree is a *TakenError when a lesson already has id.
func lessonIDFree(tx *gorm.DB, id string) error {
	var held struct{ Title, PathTitle string }
	err := tx.Raw(`SELECT l.title, p.title AS path_title FROM lessons l
		JOIN modules m ON m.id = l.module_id JOIN paths p ON p.id = m.path_id WHERE l.id = ?`, id).Scan(&held).Error
	if err != nil {
		return fmt.Errorf("find lesson: %w", err)
	}
	if held.Title != "" {
		return &TakenError{Kind: "lesson", Key: id, Title: held.Title, Path: held.PathTitle}
	}
	return nil
}

// RenamePath changes a path's title and description (its slug is its URL
// key and stays).
func (s *Content) RenamePath(ctx context.Context, who Actor, slug, title, description string) error {
	title, description = strings.TrimSpace(title), strings.TrimSpace(description)
	if err := firstErr(checkTitle(title), checkDescription(description)); err != nil {
		return err
	}
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db).Exec(`UPDATE paths SET title = ?, description = ?, updated_at = now() WHERE slug = ?`, title, description, slug)
		if tx.Error != nil {
			return fmt.Errorf("rename path: %w", tx.Error)
		}
		if tx.RowsAffected == 0 {
			return ErrNotFound
		}
		return s.RecordContent(ctx, who, AuditRename, slug, title)
	})
}

// RenameModule changes a module's title (its slug stays).
func (s *Content) RenameModule(ctx context.Context, who Actor, id int64, title string) error {
	title = strings.TrimSpace(title)
	if err := checkTitle(title); err != nil {
		return err
	}
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		var key string
		err := conn(ctx, s.db).Raw(`UPDATE modules m SET title = ?, updated_at = now() FROM paths p
			WHERE m.id = ? AND p.id = m.path_id RETURNING p.slug || '/' || m.slug`, title, id).Row().Scan(&key)
		if err != nil {
			return notFound(err)
		}
		return s.RecordContent(ctx, who, AuditRename, key, title)
	})
}
