package models

import (
	"context"
	"fmt"
	"slices"

	"gorm.io/gorm"
)

// LessonMaterial is a lesson with its sections in order: what a lesson
// thread's prompt carries.
type LessonMaterial struct {
	Lesson Lesson
	Chunks []Chunk
}

// LessonMaterials reads the material of lesson threads. A class asks in
// the same lesson at once: the reads arriving together are answered by
// one read of each lesson they name (see batcher), instead of two round
// trips each queued on the connection pool.
type LessonMaterials struct {
	db  *gorm.DB
	get *reader[string, *LessonMaterial]
}

// NewLessonMaterials returns the store on db.
func NewLessonMaterials(db *gorm.DB) *LessonMaterials {
	return &LessonMaterials{db: db, get: newReader(db, readMaterials)}
}

// Get returns a lesson with its sections in order, or ErrNotFound.
func (s *LessonMaterials) Get(ctx context.Context, lessonID string) (*LessonMaterial, error) {
	m, err := s.get.get(ctx, lessonID)
	if err == nil && m == nil {
		err = ErrNotFound
	}
	return m, err
}

// readMaterials reads the lessons ids name and their sections, two
// statements for all of them; out[i] is nil when ids[i] does not exist.
// Every caller gets its own copy.
func readMaterials(db *gorm.DB, ids []string) ([]*LessonMaterial, error) {
	want := distinct(ids)
	var lessons []Lesson
	if err := db.Where("id IN ? AND status = 'published'", want).Find(&lessons).Error; err != nil {
		return nil, fmt.Errorf("read lessons: %w", err)
	}
	var rows []Chunk
	err := db.Raw(lessonSectionsSQL+` WHERE c.lesson_id IN ? ORDER BY c.lesson_id, c.position`, want).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("lesson chunks: %w", err)
	}
	sections := make(map[string][]Chunk, len(lessons))
	for _, c := range rows {
		sections[c.LessonID] = append(sections[c.LessonID], c)
	}
	outs := make([]*LessonMaterial, len(ids))
	for i, l := range matched(ids, lessons, func(l *Lesson) string { return l.ID }) {
		if l != nil {
			outs[i] = &LessonMaterial{Lesson: *l, Chunks: slices.Clone(sections[l.ID])}
		}
	}
	return outs, nil
}
