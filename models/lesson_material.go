package models

import (
	"context"
	"fmt"

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
	db    *gorm.DB
	batch *batcher[string, *LessonMaterial]
}

// NewLessonMaterials returns the store on db.
func NewLessonMaterials(db *gorm.DB) *LessonMaterials {
	s := &LessonMaterials{db: db}
	s.batch = newBatcher(batchWorkers, batchMax, func(ctx context.Context, ids []string) ([]*LessonMaterial, []error) {
		return s.read(s.db.WithContext(ctx), ids)
	})
	return s
}

// Get returns a lesson with its sections in order, or ErrNotFound.
func (s *LessonMaterials) Get(ctx context.Context, lessonID string) (*LessonMaterial, error) {
	if inTx(ctx) {
		ms, errs := s.read(conn(ctx, s.db), []string{lessonID})
		return ms[0], errs[0]
	}
	return s.batch.do(ctx, lessonID)
}

// read reads the lessons ids name and their sections, two statements for
// all of them; a lesson that does not exist is ErrNotFound. Every caller
// gets its own copy.
func (s *LessonMaterials) read(db *gorm.DB, ids []string) ([]*LessonMaterial, []error) {
	want := distinct(ids)
	var lessons []Lesson
	if err := db.Where("id IN ?", want).Find(&lessons).Error; err != nil {
		return eachErr[*LessonMaterial](len(ids), fmt.Errorf("read lessons: %w", err))
	}
	var rows []Chunk
	err := db.Raw(lessonSectionsSQL+` WHERE c.lesson_id IN ? ORDER BY c.lesson_id, c.position`, want).Scan(&rows).Error
	if err != nil {
		return eachErr[*LessonMaterial](len(ids), fmt.Errorf("lesson chunks: %w", err))
	}
	outs, errs := make([]*LessonMaterial, len(ids)), make([]error, len(ids))
	for i, id := range ids {
		errs[i] = ErrNotFound
		for _, l := range lessons {
			if l.ID == id {
				m := &LessonMaterial{Lesson: l}
				for _, c := range rows {
					if c.LessonID == id {
						m.Chunks = append(m.Chunks, c)
					}
				}
				outs[i], errs[i] = m, nil
				break
			}
		}
	}
	return outs, errs
}
