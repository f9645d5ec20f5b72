package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Path is a learning path: an ordered set of modules in one language.
type Path struct {
	ID          int64
	Slug        string
	Title       string
	Description string
	Language    string
	Position    int
	UpdatedAt   time.Time
	Modules     []Module `gorm:"-"`
}

// Module groups lessons inside a path.
type Module struct {
	ID        int64
	PathID    int64
	Slug      string
	Title     string
	Position  int
	UpdatedAt time.Time
	Lessons   []Lesson `gorm:"-"`
}

// Lesson is one page of teaching content; its id is the stable slug from its file.
type Lesson struct {
	ID          string
	ModuleID    int64
	Title       string
	Summary     string
	Position    int
	Language    string
	ContentMD   string `gorm:"column:content_md"`
	ContentHash string
	SourceFile  string
	// Status is draft, published or unpublished: students see published only.
	Status string
	// Version is the newest version's number, PublishedVersion the one students see.
	Version          int
	PublishedVersion *int
	UpdatedAt        time.Time
}

// LessonChunk is one section of a lesson, searchable by full text.
type LessonChunk struct {
	ID       int64
	LessonID string
	Position int
	Heading  string
	Anchor   string
	Text     string
	Hash     string
	// Since is when this text of the section was first published.
	Since time.Time
}

// HelpArticle is a page about using aula, the ground of the help mode.
type HelpArticle struct {
	ID          string
	Title       string
	Language    string
	Position    int
	ContentMD   string `gorm:"column:content_md"`
	ContentHash string
	SourceFile  string
	UpdatedAt   time.Time
}

// Suggestion is one of a lesson's three suggested questions.
type Suggestion struct {
	ID        int64
	LessonID  string
	Position  int
	Text      string
	UpdatedAt time.Time
}

// TableName maps Suggestion to lesson_suggestions.
func (Suggestion) TableName() string { return "lesson_suggestions" }

// LessonPage is everything the lesson screen shows, loaded in a fixed number of queries.
type LessonPage struct {
	Lesson      Lesson
	Module      Module
	Path        Path
	Prev, Next  *LessonRef
	Suggestions []Suggestion
}

// LessonRef names a lesson for links.
type LessonRef struct {
	ID, Title string
}

// Content is the store of paths, modules, lessons and help articles.
type Content struct {
	db *gorm.DB
	// Changed, when set, is called once a change of the sections students
	// read has committed (a lesson published, unpublished, restored while
	// published, or deleted): the tutor's retrieval forgets the words it
	// checked (Chunks.ContentChanged), so a word just published is not
	// "not covered" for the seconds it would remember that.
	Changed func()
}

// changed calls Changed after a change that committed (err nil) and
// returns err.
func (s *Content) changed(err error) error {
	if err == nil && s.Changed != nil {
		s.Changed()
	}
	return err
}

// NewContent returns the content store.
func NewContent(db *gorm.DB) *Content { return &Content{db: db} }

// Catalog returns every path with its modules and lessons (without their
// text), ordered for display, in three queries.
func (s *Content) Catalog(ctx context.Context) ([]Path, error) {
	db := conn(ctx, s.db)
	paths, modules, err := pathsAndModules(db)
	if err != nil {
		return nil, err
	}
	var lessons []Lesson
	if err := db.Select("id, module_id, title, summary, position, language").Where("status = 'published'").
		Order("module_id, position, id").Find(&lessons).Error; err != nil {
		return nil, fmt.Errorf("list lessons: %w", err)
	}
	return visible(assemble(paths, modules, lessons)), nil
}

// PathBySlug returns one path with its modules and lessons (without text).
func (s *Content) PathBySlug(ctx context.Context, slug string) (*Path, error) {
	db := conn(ctx, s.db)
	var p Path
	if err := db.Where("slug = ?", slug).Take(&p).Error; err != nil {
		return nil, notFound(err)
	}
	var modules []Module
	if err := db.Where("path_id = ?", p.ID).Order("position, slug").Find(&modules).Error; err != nil {
		return nil, fmt.Errorf("list modules: %w", err)
	}
	var lessons []Lesson
	if err := db.Select("lessons.id, module_id, lessons.title, summary, lessons.position, language").
		Joins("JOIN modules ON modules.id = lessons.module_id").Where("modules.path_id = ? AND lessons.status = 'published'", p.ID).
		Order("module_id, lessons.position, lessons.id").Find(&lessons).Error; err != nil {
		return nil, fmt.Errorf("list lessons: %w", err)
	}
	shown := visible(assemble([]Path{p}, modules, lessons))
	if len(shown) == 0 {
		return nil, ErrNotFound
	}
	return &shown[0], nil
}

// visible keeps what students see: modules with a published lesson and
// paths with such a module (a path written in the browser stays hidden
// until its first lesson is published).
func visible(paths []Path) []Path {
	out := paths[:0]
	for _, p := range paths {
		mods := p.Modules[:0]
		for _, m := range p.Modules {
			if len(m.Lessons) > 0 {
				mods = append(mods, m)
			}
		}
		if p.Modules = mods; len(mods) > 0 {
			out = append(out, p)
		}
	}
	return out
}

func assemble(paths []Path, modules []Module, lessons []Lesson) []Path {
	byModule := map[int64][]Lesson{}
	for _, l := range lessons {
		byModule[l.ModuleID] = append(byModule[l.ModuleID], l)
	}
	byPath := map[int64][]Module{}
	for _, m := range modules {
		m.Lessons = byModule[m.ID]
		byPath[m.PathID] = append(byPath[m.PathID], m)
	}
	for i := range paths {
		paths[i].Modules = byPath[paths[i].ID]
	}
	return paths
}

// LessonPage loads a lesson of the path with that slug, its neighbours in
// the path's order and its suggestions: three queries whatever the path's size.
func (s *Content) LessonPage(ctx context.Context, pathSlug, lessonID string) (*LessonPage, error) {
	db := conn(ctx, s.db)
	var row struct {
		Lesson
		MTitle, MSlug        string
		MPosition            int
		PID                  int64
		PSlug, PTitle, PLang string
	}
	err := db.Raw(`SELECT l.*, m.title AS m_title, m.slug AS m_slug, m.position AS m_position,
			p.id AS p_id, p.slug AS p_slug, p.title AS p_title, p.language AS p_lang
		FROM lessons l JOIN modules m ON m.id = l.module_id JOIN paths p ON p.id = m.path_id
		WHERE l.id = ? AND p.slug = ? AND l.status = 'published'`, lessonID, pathSlug).Scan(&row).Error
	if err != nil {
		return nil, fmt.Errorf("load lesson: %w", err)
	}
	if row.ID == "" {
		return nil, ErrNotFound
	}
	page := &LessonPage{
		Lesson: row.Lesson,
		Module: Module{ID: row.ModuleID, PathID: row.PID, Slug: row.MSlug, Title: row.MTitle, Position: row.MPosition},
		Path:   Path{ID: row.PID, Slug: row.PSlug, Title: row.PTitle, Language: row.PLang},
	}
	// The neighbours come from a window over the path's order, so this
	// query returns two rows however long the path is.
	var nb []struct {
		Dir       string
		ID, Title string
	}
	err = db.Raw(`WITH ordered AS (
			SELECT l.id, l.title,
				lag(l.id) OVER w AS prev_id, lag(l.title) OVER w AS prev_title,
				lead(l.id) OVER w AS next_id, lead(l.title) OVER w AS next_title
			FROM lessons l JOIN modules m ON m.id = l.module_id
			WHERE m.path_id = ? AND l.status = 'published'
			WINDOW w AS (ORDER BY m.position, m.slug, l.position, l.id))
		SELECT 'prev' AS dir, prev_id AS id, prev_title AS title FROM ordered WHERE id = ? AND prev_id IS NOT NULL
		UNION ALL
		SELECT 'next', next_id, next_title FROM ordered WHERE id = ? AND next_id IS NOT NULL`,
		row.PID, lessonID, lessonID).Scan(&nb).Error
	if err != nil {
		return nil, fmt.Errorf("load neighbours: %w", err)
	}
	for _, n := range nb {
		ref := &LessonRef{ID: n.ID, Title: n.Title}
		if n.Dir == "prev" {
			page.Prev = ref
		} else {
			page.Next = ref
		}
	}
	if err := db.Where("lesson_id = ?", lessonID).Order("position").Find(&page.Suggestions).Error; err != nil {
		return nil, fmt.Errorf("load suggestions: %w", err)
	}
	return page, nil
}

// Lesson returns a published lesson by id (what students and their tutor read).
func (s *Content) Lesson(ctx context.Context, id string) (*Lesson, error) {
	var l Lesson
	if err := conn(ctx, s.db).Where("id = ? AND status = 'published'", id).Take(&l).Error; err != nil {
		return nil, notFound(err)
	}
	return &l, nil
}

// Suggestions returns a lesson's suggested questions in order.
func (s *Content) Suggestions(ctx context.Context, lessonID string) ([]Suggestion, error) {
	var out []Suggestion
	err := conn(ctx, s.db).Where("lesson_id = ?", lessonID).Order("position").Find(&out).Error
	return out, err
}

// CountLessons returns how many lessons exist; seed uses it to spot an empty database.
func (s *Content) CountLessons(ctx context.Context) (int64, error) {
	var n int64
	err := conn(ctx, s.db).Model(&Lesson{}).Count(&n).Error
	return n, err
}

// CitationTargets returns, in two queries, the current text hash of each
// cited section, keyed by SectionKey (a section is its lesson and heading
// anchor: a re-import gives its chunk a new id, so the id cannot tell an
// edit; missing means the section is gone), and the path slug of each
// cited lesson, for links.
func (s *Content) CitationTargets(ctx context.Context, lessonIDs []string) (map[string]string, map[string]string, error) {
	hashes, paths := map[string]string{}, map[string]string{}
	db := conn(ctx, s.db)
	if len(lessonIDs) > 0 {
		var rows []struct{ LessonID, Anchor, Hash string }
		if err := db.Raw(`SELECT lesson_id, anchor, hash FROM lesson_chunks WHERE lesson_id IN ?`, lessonIDs).Scan(&rows).Error; err != nil {
			return nil, nil, fmt.Errorf("section hashes: %w", err)
		}
		for _, r := range rows {
			hashes[SectionKey(r.LessonID, r.Anchor)] = r.Hash
		}
	}
	if len(lessonIDs) > 0 {
		var rows []struct{ ID, Slug string }
		if err := db.Raw(`SELECT l.id, p.slug FROM lessons l JOIN modules m ON m.id = l.module_id
			JOIN paths p ON p.id = m.path_id WHERE l.id IN ? AND l.status = 'published'`, lessonIDs).Scan(&rows).Error; err != nil {
			return nil, nil, fmt.Errorf("lesson paths: %w", err)
		}
		for _, r := range rows {
			paths[r.ID] = r.Slug
		}
	}
	return hashes, paths, nil
}

// SectionKey identifies a lesson section across re-imports.
func SectionKey(lessonID, anchor string) string { return lessonID + "#" + anchor }
