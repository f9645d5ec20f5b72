package models

import (
	"context"
	"fmt"
)

// UnderstandingScope narrows the Understanding figures to some people's
// graded answers: an organization's current members, or those of one of
// its groups (GroupID > 0).
type UnderstandingScope struct {
	OrgID   string
	GroupID int64
}

// WrongPattern is how the wrong answers about one section fall among a
// scope's people, without a word of what anyone wrote.
type WrongPattern struct {
	// People answered a question on the section; Missing got one graded not yet.
	People, Missing int
	// Partly counts the answers graded partly right.
	Partly int
	// AfterHint counts the answers graded not yet after the tutor's hint
	// (a second try in the guide style).
	AfterHint int
}

// understandingSource is where the Understanding statements read their
// figures: the site's running totals, or for a scope the same columns
// summed from its people's graded answers (common table expressions
// placed before the statement's own).
type understandingSource struct {
	ctes                          string
	scopeArgs                     []any
	sections                      string // lesson_id, anchor, section_hash, answers, not_yet
	lessonRatings, sectionRatings string // the 👎 beside them
}

// siteTotals reads the running totals the grading transaction keeps.
func siteTotals() understandingSource {
	return understandingSource{sections: "section_check_totals",
		lessonRatings: "lesson_rating_totals", sectionRatings: "section_rating_totals"}
}

// scopedGradedSQL is a scope's graded answers, found through its members'
// checks (both indexed by user and conversation); the group's condition
// is appended when the scope has one.
const scopedGradedSQL = `scoped_graded AS (
		SELECT i.lesson_id, i.anchor, i.section_hash, i.verdict, i.attempts, i.user_id
		FROM organization_members om
		JOIN checks ch ON ch.user_id = om.user_id
		JOIN check_items i ON i.conversation_id = ch.conversation_id
		WHERE om.organization_id = ? AND i.verdict IS NOT NULL`

// scopedTotals sums the scope's graded answers per section version, as
// the running totals do for the site; the 👎 are the site's and not
// counted for a scope.
func scopedTotals(sc UnderstandingScope) understandingSource {
	graded, args := scopedGradedSQL, []any{sc.OrgID}
	if sc.GroupID > 0 {
		graded += ` AND EXISTS (SELECT 1 FROM organization_group_members gm WHERE gm.group_id = ? AND gm.user_id = om.user_id)`
		args = append(args, sc.GroupID)
	}
	return understandingSource{
		ctes: graded + `
		), scoped_totals AS (
			SELECT lesson_id, anchor, section_hash, count(*) AS answers,
				count(*) FILTER (WHERE verdict = 'not_yet') AS not_yet
			FROM scoped_graded GROUP BY lesson_id, anchor, section_hash
		), no_ratings AS (SELECT ''::text AS lesson_id, ''::text AS anchor, 0 AS down WHERE false)`,
		scopeArgs: args, sections: "scoped_totals", lessonRatings: "no_ratings", sectionRatings: "no_ratings",
	}
}

// with starts a statement with the source's common table expressions.
func (src understandingSource) with() string {
	if src.ctes == "" {
		return ""
	}
	return "WITH " + src.ctes + "\n"
}

// also adds the source's common table expressions after recursive ones
// (currentSectionsSQL), ready for the statement's next one.
func (src understandingSource) also(recursive string) string {
	if src.ctes == "" {
		return recursive + ", "
	}
	return recursive + ", " + src.ctes + ", "
}

// args puts the scope's parameters before the statement's own.
func (src understandingSource) args(own ...any) []any {
	return append(append([]any{}, src.scopeArgs...), own...)
}

// ScopedUnderstanding is the Understanding page for a scope's people: the
// same lessons and page of sections as AdminUnderstanding, summed from
// their graded answers, with how each section's wrong answers fall
// (Patterns) instead of the questions' text, which belongs to their
// checks' threads; three statements whatever the number of answers.
func (s *Stats) ScopedUnderstanding(ctx context.Context, sc UnderstandingScope, after *UnderstandingCursor) (*Understanding, error) {
	if !validID(sc.OrgID) {
		return nil, ErrNotFound
	}
	src := scopedTotals(sc)
	u := &Understanding{}
	if err := s.understandingLessons(ctx, u, src); err != nil {
		return nil, err
	}
	if err := s.understandingSections(ctx, u, src, after); err != nil {
		return nil, err
	}
	return u, s.wrongPatterns(ctx, u, src)
}

// wrongPatterns fills the Patterns of the page's sections in one statement.
func (s *Stats) wrongPatterns(ctx context.Context, u *Understanding, src understandingSource) error {
	u.Patterns = map[string]WrongPattern{}
	// Run even for no section, so the page's statements stay the same.
	keys := make([]string, len(u.Sections))
	for i, sec := range u.Sections {
		keys[i] = SectionKey(sec.LessonID, sec.Anchor)
	}
	var rows []struct {
		Key string
		WrongPattern
	}
	err := conn(ctx, s.db).Raw(src.with()+`SELECT lesson_id || '#' || anchor AS key,
			count(DISTINCT user_id) AS people,
			count(DISTINCT user_id) FILTER (WHERE verdict = 'not_yet') AS missing,
			count(*) FILTER (WHERE verdict = 'partly') AS partly,
			count(*) FILTER (WHERE verdict = 'not_yet' AND attempts > 1) AS after_hint
		FROM scoped_graded WHERE lesson_id || '#' || anchor IN ?
		GROUP BY lesson_id, anchor`, src.args(keys)...).Scan(&rows).Error
	if err != nil {
		return fmt.Errorf("wrong answer patterns: %w", err)
	}
	for _, r := range rows {
		u.Patterns[r.Key] = r.WrongPattern
	}
	return nil
}
