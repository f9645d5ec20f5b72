package models

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Bounds of what an author writes in the editor. The body is bounded like
// student input is (a question has 4,000 characters, an answer renders its
// first 64 KiB as Markdown): 200 KiB holds a long lesson several times
// over while keeping a save, its preview and its diff cheap.
const (
	MaxLessonTitle   = 200
	MaxLessonSummary = 500
	MaxLessonBody    = 200 << 10
	MaxVersionNote   = 500
	MaxSuggestions   = 3
)

// DraftProblem is one field of a draft the editor refuses: Field names the
// form field, Code the reason (the i18n key's last part).
type DraftProblem struct{ Field, Code string }

// Validate lists what is wrong with a draft (nothing: it can be saved).
// Text PostgreSQL cannot store (NUL, invalid UTF-8) is refused per field,
// so the editor can say where it is and keep everything typed.
func (d LessonDraft) Validate() []DraftProblem {
	var out []DraftProblem
	check := func(field, s string, max int, runes bool) {
		n := len(s)
		if runes {
			n = utf8.RuneCountInString(s)
		}
		switch {
		case !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0:
			out = append(out, DraftProblem{field, "bad_text"})
		case n > max:
			out = append(out, DraftProblem{field, "too_long"})
		}
	}
	check("title", d.Title, MaxLessonTitle, true)
	if strings.TrimSpace(d.Title) == "" {
		out = append(out, DraftProblem{"title", "required"})
	}
	check("summary", d.Summary, MaxLessonSummary, true)
	if d.Language != "en" && d.Language != "es" {
		out = append(out, DraftProblem{"language", "language"})
	}
	check("body", d.ContentMD, MaxLessonBody, false)
	check("note", d.Note, MaxVersionNote, true)
	if len(cleanSuggestions(d.Suggestions)) > MaxSuggestions {
		out = append(out, DraftProblem{"suggestions", "too_many"})
	}
	for i, s := range d.Suggestions {
		check(fmt.Sprintf("suggestion%d", i+1), strings.TrimSpace(s), MaxSuggestion, true)
	}
	return out
}

// EditedLesson is a lesson as its authors see it, whatever its status,
// with its path's slug for the link to the students' page.
type EditedLesson struct {
	Lesson
	PathSlug string
}

// EditedLesson returns lesson id in any status (ErrNotFound when none).
func (s *Content) EditedLesson(ctx context.Context, id string) (*EditedLesson, error) {
	var row EditedLesson
	err := conn(ctx, s.db).Raw(`SELECT l.*, p.slug AS path_slug
		FROM lessons l JOIN modules m ON m.id = l.module_id JOIN paths p ON p.id = m.path_id
		WHERE l.id = ?`, id).Scan(&row).Error
	if err != nil {
		return nil, fmt.Errorf("load lesson: %w", err)
	}
	if row.ID == "" {
		return nil, ErrNotFound
	}
	return &row, nil
}

// ValidVersionNumber reports whether n can be a version's number (the
// column is an int4): anything else is no version, never a query.
func ValidVersionNumber(n int) bool { return n >= 1 && n <= math.MaxInt32 }
