package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// HelpChunk is one section of a help article, searchable by full text.
type HelpChunk struct {
	ID        int64
	ArticleID string
	Position  int
	Heading   string
	Anchor    string
	Text      string
	Hash      string
}

// ContentChunk is one section of an imported lesson or help article.
type ContentChunk struct {
	Heading, Anchor, Text, Hash string
}

// LessonImport is one parsed lesson file: the lesson (ContentHash set) with
// its path and module (slug, title, position; ids are looked up), its
// initial suggestions and its sections. Status "" (or published) publishes
// the file; draft or unpublished saves it as a version only (see
// saveHiddenImport). AuthorID, when set, is who imported it.
type LessonImport struct {
	Lesson      Lesson
	Path        Path
	Module      Module
	Suggestions []string
	Chunks      []ContentChunk
	Status      string
	AuthorID    string
}

// LessonIDTakenError means another file already holds the lesson's id.
type LessonIDTakenError struct{ ID, File string }

func (e *LessonIDTakenError) Error() string {
	return fmt.Sprintf("lesson id %q is already used by %s", e.ID, e.File)
}

// SaveLesson writes one imported lesson, its path, module, sections and
// suggestions in one transaction, and reports whether anything changed. An
// unchanged lesson (same hash, module, position and language) is not
// rewritten. Suggestions are only the initial ones: a lesson that has some
// (perhaps edited by an admin) keeps them. A lesson written in the browser
// (no source file) is updated by the file, which becomes its source; a
// lesson imported from another file is LessonIDTakenError.
func (s *Content) SaveLesson(ctx context.Context, in LessonImport) (changed bool, err error) {
	l := in.Lesson
	err = WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		var other Lesson
		if err := tx.Select("id, source_file").Where("id = ? AND source_file <> ? AND source_file <> ''", l.ID, l.SourceFile).
			Take(&other).Error; err == nil {
			return &LessonIDTakenError{ID: l.ID, File: other.SourceFile}
		}
		moduleID, err := upsertPlace(tx, in.Path, in.Module)
		if err != nil {
			return err
		}
		l.ModuleID = moduleID
		var cur Lesson
		found := tx.Select("id, module_id, content_hash, position, language, status, version, source_file").
			Where("id = ?", l.ID).Take(&cur).Error == nil
		if in.Status == StatusDraft || in.Status == StatusUnpublished {
			changed, err = saveHiddenImport(tx, l, found, cur, in)
			return err
		}
		if found && cur.ContentHash == l.ContentHash && cur.ModuleID == moduleID && cur.Position == l.Position &&
			cur.Language == l.Language && cur.Status == StatusPublished {
			return nil
		}
		changed = true
		return importVersion(tx, l, cur.Version+1, in)
	})
	return changed, err
}

// upsertPlace writes a lesson file's path and module and returns the module's id.
func upsertPlace(tx *gorm.DB, p Path, m Module) (int64, error) {
	if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "slug"}},
		DoUpdates: clause.AssignmentColumns([]string{"title", "description", "language", "position"})}).
		Create(&p).Error; err != nil {
		return 0, fmt.Errorf("upsert path: %w", err)
	}
	if p.ID == 0 {
		tx.Model(&Path{}).Where("slug = ?", p.Slug).Pluck("id", &p.ID)
	}
	m.PathID = p.ID
	if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "path_id"}, {Name: "slug"}},
		DoUpdates: clause.AssignmentColumns([]string{"title", "position"})}).Create(&m).Error; err != nil {
		return 0, fmt.Errorf("upsert module: %w", err)
	}
	if m.ID == 0 {
		tx.Model(&Module{}).Where("path_id = ? AND slug = ?", p.ID, m.Slug).Pluck("id", &m.ID)
	}
	return m.ID, nil
}

// importVersion writes an imported lesson as its next version, published:
// the file is what students see, and the history keeps what was before.
func importVersion(tx *gorm.DB, l Lesson, number int, in LessonImport) error {
	l.Status, l.Version, l.PublishedVersion = StatusPublished, number, &number
	if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&l).Error; err != nil {
		return fmt.Errorf("upsert lesson: %w", err)
	}
	d := LessonDraft{Title: l.Title, Summary: l.Summary, Language: l.Language, ContentMD: l.ContentMD,
		Suggestions: in.Suggestions, Note: l.SourceFile}
	if _, err := addVersion(tx, l.ID, number, d, VersionImport, in.AuthorID); err != nil {
		return err
	}
	if err := replaceLessonChunks(tx, l.ID, in.Chunks); err != nil {
		return err
	}
	// Suggestions in a file are only the initial ones: a lesson that has
	// some (perhaps edited by an admin) keeps them.
	for i, text := range in.Suggestions {
		sg := Suggestion{LessonID: l.ID, Position: i + 1, Text: strings.TrimSpace(text)}
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&sg).Error; err != nil {
			return fmt.Errorf("insert suggestion: %w", err)
		}
	}
	return nil
}

// SaveHelpArticle writes one imported help article and its sections in one
// transaction, unless it is unchanged; it reports whether anything changed.
func (s *Content) SaveHelpArticle(ctx context.Context, a HelpArticle, chunks []ContentChunk) (changed bool, err error) {
	err = WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		var cur HelpArticle
		if err := tx.Where("id = ?", a.ID).Take(&cur).Error; err == nil && cur.ContentHash == a.ContentHash &&
			cur.Language == a.Language && cur.Position == a.Position {
			return nil
		}
		changed = true
		if err := tx.Clauses(clause.OnConflict{UpdateAll: true}).Create(&a).Error; err != nil {
			return fmt.Errorf("upsert help article: %w", err)
		}
		rows := make([]HelpChunk, len(chunks))
		for i, c := range chunks {
			rows[i] = HelpChunk{ArticleID: a.ID, Position: i, Heading: c.Heading, Anchor: c.Anchor, Text: c.Text, Hash: c.Hash}
		}
		return replaceChunks(tx, HelpChunk{ArticleID: a.ID}, rows)
	})
	return changed, err
}

// replaceLessonChunks rewrites a lesson's sections. A section whose text
// was already published (same hash) keeps its since, so the editor's
// figures restart only for the sections an edit really changed.
func replaceLessonChunks(tx *gorm.DB, lessonID string, chunks []ContentChunk) error {
	var old []LessonChunk
	if err := tx.Select("hash, since").Where("lesson_id = ?", lessonID).Find(&old).Error; err != nil {
		return fmt.Errorf("read sections: %w", err)
	}
	since := map[string]time.Time{}
	for _, c := range old {
		since[c.Hash] = c.Since
	}
	now := time.Now()
	rows := make([]LessonChunk, len(chunks))
	for i, c := range chunks {
		rows[i] = LessonChunk{LessonID: lessonID, Position: i, Heading: c.Heading, Anchor: c.Anchor, Text: c.Text, Hash: c.Hash, Since: now}
		if t, ok := since[c.Hash]; ok {
			rows[i].Since = t
		}
	}
	return replaceChunks(tx, LessonChunk{LessonID: lessonID}, rows)
}

// replaceChunks deletes the chunks of owner (a chunk with only its lesson
// or article id set: GORM's struct condition) and inserts rows instead.
func replaceChunks[C LessonChunk | HelpChunk](tx *gorm.DB, owner C, rows []C) error {
	if err := tx.Where(&owner).Delete(new(C)).Error; err != nil {
		return fmt.Errorf("delete chunks: %w", err)
	}
	if len(rows) == 0 {
		return nil
	}
	if err := tx.Create(&rows).Error; err != nil {
		return fmt.Errorf("insert chunks: %w", err)
	}
	return nil
}

// saveHiddenImport saves a file marked draft or unpublished as a version
// that students do not see: a new lesson is created in that status
// (without text or sections until it is published); an existing one gets
// the version when its text differs from its newest, moves to the file's
// module and position, and, when the file says unpublished, is hidden.
// A draft file never changes what students see of a published lesson.
func saveHiddenImport(tx *gorm.DB, l Lesson, found bool, cur Lesson, in LessonImport) (bool, error) {
	d := LessonDraft{Title: l.Title, Summary: l.Summary, Language: l.Language, ContentMD: l.ContentMD,
		Suggestions: in.Suggestions, Note: l.SourceFile}
	if !found {
		row := Lesson{ID: l.ID, ModuleID: l.ModuleID, Title: l.Title, Summary: l.Summary, Position: l.Position,
			Language: l.Language, SourceFile: l.SourceFile, Status: in.Status}
		if err := tx.Create(&row).Error; err != nil {
			return false, fmt.Errorf("insert lesson: %w", err)
		}
		_, err := addVersion(tx, l.ID, 1, d, VersionImport, in.AuthorID)
		return err == nil, err
	}
	var newest LessonVersion
	sameText := tx.Where("lesson_id = ? AND number = ?", cur.ID, cur.Version).Take(&newest).Error == nil &&
		newest.Title == d.Title && newest.Summary == d.Summary && newest.Language == d.Language &&
		newest.ContentMD == d.ContentMD && slices.Equal([]string(newest.Suggestions), cleanSuggestions(d.Suggestions))
	hide := in.Status == StatusUnpublished && cur.Status == StatusPublished
	if sameText && !hide && cur.ModuleID == l.ModuleID && cur.Position == l.Position {
		return false, nil
	}
	if err := tx.Exec(`UPDATE lessons SET module_id = ?, position = ?,
			source_file = CASE WHEN source_file = '' THEN ? ELSE source_file END, updated_at = now() WHERE id = ?`,
		l.ModuleID, l.Position, l.SourceFile, l.ID).Error; err != nil {
		return false, fmt.Errorf("move lesson: %w", err)
	}
	if !sameText {
		if _, err := addVersion(tx, l.ID, cur.Version+1, d, VersionImport, in.AuthorID); err != nil {
			return false, err
		}
	}
	if hide {
		if err := tx.Exec(`UPDATE lessons SET status = 'unpublished' WHERE id = ?`, l.ID).Error; err != nil {
			return false, fmt.Errorf("unpublish lesson: %w", err)
		}
		return true, replaceLessonChunks(tx, l.ID, nil)
	}
	return true, nil
}
