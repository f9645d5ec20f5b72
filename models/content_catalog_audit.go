package models

import (
	"context"
	"fmt"
)

// AuditEntry is one entry of the content audit log with what its subject
// still is: a lesson, a path or a module (path/module) that exists, so the
// log links it; nothing of these when it is gone or is a file.
type AuditEntry struct {
	ContentEvent
	IsLesson, IsPath bool
	ModuleID         int64
}

// AuditPage returns up to limit entries of the content audit log before
// entry before (0: from the newest), newest first, each with its subject
// resolved in the same statement; more says older entries follow.
func (s *Content) AuditPage(ctx context.Context, before int64, limit int) (entries []AuditEntry, more bool, err error) {
	q := `SELECT a.*, l.id IS NOT NULL AS is_lesson, p.id IS NOT NULL AS is_path, coalesce(m.id, 0) AS module_id
		FROM content_audit a
		LEFT JOIN lessons l ON l.id = a.subject
		LEFT JOIN paths p ON p.slug = a.subject
		LEFT JOIN paths mp ON strpos(a.subject, '/') > 0 AND mp.slug = split_part(a.subject, '/', 1)
		LEFT JOIN modules m ON m.path_id = mp.id AND m.slug = split_part(a.subject, '/', 2)
		WHERE (?::bigint = 0 OR a.id < ?)
		ORDER BY a.id DESC LIMIT ?`
	if err := conn(ctx, s.db).Raw(q, before, before, limit+1).Scan(&entries).Error; err != nil {
		return nil, false, fmt.Errorf("list content audit: %w", err)
	}
	if len(entries) > limit {
		return entries[:limit], true, nil
	}
	return entries, false, nil
}
