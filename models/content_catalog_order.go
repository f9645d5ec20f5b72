package models

import (
	"context"
	"fmt"

	"gorm.io/gorm"
)

// Place says where an item of the catalog goes among its siblings: Step
// -1 is one up, +1 one down; with Step 0, To is its 1-based position
// (beyond the ends: first or last).
type Place struct{ Step, To int }

// placed returns ids with id moved as p says; false when id is not among them.
func placed[T comparable](ids []T, id T, p Place) ([]T, bool) {
	from := -1
	for i, x := range ids {
		if x == id {
			from = i
		}
	}
	if from < 0 {
		return nil, false
	}
	to := p.To - 1
	if p.Step != 0 {
		to = from + p.Step
	}
	to = max(0, min(to, len(ids)-1))
	out := append(append([]T{}, ids[:from]...), ids[from+1:]...)
	out = append(out[:to], append([]T{id}, out[to:]...)...)
	return out, true
}

// renumber writes positions 1..n in ids' order into table (whose id column
// is of type idType), in one statement.
func renumber[T any](tx *gorm.DB, table, idType string, ids []T) error {
	keys := make(TextList, len(ids))
	for i, id := range ids {
		keys[i] = fmt.Sprint(id)
	}
	err := tx.Exec(fmt.Sprintf(`UPDATE %s t SET position = o.n
		FROM unnest(?::text[]) WITH ORDINALITY AS o(id, n) WHERE t.id = o.id::%s AND t.position IS DISTINCT FROM o.n`, table, idType),
		keys).Error
	if err != nil {
		return fmt.Errorf("renumber %s: %w", table, err)
	}
	return nil
}

// MovePath moves a path in the catalog's order and renumbers every path
// densely; the order's lock makes parallel moves queue, so positions never
// repeat.
func (s *Content) MovePath(ctx context.Context, slug string, p Place) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		if err := tx.Exec(pathsOrderLock).Error; err != nil {
			return fmt.Errorf("lock paths: %w", err)
		}
		var slugs []string
		if err := tx.Model(&Path{}).Order("position, slug").Pluck("slug", &slugs).Error; err != nil {
			return fmt.Errorf("list paths: %w", err)
		}
		order, ok := placed(slugs, slug, p)
		if !ok {
			return ErrNotFound
		}
		return tx.Exec(`UPDATE paths t SET position = o.n
			FROM unnest(?::text[]) WITH ORDINALITY AS o(slug, n) WHERE t.slug = o.slug AND t.position IS DISTINCT FROM o.n`,
			TextList(order)).Error
	})
}

// MoveModule moves a module within its path, the path's row locked.
func (s *Content) MoveModule(ctx context.Context, id int64, p Place) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		var pathID int64
		if err := tx.Raw(`SELECT p.id FROM paths p JOIN modules m ON m.path_id = p.id WHERE m.id = ? FOR UPDATE OF p`, id).
			Row().Scan(&pathID); err != nil {
			return notFound(err)
		}
		var ids []int64
		if err := tx.Model(&Module{}).Where("path_id = ?", pathID).Order("position, slug").Pluck("id", &ids).Error; err != nil {
			return fmt.Errorf("list modules: %w", err)
		}
		order, ok := placed(ids, id, p)
		if !ok {
			return ErrNotFound
		}
		return renumber(tx, "modules", "bigint", order)
	})
}

// MoveLesson moves a lesson within its module, the module's row locked;
// students' order of the path follows at once.
func (s *Content) MoveLesson(ctx context.Context, id string, p Place) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		var moduleID int64
		if err := tx.Raw(`SELECT m.id FROM modules m JOIN lessons l ON l.module_id = m.id WHERE l.id = ? FOR UPDATE OF m`, id).
			Row().Scan(&moduleID); err != nil {
			return notFound(err)
		}
		ids, err := moduleLessons(tx, moduleID)
		if err != nil {
			return err
		}
		order, ok := placed(ids, id, p)
		if !ok {
			return ErrNotFound
		}
		return renumber(tx, "lessons", "text", order)
	})
}

// moduleLessons is a module's lesson ids in order.
func moduleLessons(tx *gorm.DB, moduleID int64) ([]string, error) {
	var ids []string
	if err := tx.Model(&Lesson{}).Where("module_id = ?", moduleID).Order("position, id").Pluck("id", &ids).Error; err != nil {
		return nil, fmt.Errorf("list lessons: %w", err)
	}
	return ids, nil
}

// MoveLessonTo puts a lesson last in another module (of any path): both
// modules are locked, in id order so that two opposite moves cannot
// deadlock, and both are renumbered densely.
func (s *Content) MoveLessonTo(ctx context.Context, who Actor, id string, moduleID int64) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		var from int64
		if err := tx.Raw(`SELECT module_id FROM lessons WHERE id = ?`, id).Row().Scan(&from); err != nil {
			return notFound(err)
		}
		var locked []struct {
			ID    int64
			Title string
		}
		if err := tx.Raw(`SELECT id, title FROM modules WHERE id IN (?, ?) ORDER BY id FOR UPDATE`, from, moduleID).
			Scan(&locked).Error; err != nil {
			return fmt.Errorf("lock modules: %w", err)
		}
		var title string
		for _, m := range locked {
			if m.ID == moduleID {
				title = m.Title
			}
		}
		if title == "" {
			return ErrNotFound
		}
		// Read again under the locks: a parallel move may have moved it.
		if err := tx.Raw(`SELECT module_id FROM lessons WHERE id = ?`, id).Row().Scan(&from); err != nil {
			return notFound(err)
		}
		if from == moduleID {
			return nil
		}
		return s.relocate(ctx, tx, who, id, from, moduleID, title)
	})
}

// relocate moves lesson id from module from to module to (both locked), last.
func (s *Content) relocate(ctx context.Context, tx *gorm.DB, who Actor, id string, from, to int64, title string) error {
	if err := tx.Exec(`UPDATE lessons SET module_id = ?,
			position = (SELECT coalesce(max(position), 0) + 1 FROM lessons WHERE module_id = ?) WHERE id = ?`,
		to, to, id).Error; err != nil {
		return fmt.Errorf("move lesson: %w", err)
	}
	ids, err := moduleLessons(tx, from)
	if err != nil {
		return err
	}
	if err := renumber(tx, "lessons", "text", ids); err != nil {
		return err
	}
	return s.RecordContent(ctx, who, AuditMove, id, title)
}
