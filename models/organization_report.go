package models

import (
	"context"
	"fmt"
	"time"
)

// OrgMemberReport is what an organization's admin sees of one member:
// activity, usage counts and progress, never the text of their threads.
type OrgMemberReport struct {
	Member
	// Groups are the names of the member's groups, comma-separated.
	Groups string
	// LastActive is the member's latest sign of activity (a question, a
	// lesson opened or read, a check, a signed-in request); nil when none.
	LastActive *time.Time
	// QuestionsThisMonth is the questions counted against the month's plan usage.
	QuestionsThisMonth int
	// LessonsRead, LessonsChecked and LessonsMastered count the lessons
	// read, with a section checked, and with a section mastered.
	LessonsRead, LessonsChecked, LessonsMastered int
	// SectionsDue counts the sections due for spaced review.
	SectionsDue int
	// Assignments are the member's assignments with their state on each
	// lesson, as on their own Assigned to you; Overdue counts those overdue.
	Assignments []MyAssignment `gorm:"-"`
	Overdue     int            `gorm:"-"`
}

// MemberReport returns the report on one member of the organization at
// now, in two statements; a user outside the organization is ErrNotFound.
func (s *Organizations) MemberReport(ctx context.Context, orgID, userID string, now time.Time) (*OrgMemberReport, error) {
	if !validID(orgID) || !validID(userID) {
		return nil, ErrNotFound
	}
	var r OrgMemberReport
	err := conn(ctx, s.db).Raw(`SELECT m.user_id, u.name, u.email, m.role, m.joined_at,
			coalesce((SELECT string_agg(g.name, ', ' ORDER BY lower(g.name)) FROM organization_group_members gm
				JOIN organization_groups g ON g.id = gm.group_id WHERE gm.user_id = m.user_id), '') AS groups,
			greatest((SELECT max(last_activity_at) FROM conversations WHERE user_id = m.user_id),
				(SELECT visited_at FROM lesson_visits WHERE user_id = m.user_id),
				(SELECT max(read_at) FROM lesson_reads WHERE user_id = m.user_id),
				(SELECT max(last_checked_at) FROM section_mastery WHERE user_id = m.user_id),
				(SELECT max(last_seen_at) FROM sessions WHERE user_id = m.user_id)) AS last_active,
			coalesce((SELECT questions FROM plan_usage WHERE user_id = m.user_id AND period = @period), 0) AS questions_this_month,
			(SELECT count(*) FROM lesson_reads WHERE user_id = m.user_id) AS lessons_read,
			(SELECT count(DISTINCT sm.lesson_id) FROM section_mastery sm WHERE sm.user_id = m.user_id AND `+sectionExists+`) AS lessons_checked,
			(SELECT count(DISTINCT sm.lesson_id) FROM section_mastery sm
				WHERE sm.user_id = m.user_id AND sm.mastered_at IS NOT NULL AND `+sectionExists+`) AS lessons_mastered,
			(SELECT count(*) FROM section_mastery sm WHERE sm.user_id = m.user_id AND sm.due_at <= @now AND `+sectionExists+`) AS sections_due
		FROM organization_members m JOIN users u ON u.id = m.user_id
		WHERE m.organization_id = @org AND m.user_id = @user`,
		map[string]any{"org": orgID, "user": userID, "now": now, "period": Period(now)}).Take(&r).Error
	if err != nil {
		return nil, fmt.Errorf("member report: %w", notFound(err))
	}
	if r.Assignments, err = s.AssignedTo(ctx, userID); err != nil {
		return nil, err
	}
	for _, a := range r.Assignments {
		if a.Overdue(now) {
			r.Overdue++
		}
	}
	return &r, nil
}
