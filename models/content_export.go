package models

import (
	"context"
	"fmt"
)

// ExportedLesson is one lesson as the folder format writes it: the text
// students see for a published lesson, the newest version's for a draft or
// an unpublished one (Status says which), with its path and module.
type ExportedLesson struct {
	ID, Title, Summary, Language, ContentMD, SourceFile, Status string
	Position                                                    int
	Suggestions                                                 TextList `gorm:"type:text[]"`
	PathSlug, PathTitle, PathDescription                        string
	PathPosition                                                int
	ModuleSlug, ModuleTitle                                     string
	ModulePosition                                              int
}

// ExportedHelp is one published help article as the folder format writes it.
type ExportedHelp struct {
	ID, Title, Language, ContentMD, SourceFile string
	Position                                   int
}

// ContentImage is an image lessons show, with its bytes; its id is the
// SHA-256 of Data.
type ContentImage struct {
	ID            string
	ContentType   string
	Width, Height int
	Size          int
	Data          []byte
}

// ExportLessons returns every lesson of the path with slug pathSlug (""
// for every path) in the catalog's order, in one statement.
func (s *Content) ExportLessons(ctx context.Context, pathSlug string) ([]ExportedLesson, error) {
	var out []ExportedLesson
	err := conn(ctx, s.db).Raw(`SELECT l.id, l.position, l.status, l.source_file,
			CASE WHEN l.status = 'published' OR v.number IS NULL THEN l.title ELSE v.title END AS title,
			CASE WHEN l.status = 'published' OR v.number IS NULL THEN l.summary ELSE v.summary END AS summary,
			CASE WHEN l.status = 'published' OR v.number IS NULL THEN l.language ELSE v.language END AS language,
			CASE WHEN l.status = 'published' OR v.number IS NULL THEN l.content_md ELSE v.content_md END AS content_md,
			CASE WHEN l.status = 'published' OR v.number IS NULL
				THEN coalesce((SELECT array_agg(sg.text ORDER BY sg.position) FROM lesson_suggestions sg WHERE sg.lesson_id = l.id), '{}')
				ELSE v.suggestions END AS suggestions,
			p.slug AS path_slug, p.title AS path_title, p.description AS path_description, p.position AS path_position,
			m.slug AS module_slug, m.title AS module_title, m.position AS module_position
		FROM lessons l JOIN modules m ON m.id = l.module_id JOIN paths p ON p.id = m.path_id
		LEFT JOIN lesson_versions v ON v.lesson_id = l.id AND v.number = l.version
		WHERE ? = '' OR p.slug = ?
		ORDER BY p.position, p.slug, m.position, m.slug, l.position, l.id`, pathSlug, pathSlug).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("export lessons: %w", err)
	}
	return out, nil
}

// PathExists reports whether a path has that slug.
func (s *Content) PathExists(ctx context.Context, slug string) (bool, error) {
	var n int64
	if err := conn(ctx, s.db).Model(&Path{}).Where("slug = ?", slug).Count(&n).Error; err != nil {
		return false, fmt.Errorf("find path: %w", err)
	}
	return n > 0, nil
}

// ExportHelp returns the published help articles by language and position.
func (s *Content) ExportHelp(ctx context.Context) ([]ExportedHelp, error) {
	var out []ExportedHelp
	err := conn(ctx, s.db).Raw(`SELECT id, title, language, position, content_md, source_file
		FROM help_articles WHERE status = 'published' ORDER BY language, position, id`).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("export help: %w", err)
	}
	return out, nil
}

// EachImage calls fn with each image whose id is in ids, by id, reading
// one row at a time (images are large; a catalog's would not fit in memory
// together).
func (s *Content) EachImage(ctx context.Context, ids []string, fn func(ContentImage) error) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := conn(ctx, s.db).Raw(`SELECT id, content_type, width, height, size, data
		FROM content_images WHERE id IN ? ORDER BY id`, ids).Rows()
	if err != nil {
		return fmt.Errorf("export images: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var img ContentImage
		if err := rows.Scan(&img.ID, &img.ContentType, &img.Width, &img.Height, &img.Size, &img.Data); err != nil {
			return fmt.Errorf("read image: %w", err)
		}
		if err := fn(img); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read images: %w", err)
	}
	return nil
}

// SaveImportedImage stores an image read from a content folder unless one
// with its id (the SHA-256 of its bytes) is there already; it reports
// whether it was new. The caller has checked the bytes are that image.
func (s *Content) SaveImportedImage(ctx context.Context, img ContentImage) (bool, error) {
	res := conn(ctx, s.db).Exec(`INSERT INTO content_images (id, content_type, width, height, size, data)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		img.ID, img.ContentType, img.Width, img.Height, len(img.Data), img.Data)
	if res.Error != nil {
		return false, fmt.Errorf("save image %s: %w", img.ID, res.Error)
	}
	return res.RowsAffected > 0, nil
}

// AllPaths returns every path (students' or not yet), in the catalog's order.
func (s *Content) AllPaths(ctx context.Context) ([]Path, error) {
	var out []Path
	if err := conn(ctx, s.db).Order("position, slug").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list paths: %w", err)
	}
	return out, nil
}
