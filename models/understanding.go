package models

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// UnderstandingTop is how many lessons and missed questions the
// Understanding page lists, and how many sections one of its pages shows.
const UnderstandingTop = 20

// LessonUnderstanding is how the check answers about one lesson went,
// beside the 👎 its answers drew.
type LessonUnderstanding struct {
	LessonID, Title string
	Answers, NotYet int // graded check answers, all versions of the lesson
	Down            int // 👎 on the tutor's answers in the lesson's threads
}

// SectionUnderstanding is how the check answers about one section went,
// under its current text and under the texts it had before the lesson
// was edited, beside the 👎 of the answers that cited it.
type SectionUnderstanding struct {
	LessonID, LessonTitle, Heading, Anchor string
	PathSlug                               string // the path the lesson's page is under ("" once the lesson is gone)
	Answers, NotYet                        int    // the section as it reads now
	EarlierAnswers, EarlierNotYet          int    // its earlier versions
	Down                                   int
	// Gone marks a section the lesson no longer has (Heading is then "").
	Gone bool
}

// MissedQuestion is a check question students answered *not yet*.
type MissedQuestion struct {
	LessonID, LessonTitle, Heading, Anchor, Question string
	Answers, NotYet                                  int
	// Earlier marks a question about an earlier version of its section.
	Earlier bool
}

// UnderstandingCursor is where a page of sections starts: after the
// section with these sort keys (answers graded not yet now, then before
// the lesson was edited, both descending, then lesson and anchor).
type UnderstandingCursor struct {
	NotYet, EarlierNotYet int
	LessonID, Anchor      string
}

// EncodeUnderstandingCursor writes c for a page link.
func EncodeUnderstandingCursor(c UnderstandingCursor) string {
	b, _ := json.Marshal([]any{c.NotYet, c.EarlierNotYet, c.LessonID, c.Anchor})
	return base64.RawURLEncoding.EncodeToString(b)
}

// ParseUnderstandingCursor reads a cursor EncodeUnderstandingCursor wrote
// ("" is the first page); anything else is ErrBadCursor.
func ParseUnderstandingCursor(s string) (*UnderstandingCursor, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrBadCursor
	}
	var c UnderstandingCursor
	if err := json.Unmarshal(b, &[]any{&c.NotYet, &c.EarlierNotYet, &c.LessonID, &c.Anchor}); err != nil || c.NotYet < 0 || c.EarlierNotYet < 0 {
		return nil, ErrBadCursor
	}
	return &c, nil
}

// Understanding is the admin page of where understanding fails.
type Understanding struct {
	Answers, NotYet int // every graded check answer
	Lessons         []LessonUnderstanding
	Sections        []SectionUnderstanding
	// Next starts the next page of sections; nil on the last.
	Next   *UnderstandingCursor
	Missed []MissedQuestion
	// Patterns are how the wrong answers about each section listed fall,
	// by SectionKey; only for a scope (ScopedUnderstanding).
	Patterns map[string]WrongPattern
}

// currentSectionsSQL names the sections the lessons have now, each with
// the hash a check records for it: its chunk's hash, or for a section cut
// into several chunks the hashes folded in order, sha256(hash so far ‖
// next chunk's), as tutor's mergeSections does.
const currentSectionsSQL = `WITH RECURSIVE ch AS (
		SELECT lesson_id, anchor, heading, hash, row_number() OVER (PARTITION BY lesson_id, anchor ORDER BY position) AS k
		FROM lesson_chunks
	), fold AS (
		SELECT lesson_id, anchor, heading, hash AS h, k FROM ch WHERE k = 1
		UNION ALL
		SELECT ch.lesson_id, ch.anchor, fold.heading, encode(sha256(convert_to(fold.h || ch.hash, 'UTF8')), 'hex'), ch.k
		FROM fold JOIN ch ON ch.lesson_id = fold.lesson_id AND ch.anchor = fold.anchor AND ch.k = fold.k + 1
	), sec AS (
		SELECT DISTINCT ON (lesson_id, anchor) lesson_id, anchor, heading, h FROM fold ORDER BY lesson_id, anchor, k DESC
	)`

// AdminUnderstanding computes the Understanding page in three statements,
// from the running totals the grading transaction keeps (migration
// 00040), so it costs the same however many answers were ever graded;
// after pages the sections (nil: the first page).
func (s *Stats) AdminUnderstanding(ctx context.Context, after *UnderstandingCursor) (*Understanding, error) {
	src := siteTotals()
	u := &Understanding{}
	if err := s.understandingLessons(ctx, u, src); err != nil {
		return nil, err
	}
	if err := s.understandingSections(ctx, u, src, after); err != nil {
		return nil, err
	}
	err := conn(ctx, s.db).Raw(currentSectionsSQL+`
		SELECT q.lesson_id, coalesce(l.title, '') AS lesson_title, coalesce(sec.heading, '') AS heading, q.anchor,
			q.question, q.answers, q.not_yet, sec.h IS DISTINCT FROM q.section_hash AS earlier
		FROM check_question_totals q
		LEFT JOIN lessons l ON l.id = q.lesson_id
		LEFT JOIN sec ON sec.lesson_id = q.lesson_id AND sec.anchor = q.anchor
		WHERE q.not_yet > 0
		ORDER BY q.not_yet DESC, q.answers, q.lesson_id, q.question_hash LIMIT ?`, UnderstandingTop).Scan(&u.Missed).Error
	if err != nil {
		return nil, fmt.Errorf("missed questions: %w", err)
	}
	return u, nil
}

// understandingLessons fills the overall figures and the lessons with the
// most answers graded *not yet*, in one statement.
func (s *Stats) understandingLessons(ctx context.Context, u *Understanding, src understandingSource) error {
	var rows []struct {
		LessonUnderstanding
		AllAnswers, AllNotYet int
	}
	err := conn(ctx, s.db).Raw(src.with()+`SELECT t.lesson_id, coalesce(l.title, t.lesson_id) AS title,
			sum(t.answers) AS answers, sum(t.not_yet) AS not_yet, coalesce(max(r.down), 0) AS down,
			sum(sum(t.answers)) OVER () AS all_answers, sum(sum(t.not_yet)) OVER () AS all_not_yet
		FROM `+src.sections+` t
		LEFT JOIN lessons l ON l.id = t.lesson_id
		LEFT JOIN `+src.lessonRatings+` r ON r.lesson_id = t.lesson_id
		GROUP BY t.lesson_id, l.title
		ORDER BY not_yet DESC, answers DESC, t.lesson_id LIMIT ?`, src.args(UnderstandingTop)...).Scan(&rows).Error
	if err != nil {
		return fmt.Errorf("understanding per lesson: %w", err)
	}
	for _, r := range rows {
		u.Answers, u.NotYet = r.AllAnswers, r.AllNotYet
		u.Lessons = append(u.Lessons, r.LessonUnderstanding)
	}
	return nil
}

// understandingSections fills one page of sections, most *not yet* (as
// the section reads now, then before its edits) first, with their earlier versions' figures and
// 👎, in one statement; the page is found by keyset, never by offset.
func (s *Stats) understandingSections(ctx context.Context, u *Understanding, src understandingSource, after *UnderstandingCursor) error {
	c := UnderstandingCursor{NotYet: 1 << 30, EarlierNotYet: 1 << 30}
	if after != nil {
		c = *after
	}
	err := conn(ctx, s.db).Raw(src.also(currentSectionsSQL)+`agg AS (
			SELECT t.lesson_id, t.anchor, coalesce(max(sec.heading), '') AS heading, bool_and(sec.h IS NULL) AS gone,
				coalesce(sum(t.answers) FILTER (WHERE t.section_hash = sec.h), 0) AS answers,
				coalesce(sum(t.not_yet) FILTER (WHERE t.section_hash = sec.h), 0) AS not_yet,
				coalesce(sum(t.answers) FILTER (WHERE t.section_hash IS DISTINCT FROM sec.h), 0) AS earlier_answers,
				coalesce(sum(t.not_yet) FILTER (WHERE t.section_hash IS DISTINCT FROM sec.h), 0) AS earlier_not_yet
			FROM `+src.sections+` t
			LEFT JOIN sec ON sec.lesson_id = t.lesson_id AND sec.anchor = t.anchor
			GROUP BY t.lesson_id, t.anchor
		)
		SELECT a.lesson_id, coalesce(l.title, '') AS lesson_title, coalesce(p.slug, '') AS path_slug, a.heading, a.anchor, a.gone,
			a.answers, a.not_yet, a.earlier_answers, a.earlier_not_yet,
			coalesce((SELECT sum(r.down) FROM `+src.sectionRatings+` r WHERE r.lesson_id = a.lesson_id AND r.anchor = a.anchor), 0) AS down
		FROM agg a LEFT JOIN lessons l ON l.id = a.lesson_id
		LEFT JOIN modules m ON m.id = l.module_id LEFT JOIN paths p ON p.id = m.path_id
		WHERE (-a.not_yet, -a.earlier_not_yet, a.lesson_id, a.anchor) > (?, ?, ?, ?)
		ORDER BY a.not_yet DESC, a.earlier_not_yet DESC, a.lesson_id, a.anchor LIMIT ?`,
		src.args(-c.NotYet, -c.EarlierNotYet, c.LessonID, c.Anchor, UnderstandingTop+1)...).Scan(&u.Sections).Error
	if err != nil {
		return fmt.Errorf("understanding per section: %w", err)
	}
	if len(u.Sections) > UnderstandingTop {
		u.Sections = u.Sections[:UnderstandingTop]
		last := u.Sections[UnderstandingTop-1]
		u.Next = &UnderstandingCursor{NotYet: last.NotYet, EarlierNotYet: last.EarlierNotYet, LessonID: last.LessonID, Anchor: last.Anchor}
	}
	return nil
}
