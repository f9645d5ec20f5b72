package models

import (
	"context"
	"fmt"
	"time"
)

// OrgScale is how large an organization InsertOrg makes: its members and
// the lessons assigned to all of them.
type OrgScale struct {
	Members, Lessons int
	Now              time.Time
}

// InsertOrg fills the organization orgID, set-based (INSERT … SELECT
// generate_series, no row built in Go), for the completion matrix's
// statement test and benchmark: a path org-scale of sc.Lessons lessons (two
// sections each) assigned to everyone, half of it again to a group of every
// other member with the check required; sc.Members members org-scale-N@aula.test
// who read, were checked on and mastered a spread of the lessons. Seats
// are not checked: this is test data.
func (s *ScaleData) InsertOrg(ctx context.Context, orgID string, sc OrgScale) error {
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		for _, st := range orgScaleSteps(orgID, sc) {
			if err := tx.Exec(st.sql, st.args...).Error; err != nil {
				return fmt.Errorf("generate %s: %w", st.what, err)
			}
		}
		return nil
	})
}

// orgScaleSteps are InsertOrg's statements, in dependency order.
func orgScaleSteps(orgID string, sc OrgScale) []scaleStep {
	return []scaleStep{
		{"path", `INSERT INTO paths (slug, title, language, position) VALUES ('org-scale', 'Organization scale', 'en', 99)`, nil},
		{"module", `INSERT INTO modules (path_id, slug, title, position)
			SELECT id, 'all', 'All of it', 1 FROM paths WHERE slug = 'org-scale'`, nil},
		{"lessons", `INSERT INTO lessons (id, module_id, title, position, language, content_md, content_hash)
			SELECT 'org-scale-' || i, m.id, 'Scale lesson ' || i, i, 'en', '# Lesson', 'h' || i
			FROM modules m JOIN paths p ON p.id = m.path_id, generate_series(1, ?) AS i WHERE p.slug = 'org-scale'`, []any{sc.Lessons}},
		{"sections", `INSERT INTO lesson_chunks (lesson_id, position, heading, anchor, text, hash)
			SELECT l.id, k, 'Part ' || k, 'part-' || k, 'Text', md5(l.id || k)
			FROM lessons l, generate_series(1, 2) AS k WHERE l.id LIKE 'org-scale-%'`, nil},
		{"users", `INSERT INTO users (id, email, password_hash, name, plan, created_at, updated_at)
			SELECT md5('org-scale-u' || i)::uuid, 'org-scale-' || i || '@aula.test', 'x', 'Member ' || lpad(i::text, 5, '0'),
				'CORPORATE_USER', ?::timestamptz, ?::timestamptz
			FROM generate_series(1, ?) AS i`, []any{sc.Now, sc.Now, sc.Members}},
		{"members", `INSERT INTO organization_members (organization_id, user_id, joined_at)
			SELECT ?, md5('org-scale-u' || i)::uuid, ? FROM generate_series(1, ?) AS i`, []any{orgID, sc.Now, sc.Members}},
		{"group", `INSERT INTO organization_groups (organization_id, name) VALUES (?, 'Scale group')`, []any{orgID}},
		{"group members", `INSERT INTO organization_group_members (organization_id, group_id, user_id)
			SELECT ?, g.id, md5('org-scale-u' || i)::uuid FROM organization_groups g, generate_series(2, ?, 2) AS i
			WHERE g.organization_id = ? AND g.name = 'Scale group'`, []any{orgID, sc.Members, orgID}},
		{"assignments", `INSERT INTO organization_assignments (organization_id, group_id, path_id, lesson_id, check_required)
			SELECT ?::uuid, NULL::bigint, id, NULL, false FROM paths WHERE slug = 'org-scale'
			UNION ALL
			SELECT ?::uuid, g.id, NULL, 'org-scale-' || i, true FROM organization_groups g, generate_series(1, ? / 2) AS i
			WHERE g.organization_id = ? AND g.name = 'Scale group'`, []any{orgID, orgID, sc.Lessons, orgID}},
		{"reads", `INSERT INTO lesson_reads (user_id, lesson_id, read_at)
			SELECT md5('org-scale-u' || i)::uuid, 'org-scale-' || j, ?
			FROM generate_series(1, ?) AS i, generate_series(1, ?) AS j WHERE (i * 7 + j * 3) % 5 < 3`,
			[]any{sc.Now, sc.Members, sc.Lessons}},
		{"mastery", `INSERT INTO section_mastery (user_id, lesson_id, anchor, streak, last_verdict, mastered_at, last_checked_at, due_at)
			SELECT md5('org-scale-u' || i)::uuid, 'org-scale-' || j, 'part-1', (i + j) % 3,
				(ARRAY['correct', 'partly', 'not_yet'])[1 + (i + j) % 3],
				CASE WHEN (i + j) % 3 = 0 THEN ?::timestamptz END, ?, ?::timestamptz + ((i + j) % 7 - 3) * interval '1 day'
			FROM generate_series(1, ?) AS i, generate_series(1, ?) AS j WHERE (i * 7 + j * 3) % 5 < 2`,
			[]any{sc.Now, sc.Now, sc.Now, sc.Members, sc.Lessons}},
		{"statistics", `ANALYZE users, organization_members, organization_group_members, organization_assignments,
			lessons, lesson_chunks, lesson_reads, section_mastery`, nil},
	}
}
