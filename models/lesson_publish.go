package models

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"
)

// ErrNotPublished means an unpublish of a lesson students cannot see.
var ErrNotPublished = fmt.Errorf("the lesson is not published")

// Publish shows version number of a lesson to students: its text, its
// sections (a section whose text is unchanged keeps its hash and its
// since, so receipts flag and the editor's figures restart only for the
// sections really edited) and its suggestions, with an audit entry, in one
// transaction.
func (s *Content) Publish(ctx context.Context, lessonID string, number int, who Actor) error {
	return s.changed(WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		if _, err := lockLesson(tx, lessonID); err != nil {
			return err
		}
		v, err := s.Version(ctx, lessonID, number)
		if err != nil {
			return err
		}
		if err := publishVersion(tx, v, time.Now()); err != nil {
			return err
		}
		return s.RecordContent(ctx, who, AuditPublish, lessonID, "version "+strconv.Itoa(number))
	}))
}

// publishVersion copies v into the lesson students read.
func publishVersion(tx *gorm.DB, v *LessonVersion, now time.Time) error {
	err := tx.Exec(`UPDATE lessons SET title = ?, summary = ?, language = ?, content_md = ?, content_hash = ?,
			status = 'published', published_version = ?, updated_at = ? WHERE id = ?`,
		v.Title, v.Summary, v.Language, v.ContentMD, ContentHash(v.Title, v.Summary, v.ContentMD),
		v.Number, now, v.LessonID).Error
	if err != nil {
		return fmt.Errorf("publish lesson: %w", err)
	}
	if err := replaceLessonChunks(tx, v.LessonID, LessonSections(v.Title, v.ContentMD)); err != nil {
		return err
	}
	return replaceSuggestions(tx, v.LessonID, v.Suggestions, now)
}

// replaceSuggestions makes a lesson's suggestions the version's (at most three).
func replaceSuggestions(tx *gorm.DB, lessonID string, texts []string, now time.Time) error {
	if err := tx.Where("lesson_id = ?", lessonID).Delete(&Suggestion{}).Error; err != nil {
		return fmt.Errorf("delete suggestions: %w", err)
	}
	for i, text := range texts {
		if i == 3 {
			break
		}
		sg := Suggestion{LessonID: lessonID, Position: i + 1, Text: text, UpdatedAt: now}
		if err := tx.Create(&sg).Error; err != nil {
			return fmt.Errorf("insert suggestion: %w", err)
		}
	}
	return nil
}

// Unpublish hides a published lesson from students again: its sections
// go, so retrieval no longer finds it; its versions, threads and progress
// stay. A lesson that is not published is ErrNotPublished.
func (s *Content) Unpublish(ctx context.Context, lessonID string, who Actor) error {
	return s.changed(WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		l, err := lockLesson(tx, lessonID)
		if err != nil {
			return err
		}
		if l.Status != StatusPublished {
			return ErrNotPublished
		}
		if err := tx.Exec(`UPDATE lessons SET status = 'unpublished', updated_at = now() WHERE id = ?`, lessonID).Error; err != nil {
			return fmt.Errorf("unpublish lesson: %w", err)
		}
		if err := replaceLessonChunks(tx, lessonID, nil); err != nil {
			return err
		}
		return s.RecordContent(ctx, who, AuditUnpublish, lessonID, "")
	}))
}

// Restore adds a version that is a copy of version number (the history
// keeps everything after it) and, when the lesson is published, publishes
// it: what students see becomes that version's text. base is the version
// the author saw, checked as SaveVersion checks it.
func (s *Content) Restore(ctx context.Context, lessonID string, number, base int, who Actor) (*LessonVersion, error) {
	var out *LessonVersion
	err := WithTx(ctx, s.db, func(ctx context.Context) error {
		old, err := s.Version(ctx, lessonID, number)
		if err != nil {
			return err
		}
		d := LessonDraft{Title: old.Title, Summary: old.Summary, Language: old.Language, ContentMD: old.ContentMD,
			Suggestions: old.Suggestions, Note: "restored version " + strconv.Itoa(number)}
		if out, err = s.SaveVersion(ctx, lessonID, base, d, VersionRestore, who.ID); err != nil {
			return err
		}
		var status string
		if err := conn(ctx, s.db).Model(&Lesson{}).Where("id = ?", lessonID).Pluck("status", &status).Error; err != nil {
			return fmt.Errorf("read status: %w", err)
		}
		if status == StatusPublished {
			if err := publishVersion(conn(ctx, s.db), out, time.Now()); err != nil {
				return err
			}
		}
		return s.RecordContent(ctx, who, AuditRestore, lessonID, fmt.Sprintf("version %d as version %d", number, out.Number))
	})
	return out, s.changed(err)
}
