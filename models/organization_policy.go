package models

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The tutor policy an organization's admin sets on /org/settings binds
// the organization's CORPORATE_USER members; its admins (CORPORATE_ADMIN)
// set it and try the tutor freely. The parts the database must hold
// under parallel requests (the question cap, help mode) are read by the
// statements that record a question, through limitSQL and helpOffSQL,
// so no door can skip them and no ask pays an extra round trip.

// MaxQuestionCap bounds an organization's monthly question cap per member.
const MaxQuestionCap = 100000

// Errors of the tutor policy; the fronts translate them.
var (
	ErrPolicyStyle = errors.New("the default teaching style is explain or guide")
	ErrPolicyCap   = fmt.Errorf("the monthly question cap is a whole number from 1 to %d, or empty", MaxQuestionCap)
	// ErrHelpModeOff is a help question from a member whose organization
	// turned help mode off.
	ErrHelpModeOff = errors.New("the organization has turned help mode off")
)

// Policy is an organization's tutor policy.
type Policy struct {
	// TeachingStyle is the style a member's new thread starts in.
	TeachingStyle string
	// GuideDuringChecks: while a member has a knowledge check open on a
	// lesson, the tutor of that lesson only guides, whatever the thread's style.
	GuideDuringChecks bool
	// HelpMode lets members ask the help assistant (help threads).
	HelpMode bool
	// QuestionCap is each member's questions a month; nil is unlimited.
	QuestionCap *int
}

// DefaultPolicy is what binds anyone outside an organization, and a new
// organization's policy: explain, no guard, help mode on, no cap.
func DefaultPolicy() Policy { return Policy{TeachingStyle: StyleExplain, HelpMode: true} }

// Validate checks the style and the cap.
func (p Policy) Validate() error {
	if !ValidStyle(p.TeachingStyle) {
		return ErrPolicyStyle
	}
	if p.QuestionCap != nil && (*p.QuestionCap < 1 || *p.QuestionCap > MaxQuestionCap) {
		return ErrPolicyCap
	}
	return nil
}

// policyColumns reads a Policy from an organization o.
const policyColumns = `o.teaching_style, o.guide_during_checks, o.help_mode, o.question_cap`

// Policy is the organization's tutor policy.
func (s *Organizations) Policy(ctx context.Context, orgID string) (Policy, error) {
	if !validID(orgID) {
		return Policy{}, ErrNotFound
	}
	var p Policy
	err := conn(ctx, s.db).Raw(`SELECT `+policyColumns+` FROM organizations o WHERE o.id = ?`, orgID).Take(&p).Error
	if err != nil {
		return Policy{}, fmt.Errorf("tutor policy: %w", notFound(err))
	}
	return p, nil
}

// SetPolicy stores the organization's tutor policy once it is valid.
func (s *Organizations) SetPolicy(ctx context.Context, orgID string, p Policy, now time.Time) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if !validID(orgID) {
		return ErrNotFound
	}
	res := conn(ctx, s.db).Exec(`UPDATE organizations SET teaching_style = ?, guide_during_checks = ?, help_mode = ?,
		question_cap = ?, updated_at = ? WHERE id = ?`, p.TeachingStyle, p.GuideDuringChecks, p.HelpMode, p.QuestionCap, now, orgID)
	if res.Error != nil {
		return fmt.Errorf("set tutor policy: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}

// PolicyFor is the policy binding a user: their organization's when they
// are a CORPORATE_USER member, else DefaultPolicy. plan is the user's
// plan as the caller read it ("" unknown): any other plan costs no query.
func (s *Organizations) PolicyFor(ctx context.Context, userID, plan string) (Policy, error) {
	if (plan != "" && plan != PlanCorporateUser) || !validID(userID) {
		return DefaultPolicy(), nil
	}
	var ps []Policy
	err := conn(ctx, s.db).Raw(`SELECT `+policyColumns+` FROM users u
		JOIN organization_members m ON m.user_id = u.id JOIN organizations o ON o.id = m.organization_id
		WHERE u.id = ? AND u.plan = ?`, userID, PlanCorporateUser).Scan(&ps).Error
	if err != nil {
		return Policy{}, fmt.Errorf("tutor policy of a member: %w", err)
	}
	if len(ps) == 0 {
		return DefaultPolicy(), nil
	}
	return ps[0], nil
}

// boundBy is the SQL condition that the user row u is bound by the
// policy of the organization row o (see the top of this file).
func boundBy(u string) string {
	return u + `.plan = '` + PlanCorporateUser + `' AND om.user_id = ` + u + `.id`
}

// limitSQL is the monthly question limit of the user row u as an SQL
// expression (0: unlimited): their organization's cap for a bound
// member, their plan's otherwise.
func limitSQL(u string) string {
	return `CASE WHEN ` + u + `.plan = '` + PlanCorporateUser + `' THEN coalesce((SELECT o.question_cap
		FROM organization_members om JOIN organizations o ON o.id = om.organization_id
		WHERE ` + boundBy(u) + `), 0) ELSE ` + planLimitSQL(u+".plan") + ` END`
}

// helpOffSQL is true when a question of the user row u in a thread of
// mode (an SQL expression) is a help question their organization refuses.
func helpOffSQL(u, mode string) string {
	return `(` + mode + ` = '` + ModeHelp + `' AND EXISTS (SELECT 1
		FROM organization_members om JOIN organizations o ON o.id = om.organization_id
		WHERE ` + boundBy(u) + ` AND NOT o.help_mode))`
}
