package models

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// FeedbackTop is how many comments, wrong answers and questions the
// editor shows beside one section.
const FeedbackTop = 3

// FeedbackComment is a comment a student left with a 👎 on an answer
// that cited the section.
type FeedbackComment struct {
	Anchor    string `json:"-"`
	MessageID string
	Reason    string // lesson_unclear, answer_wrong, not_asked or other
	Comment   string
	RatedAt   time.Time
}

// CountedText is a text students wrote (a wrong answer, a question) and
// how many times they wrote it, told apart by case, spacing and end marks.
type CountedText struct {
	Anchor string `json:"-"`
	Text   string
	N      int
}

// SectionFeedback is what students made of one published section as it
// reads now: only evidence from after its text was published (its since)
// counts, and only check answers about this text (its hash), so an edit
// restarts the figures of the sections it changed.
type SectionFeedback struct {
	Anchor, Heading string
	// Since is when this text of the section was first published.
	Since time.Time
	// Down counts the 👎 on answers citing the section; Unclear, Wrong
	// and Other split it by reason.
	Down, Unclear, Wrong, Other int
	Comments                    []FeedbackComment `gorm:"-"` // newest first
	// Tried counts the students with a graded check answer on the
	// section; NotYet those whose last one was not correct.
	Tried, NotYet int
	WrongAnswers  []CountedText `gorm:"-"` // most given first
	Questions     []CountedText `gorm:"-"` // most asked first
}

// Empty reports whether students left no trace on the section yet.
func (f SectionFeedback) Empty() bool {
	return f.Down == 0 && f.Tried == 0 && len(f.Questions) == 0
}

// LessonFeedback is the feedback on every published section of a lesson,
// in the lesson's order.
type LessonFeedback struct {
	LessonID, Title, Language, Status string
	// Version is the lesson's newest version's number.
	Version  int
	Sections []SectionFeedback `gorm:"-"`
}

// Of is the feedback of the section anchor (zero, with the anchor, when
// the published lesson has no such section).
func (f *LessonFeedback) Of(anchor string) SectionFeedback {
	if f != nil {
		for _, s := range f.Sections {
			if s.Anchor == anchor {
				return s
			}
		}
	}
	return SectionFeedback{Anchor: anchor}
}

// feedbackSectionsSQL is the lesson's published sections with the hash a
// check records for each (a section cut into chunks folds their hashes
// in order, as currentSectionsSQL does) and its since (the latest of its
// chunks': any changed part restarts the section).
const feedbackSectionsSQL = `WITH RECURSIVE ch AS (
		SELECT anchor, heading, hash, since, position,
			row_number() OVER (PARTITION BY anchor ORDER BY position) AS k
		FROM lesson_chunks WHERE lesson_id = @lesson
	), fold AS (
		SELECT anchor, heading, hash AS h, since, position AS first, k FROM ch WHERE k = 1
		UNION ALL
		SELECT ch.anchor, fold.heading, encode(sha256(convert_to(fold.h || ch.hash, 'UTF8')), 'hex'),
			greatest(fold.since, ch.since), fold.first, ch.k
		FROM fold JOIN ch ON ch.anchor = fold.anchor AND ch.k = fold.k + 1
	), sec AS (
		SELECT DISTINCT ON (anchor) anchor, heading, h, since, first FROM fold ORDER BY anchor, k DESC
	)`

// citingSQL is the answers (role assistant, found through the index of
// migration 00104) that cite a section of the lesson in their § links,
// written since that section's text was published, once per section.
const citingSQL = `, citing AS (
		SELECT DISTINCT ON (sec.anchor, m.id) sec.anchor, m.id, m.conversation_id, m.seq,
			m.rating, m.rating_reason, m.rating_comment, m.rated_at
		FROM messages m
		CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(m.metadata->'citations') = 'array'
			THEN m.metadata->'citations' ELSE '[]'::jsonb END) AS cit
		JOIN sec ON sec.anchor = coalesce(cit->>'anchor', '')
		WHERE m.role = 'assistant' AND m.metadata->'citations' @> jsonb_build_array(jsonb_build_object('lessonId', CAST(@lesson AS text)))
			AND cit->>'kind' = 'lesson' AND cit->>'lessonId' = @lesson AND coalesce(cit->>'cited', 'true') = 'true'
			AND m.created_at >= sec.since
	)`

// gradedSQL is the graded check answers about the sections' current text.
const gradedSQL = `, graded AS (
		SELECT i.id, i.anchor, i.user_id, i.verdict, i.answer, i.graded_at
		FROM check_items i JOIN sec ON sec.anchor = i.anchor AND sec.h = i.section_hash
		WHERE i.lesson_id = @lesson AND i.verdict IS NOT NULL
	)`

// SectionFeedback reads what students made of each published section of
// a lesson, for the editor, in six statements whatever the number of
// sections, ratings, answers or questions. A lesson that does not exist
// is ErrNotFound; a lesson never published has no sections.
func (s *Content) SectionFeedback(ctx context.Context, lessonID string) (*LessonFeedback, error) {
	db := conn(ctx, s.db)
	f := &LessonFeedback{}
	err := db.Raw(`SELECT id AS lesson_id, title, language, status, version FROM lessons WHERE id = ?`, lessonID).Scan(f).Error
	if err != nil {
		return nil, fmt.Errorf("feedback lesson: %w", err)
	}
	if f.LessonID == "" {
		return nil, ErrNotFound
	}
	lesson := sql.Named("lesson", lessonID)
	if err := db.Raw(feedbackSectionsSQL+`SELECT anchor, heading, since FROM sec ORDER BY first`, lesson).Scan(&f.Sections).Error; err != nil {
		return nil, fmt.Errorf("feedback sections: %w", err)
	}
	for _, step := range []func(*gorm.DB, *LessonFeedback, sql.NamedArg) error{feedbackRatings, feedbackChecks, feedbackWrongAnswers, feedbackQuestions} {
		if err := step(db, f, lesson); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// section is the feedback of anchor, to fill in (nil if not published).
func (f *LessonFeedback) section(anchor string) *SectionFeedback {
	for i := range f.Sections {
		if f.Sections[i].Anchor == anchor {
			return &f.Sections[i]
		}
	}
	return nil
}

// feedbackRatings counts each section's 👎 by reason and keeps its newest
// comments, in one statement: the counts ride on every row, the rows
// with a comment come first.
func feedbackRatings(db *gorm.DB, f *LessonFeedback, lesson sql.NamedArg) error {
	var rows []struct {
		FeedbackComment
		Down, Unclear, Wrong, Other int
	}
	err := db.Raw(feedbackSectionsSQL+citingSQL+`
		SELECT anchor, message_id, reason, comment, rated_at, down, unclear, wrong, other FROM (
			SELECT anchor, id::text AS message_id, coalesce(rating_reason, '') AS reason, rating_comment AS comment, rated_at,
				count(*) OVER w AS down,
				count(*) FILTER (WHERE rating_reason = 'lesson_unclear') OVER w AS unclear,
				count(*) FILTER (WHERE rating_reason = 'answer_wrong') OVER w AS wrong,
				count(*) FILTER (WHERE rating_reason IS DISTINCT FROM 'lesson_unclear' AND rating_reason IS DISTINCT FROM 'answer_wrong') OVER w AS other,
				row_number() OVER (PARTITION BY anchor ORDER BY rating_comment <> '' DESC, rated_at DESC, id) AS rn
			FROM citing WHERE rating = 'down'
			WINDOW w AS (PARTITION BY anchor)
		) r WHERE rn <= @top ORDER BY anchor, rn`, lesson, sql.Named("top", FeedbackTop)).Scan(&rows).Error
	if err != nil {
		return fmt.Errorf("feedback ratings: %w", err)
	}
	for _, r := range rows {
		if sec := f.section(r.Anchor); sec != nil {
			sec.Down, sec.Unclear, sec.Wrong, sec.Other = r.Down, r.Unclear, r.Wrong, r.Other
			if r.Comment != "" {
				sec.Comments = append(sec.Comments, r.FeedbackComment)
			}
		}
	}
	return nil
}

// feedbackChecks counts, per section, the students who answered a check
// question on its current text and those whose last answer was not correct.
func feedbackChecks(db *gorm.DB, f *LessonFeedback, lesson sql.NamedArg) error {
	var rows []struct {
		Anchor        string
		Tried, NotYet int
	}
	err := db.Raw(feedbackSectionsSQL+gradedSQL+`, last AS (
			SELECT DISTINCT ON (anchor, user_id) anchor, verdict FROM graded
			ORDER BY anchor, user_id, graded_at DESC, id DESC
		)
		SELECT anchor, count(*) AS tried, count(*) FILTER (WHERE verdict <> 'correct') AS not_yet
		FROM last GROUP BY anchor`, lesson).Scan(&rows).Error
	if err != nil {
		return fmt.Errorf("feedback checks: %w", err)
	}
	for _, r := range rows {
		if sec := f.section(r.Anchor); sec != nil {
			sec.Tried, sec.NotYet = r.Tried, r.NotYet
		}
	}
	return nil
}

// feedbackWrongAnswers lists each section's most common answers graded
// not yet, the newest spelling of each standing for the rest.
func feedbackWrongAnswers(db *gorm.DB, f *LessonFeedback, lesson sql.NamedArg) error {
	var rows []CountedText
	err := db.Raw(feedbackSectionsSQL+gradedSQL+`
		SELECT anchor, text, n FROM (
			SELECT anchor, left((array_agg(answer ORDER BY graded_at DESC, id DESC))[1], 200) AS text, count(*) AS n,
				row_number() OVER (PARTITION BY anchor ORDER BY count(*) DESC, max(graded_at) DESC) AS rn
			FROM graded WHERE verdict = 'not_yet' AND `+normalizedSQL("answer")+` <> ''
			GROUP BY anchor, `+normalizedSQL("answer")+`
		) w WHERE rn <= @top ORDER BY anchor, rn`, lesson, sql.Named("top", FeedbackTop)).Scan(&rows).Error
	if err != nil {
		return fmt.Errorf("feedback wrong answers: %w", err)
	}
	f.addCounted(rows, func(s *SectionFeedback) *[]CountedText { return &s.WrongAnswers })
	return nil
}

// feedbackQuestions lists each section's most asked questions: the
// students' messages just before the answers citing it, outside checks
// (whose "questions" are the tutor's and whose messages are answers).
func feedbackQuestions(db *gorm.DB, f *LessonFeedback, lesson sql.NamedArg) error {
	var rows []CountedText
	err := db.Raw(feedbackSectionsSQL+citingSQL+`, asked AS (
			SELECT a.anchor, q.content, q.created_at, `+normalizedSQL("q.content")+` AS norm
			FROM citing a
			JOIN conversations c ON c.id = a.conversation_id AND c.mode <> 'check'
			JOIN messages q ON q.conversation_id = a.conversation_id AND q.seq = a.seq - 1 AND q.role = 'user'
		)
		SELECT anchor, text, n FROM (
			SELECT anchor, left((array_agg(content ORDER BY created_at DESC))[1], 300) AS text, count(*) AS n,
				row_number() OVER (PARTITION BY anchor ORDER BY count(*) DESC, max(created_at) DESC) AS rn
			FROM asked WHERE norm <> '' GROUP BY anchor, norm
		) q WHERE rn <= @top ORDER BY anchor, rn`, lesson, sql.Named("top", FeedbackTop)).Scan(&rows).Error
	if err != nil {
		return fmt.Errorf("feedback questions: %w", err)
	}
	f.addCounted(rows, func(s *SectionFeedback) *[]CountedText { return &s.Questions })
	return nil
}

// addCounted puts each row in the list of its section that list picks.
func (f *LessonFeedback) addCounted(rows []CountedText, list func(*SectionFeedback) *[]CountedText) {
	for _, r := range rows {
		if sec := f.section(r.Anchor); sec != nil {
			l := list(sec)
			*l = append(*l, r)
		}
	}
}

// normalizedSQL is a text column told apart only by what matters: case,
// runs of spaces and the marks around it (¿…? ¡…! a final stop) do not.
func normalizedSQL(col string) string {
	return `lower(regexp_replace(btrim(` + col + `, E' \t\r\n\x3f¿!¡.'), '\s+', ' ', 'g'))`
}
