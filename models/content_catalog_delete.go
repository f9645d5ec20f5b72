package models

import (
	"context"
	"fmt"
)

// NotEmptyError refuses deleting a module that still has lessons or a path
// that still has modules: Count is how many.
type NotEmptyError struct{ Count int64 }

func (e *NotEmptyError) Error() string { return fmt.Sprintf("it still holds %d items", e.Count) }

// LessonToDelete is what the confirmation before deleting a lesson names.
type LessonToDelete struct {
	ID, Title, Status, PathTitle, ModuleTitle string
	// Threads is how many students' threads are about the lesson.
	Threads int64
}

// LessonToDelete reads a lesson with its place and its threads' count.
func (s *Content) LessonToDelete(ctx context.Context, id string) (*LessonToDelete, error) {
	var out LessonToDelete
	err := conn(ctx, s.db).Raw(`SELECT l.id, l.title, l.status, p.title AS path_title, m.title AS module_title,
			(SELECT count(*) FROM conversations c WHERE c.lesson_id = l.id AND c.deleted_at IS NULL) AS threads
		FROM lessons l JOIN modules m ON m.id = l.module_id JOIN paths p ON p.id = m.path_id WHERE l.id = ?`, id).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("load lesson: %w", err)
	}
	if out.ID == "" {
		return nil, ErrNotFound
	}
	return &out, nil
}

// DeleteLesson deletes a lesson in one transaction: its threads first keep
// its title (they stay readable, marked removed), then the row goes with
// its sections, versions, progress and checks (the foreign keys cascade;
// threads' lesson_id becomes NULL); an audit entry records it.
func (s *Content) DeleteLesson(ctx context.Context, who Actor, id string) error {
	return s.changed(WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		l, err := lockLesson(tx, id)
		if err != nil {
			return err
		}
		if err := tx.Exec(`UPDATE conversations SET removed_lesson_title = ? WHERE lesson_id = ?`, l.Title, id).Error; err != nil {
			return fmt.Errorf("mark threads: %w", err)
		}
		if err := tx.Exec(`DELETE FROM lessons WHERE id = ?`, id).Error; err != nil {
			return fmt.Errorf("delete lesson: %w", err)
		}
		return s.RecordContent(ctx, who, AuditDelete, id, l.Title)
	}))
}

// ModuleToDelete is what the confirmation before deleting a module names.
type ModuleToDelete struct {
	Module
	PathSlug, PathTitle string
	Lessons             int64
}

// ModuleToDelete reads a module with its path and its lessons' count.
func (s *Content) ModuleToDelete(ctx context.Context, id int64) (*ModuleToDelete, error) {
	var out ModuleToDelete
	err := conn(ctx, s.db).Raw(`SELECT m.*, p.slug AS path_slug, p.title AS path_title,
			(SELECT count(*) FROM lessons l WHERE l.module_id = m.id) AS lessons
		FROM modules m JOIN paths p ON p.id = m.path_id WHERE m.id = ?`, id).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("load module: %w", err)
	}
	if out.ID == 0 {
		return nil, ErrNotFound
	}
	return &out, nil
}

// DeleteModule deletes a module without lessons (a *NotEmptyError
// otherwise), its row locked so that no lesson lands in it meanwhile.
func (s *Content) DeleteModule(ctx context.Context, who Actor, id int64) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		m, err := lockModule(tx, id)
		if err != nil {
			return err
		}
		var n int64
		if err := tx.Model(&Lesson{}).Where("module_id = ?", id).Count(&n).Error; err != nil {
			return fmt.Errorf("count lessons: %w", err)
		}
		if n > 0 {
			return &NotEmptyError{Count: n}
		}
		var pathSlug string
		if err := tx.Raw(`DELETE FROM modules m USING paths p WHERE m.id = ? AND p.id = m.path_id RETURNING p.slug`, id).
			Row().Scan(&pathSlug); err != nil {
			return fmt.Errorf("delete module: %w", err)
		}
		return s.RecordContent(ctx, who, AuditDelete, pathSlug+"/"+m.Slug, m.Title)
	})
}

// PathToDelete is what the confirmation before deleting a path names.
type PathToDelete struct {
	Path
	Modules int64
}

// PathToDelete reads a path with its modules' count.
func (s *Content) PathToDelete(ctx context.Context, slug string) (*PathToDelete, error) {
	var out PathToDelete
	err := conn(ctx, s.db).Raw(`SELECT p.*, (SELECT count(*) FROM modules m WHERE m.path_id = p.id) AS modules
		FROM paths p WHERE p.slug = ?`, slug).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("load path: %w", err)
	}
	if out.ID == 0 {
		return nil, ErrNotFound
	}
	return &out, nil
}

// DeletePath deletes a path without modules (a *NotEmptyError otherwise).
func (s *Content) DeletePath(ctx context.Context, who Actor, slug string) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		p, err := lockPath(tx, slug)
		if err != nil {
			return err
		}
		var n int64
		if err := tx.Model(&Module{}).Where("path_id = ?", p.ID).Count(&n).Error; err != nil {
			return fmt.Errorf("count modules: %w", err)
		}
		if n > 0 {
			return &NotEmptyError{Count: n}
		}
		if err := tx.Exec(`DELETE FROM paths WHERE id = ?`, p.ID).Error; err != nil {
			return fmt.Errorf("delete path: %w", err)
		}
		return s.RecordContent(ctx, who, AuditDelete, slug, p.Title)
	})
}
