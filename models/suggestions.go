package models

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"gorm.io/gorm"
)

// MaxSuggestion is the longest suggested question, in characters.
const MaxSuggestion = 200

// ErrInvalidSuggestion is a suggestion that is empty or over MaxSuggestion characters.
var ErrInvalidSuggestion = fmt.Errorf("each suggestion needs 1 to %d characters", MaxSuggestion)

// LessonSuggestions is a lesson and its three suggested questions.
type LessonSuggestions struct {
	LessonID    string
	Title       string
	PathTitle   string
	Language    string
	Suggestions [3]string
}

// Suggestions is the store admins edit the tutor panel's suggested questions in.
type Suggestions struct{ db *gorm.DB }

// NewSuggestions returns the suggestions store.
func NewSuggestions(db *gorm.DB) *Suggestions { return &Suggestions{db: db} }

// List returns every lesson, in catalog order, with its suggestions, in one statement.
func (s *Suggestions) List(ctx context.Context) ([]LessonSuggestions, error) {
	var rows []struct {
		LessonID, Title, PathTitle, Language string
		Position                             *int
		Text                                 *string
	}
	err := conn(ctx, s.db).Raw(`SELECT l.id AS lesson_id, l.title, p.title AS path_title, l.language,
			s.position, s.text
		FROM lessons l JOIN modules m ON m.id = l.module_id JOIN paths p ON p.id = m.path_id
		LEFT JOIN lesson_suggestions s ON s.lesson_id = l.id
		ORDER BY p.position, p.id, m.position, m.id, l.position, l.id, s.position`).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list suggestions: %w", err)
	}
	var out []LessonSuggestions
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].LessonID != r.LessonID {
			out = append(out, LessonSuggestions{LessonID: r.LessonID, Title: r.Title, PathTitle: r.PathTitle, Language: r.Language})
		}
		if r.Position != nil && *r.Position >= 1 && *r.Position <= 3 && r.Text != nil {
			out[len(out)-1].Suggestions[*r.Position-1] = *r.Text
		}
	}
	return out, nil
}

// Save replaces a lesson's three suggestions. Each is trimmed and must have
// 1 to MaxSuggestion characters (else ErrInvalidSuggestion and nothing
// changes); an unknown lesson is ErrNotFound. Re-imports keep these edits.
func (s *Suggestions) Save(ctx context.Context, lessonID string, texts [3]string) error {
	for i, t := range texts {
		t = strings.TrimSpace(t)
		if t == "" || utf8.RuneCountInString(t) > MaxSuggestion || !utf8.ValidString(t) {
			return ErrInvalidSuggestion
		}
		texts[i] = t
	}
	return WithTx(ctx, s.db, func(ctx context.Context) error {
		tx := conn(ctx, s.db)
		var n int64
		if err := tx.Raw(`SELECT count(*) FROM lessons WHERE id = ?`, lessonID).Row().Scan(&n); err != nil {
			return fmt.Errorf("find lesson: %w", err)
		}
		if n == 0 {
			return ErrNotFound
		}
		for i, t := range texts {
			err := tx.Exec(`INSERT INTO lesson_suggestions (lesson_id, position, text, updated_at) VALUES (?, ?, ?, now())
				ON CONFLICT (lesson_id, position) DO UPDATE SET text = excluded.text, updated_at = now()`,
				lessonID, i+1, t).Error
			if err != nil {
				return fmt.Errorf("save suggestion %d: %w", i+1, err)
			}
		}
		return nil
	})
}
