package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Lesson statuses: students see only published lessons.
const (
	StatusDraft       = "draft"
	StatusPublished   = "published"
	StatusUnpublished = "unpublished"
)

// Version kinds: what made a version.
const (
	VersionSave    = "save"
	VersionRestore = "restore"
	VersionImport  = "import"
)

// ErrVersionNotFound means the lesson has no version of that number.
var ErrVersionNotFound = errors.New("no such version")

// EditConflictError means someone saved the lesson after the author opened
// it: Current is the newest version, which the editor shows beside the
// author's own text so that neither is lost.
type EditConflictError struct{ Current LessonVersion }

func (e *EditConflictError) Error() string {
	return fmt.Sprintf("the lesson changed since it was opened (now at version %d)", e.Current.Number)
}

// LessonVersion is one saved state of a lesson's text: every save of the
// editor, import and restore adds one; publishing copies one into lessons.
type LessonVersion struct {
	LessonID    string `gorm:"primaryKey"`
	Number      int    `gorm:"primaryKey"`
	Title       string
	Summary     string
	Language    string
	ContentMD   string   `gorm:"column:content_md"`
	Suggestions TextList `gorm:"type:text[]"`
	Note        string
	Kind        string
	AuthorID    *string `gorm:"type:uuid"`
	// AuthorEmail is read with the version (empty when the account is gone).
	AuthorEmail string `gorm:"->;-:migration"`
	CreatedAt   time.Time
}

// LessonDraft is what an author writes: a version's fields.
type LessonDraft struct {
	Title, Summary, Language, ContentMD string
	Suggestions                         []string
	Note                                string
}

// SaveVersion adds a version to a lesson, unless someone saved it after
// the author opened version base: then nothing is written and the error is
// an *EditConflictError with the newest version. A draft changes nothing
// students see. An unknown lesson is ErrNotFound.
func (s *Content) SaveVersion(ctx context.Context, lessonID string, base int, d LessonDraft, kind, authorID string) (*LessonVersion, error) {
	var v *LessonVersion
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		cur, err := lockLesson(tx, lessonID)
		if err != nil {
			return err
		}
		if cur.Version != base {
			newest, err := s.Version(ctx, lessonID, cur.Version)
			if err != nil {
				return err
			}
			return &EditConflictError{Current: *newest}
		}
		v, err = addVersion(tx, lessonID, cur.Version+1, d, kind, authorID)
		return err
	})
	return v, err
}

// lockLesson reads a lesson's row FOR UPDATE: versions and publishes of one
// lesson queue behind each other.
func lockLesson(tx *gorm.DB, lessonID string) (*Lesson, error) {
	var l Lesson
	err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", lessonID).Take(&l).Error
	if err != nil {
		return nil, notFound(err)
	}
	return &l, nil
}

// addVersion writes version number of a lesson and moves the lesson's
// version counter to it; a draft-only lesson's row takes its title too, so
// the catalog names it.
func addVersion(tx *gorm.DB, lessonID string, number int, d LessonDraft, kind, authorID string) (*LessonVersion, error) {
	v := &LessonVersion{LessonID: lessonID, Number: number, Title: d.Title, Summary: d.Summary,
		Language: d.Language, ContentMD: d.ContentMD, Suggestions: TextList(cleanSuggestions(d.Suggestions)),
		Note: d.Note, Kind: kind}
	if authorID != "" {
		v.AuthorID = &authorID
	}
	if err := tx.Omit("AuthorEmail").Create(v).Error; err != nil {
		return nil, fmt.Errorf("insert version: %w", err)
	}
	if err := tx.Exec(`UPDATE lessons SET version = ?,
			title = CASE WHEN status = 'draft' THEN ? ELSE title END,
			summary = CASE WHEN status = 'draft' THEN ? ELSE summary END,
			language = CASE WHEN status = 'draft' THEN ? ELSE language END
		WHERE id = ?`, number, d.Title, d.Summary, d.Language, lessonID).Error; err != nil {
		return nil, fmt.Errorf("advance version: %w", err)
	}
	return v, nil
}

// cleanSuggestions trims the suggestions and drops the empty ones.
func cleanSuggestions(in []string) []string {
	out := []string{}
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Version returns one version of a lesson with its author's email.
func (s *Content) Version(ctx context.Context, lessonID string, number int) (*LessonVersion, error) {
	if !ValidVersionNumber(number) {
		return nil, ErrVersionNotFound
	}
	var v LessonVersion
	err := conn(ctx, s.db).Table("lesson_versions v").
		Select("v.*, coalesce(u.email, '') AS author_email").
		Joins("LEFT JOIN users u ON u.id = v.author_id").
		Where("v.lesson_id = ? AND v.number = ?", lessonID, number).Take(&v).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrVersionNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load version: %w", err)
	}
	return &v, nil
}

// Versions returns a lesson's versions newest first, limit at a time
// before version number before (0: from the newest): a keyset page.
func (s *Content) Versions(ctx context.Context, lessonID string, before, limit int) ([]LessonVersion, error) {
	q := conn(ctx, s.db).Table("lesson_versions v").
		Select("v.lesson_id, v.number, v.title, v.language, v.note, v.kind, v.author_id, v.created_at, coalesce(u.email, '') AS author_email").
		Joins("LEFT JOIN users u ON u.id = v.author_id").
		Where("v.lesson_id = ?", lessonID)
	if before > 0 {
		q = q.Where("v.number < ?", before)
	}
	var out []LessonVersion
	if err := q.Order("v.number DESC").Limit(limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list versions: %w", err)
	}
	return out, nil
}
