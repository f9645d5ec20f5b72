package models

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DigestTop is how many members behind and sections a digest names.
const DigestTop = 10

// DigestSections is how many struggling sections a digest names.
const DigestSections = 5

// DigestAdmin is an organization admin whose weekly digest was claimed.
type DigestAdmin struct {
	UserID, Email, Name, Locale string
	OrganizationID, OrgName     string
	// ClaimedAt is the claim's mark, to give it back if the letter fails.
	ClaimedAt time.Time
}

// OverdueMember is a member with assignments past their due date and
// lessons left to do.
type OverdueMember struct {
	UserID, Name string
	Overdue      int
}

// Digest is what one organization's weekly letter says.
type Digest struct {
	// Behind are the members furthest behind (at most DigestTop), of BehindTotal.
	Behind      []OverdueMember
	BehindTotal int
	// Sections are those the members struggle with most (some answer
	// graded not yet as the section reads now), at most DigestSections.
	Sections []SectionUnderstanding
}

// OnTrack reports a digest with nothing to report.
func (d *Digest) OnTrack() bool { return d.BehindTotal == 0 && len(d.Sections) == 0 }

// SetWeeklyDigest turns an admin's weekly digest on or off; someone who
// does not administer orgID is ErrNotFound.
func (s *Organizations) SetWeeklyDigest(ctx context.Context, orgID, userID string, on bool) error {
	if !validID(orgID) || !validID(userID) {
		return ErrNotFound
	}
	res := conn(ctx, s.db).Exec(`UPDATE organization_members SET weekly_digest = ?
		WHERE organization_id = ? AND user_id = ? AND role = 'admin'`, on, orgID, userID)
	if res.Error != nil {
		return fmt.Errorf("weekly digest: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// WeeklyDigest reports whether the admin gets the weekly digest.
func (s *Organizations) WeeklyDigest(ctx context.Context, orgID, userID string) (bool, error) {
	var on bool
	err := conn(ctx, s.db).Raw(`SELECT weekly_digest FROM organization_members WHERE organization_id = ? AND user_id = ?`,
		orgID, userID).Scan(&on).Error
	if err != nil {
		return false, fmt.Errorf("weekly digest: %w", err)
	}
	return on, nil
}

// ErrNoDigestDue is ClaimDigest finding no admin whose digest is due.
var ErrNoDigestDue = errors.New("no weekly digest is due")

// ClaimDigest marks one opted-in admin not yet sent a digest this week
// (since WeekStart(now)) as sent at now, and returns them, in a single
// UPDATE … RETURNING: a row another sender holds is skipped and one it
// has just marked no longer matches, so however many senders run at once
// an admin is claimed once a week. None due is ErrNoDigestDue.
func (s *Organizations) ClaimDigest(ctx context.Context, now time.Time) (*DigestAdmin, error) {
	var out []DigestAdmin
	err := conn(ctx, s.db).Raw(`UPDATE organization_members m SET digest_sent_at = @now
		FROM users u, organizations o
		WHERE m.user_id = (SELECT d.user_id FROM organization_members d
				WHERE d.weekly_digest AND d.role = 'admin' AND (d.digest_sent_at IS NULL OR d.digest_sent_at < @week)
				ORDER BY d.digest_sent_at NULLS FIRST, d.user_id LIMIT 1 FOR UPDATE SKIP LOCKED)
			AND m.weekly_digest AND m.role = 'admin' AND (m.digest_sent_at IS NULL OR m.digest_sent_at < @week)
			AND u.id = m.user_id AND o.id = m.organization_id
		RETURNING m.user_id, u.email, u.name, u.locale, m.organization_id, o.name AS org_name, m.digest_sent_at AS claimed_at`,
		map[string]any{"now": now, "week": WeekStart(now)}).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("claim weekly digest: %w", err)
	}
	if len(out) == 0 {
		return nil, ErrNoDigestDue
	}
	return &out[0], nil
}

// ReleaseDigest gives back a claim whose letter could not be sent, so the
// next round tries again this week.
func (s *Organizations) ReleaseDigest(ctx context.Context, a *DigestAdmin) error {
	err := conn(ctx, s.db).Exec(`UPDATE organization_members SET digest_sent_at = NULL
		WHERE user_id = ? AND digest_sent_at = ?`, a.UserID, a.ClaimedAt).Error
	if err != nil {
		return fmt.Errorf("release weekly digest: %w", err)
	}
	return nil
}

// overdueSQL is each member's assignments due before @today with a lesson
// not done: not read nor checked, or, when a check is required, its check
// not passed (as MyAssignment.Overdue counts them, on the same pieces).
func overdueSQL() string {
	return `SELECT om.user_id, a.id
	FROM organization_members om
	JOIN organization_assignments a ON a.organization_id = om.organization_id AND a.due_on < @today
		AND ` + assignedToUser("om.user_id") + `
	WHERE om.organization_id = @org AND EXISTS (SELECT 1 FROM lessons l
		LEFT JOIN lesson_reads r ON r.user_id = om.user_id AND r.lesson_id = l.id
		LEFT JOIN LATERAL (` + sectionCounts("sm.user_id = om.user_id AND sm.lesson_id = l.id") + `) c ON true
		WHERE (` + assignmentLessons + `) AND CASE WHEN a.check_required THEN coalesce(c.passed, 0) = 0
			ELSE r.user_id IS NULL AND coalesce(c.checked, 0) = 0 END)`
}

// OverdueMembers returns the organization's members with overdue
// assignments at now, most overdue first (at most limit), and how many
// members are behind in all, in one statement.
func (s *Organizations) OverdueMembers(ctx context.Context, orgID string, now time.Time, limit int) ([]OverdueMember, int, error) {
	if !validID(orgID) {
		return nil, 0, ErrNotFound
	}
	var rows []struct {
		OverdueMember
		Total int
	}
	err := conn(ctx, s.db).Raw(`WITH due AS (`+overdueSQL()+`)
		SELECT u.id AS user_id, u.name, count(*) AS overdue, count(*) OVER () AS total
		FROM due JOIN users u ON u.id = due.user_id
		GROUP BY u.id, u.name ORDER BY overdue DESC, u.name, u.id LIMIT @limit`,
		map[string]any{"org": orgID, "today": now.UTC().Format(time.DateOnly), "limit": limit}).Scan(&rows).Error
	if err != nil {
		return nil, 0, fmt.Errorf("overdue members: %w", err)
	}
	out := make([]OverdueMember, len(rows))
	total := 0
	for i, r := range rows {
		out[i], total = r.OverdueMember, r.Total
	}
	return out, total, nil
}
