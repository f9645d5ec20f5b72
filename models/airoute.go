package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gorm.io/gorm"
)

// Use cases, as stored in ai_routes.use_case.
const (
	UseTutorChat = "tutor_chat"
	UseTitle     = "title"
	UseCondense  = "condense"
	UseQuiz      = "quiz"
	// UseEmbeddings embeds the sections and the questions for retrieval's
	// vector ranking; it is off (no row, or offline) until an admin sets it.
	UseEmbeddings = "embeddings"
)

// UseCases lists every use case in the order the admin page shows them.
var UseCases = []string{UseTutorChat, UseTitle, UseCondense, UseQuiz, UseEmbeddings}

// ErrUnknownUseCase means a use case aula does not have.
var ErrUnknownUseCase = errors.New("unknown use case (tutor_chat, title, condense, quiz or embeddings)")

// AIRoute is which provider and model serve one use case.
type AIRoute struct {
	UseCase  string `gorm:"primaryKey"`
	Provider string
	Model    string
	// DisplayName is what students see of the route's model ("" shows the model's own name).
	DisplayName string
	Temperature float64
	MaxTokens   int
	UpdatedBy   *string `gorm:"type:uuid"`
	UpdatedAt   time.Time
}

// TableName is the table of routes.
func (AIRoute) TableName() string { return "ai_routes" }

// AIRoutes is the store of provider routes.
type AIRoutes struct {
	db *gorm.DB
	// get reads the routes of the questions asked together in one
	// statement: every question of a class reads the same row.
	get *reader[string, *AIRoute]
}

// NewAIRoutes returns the routes store.
func NewAIRoutes(db *gorm.DB) *AIRoutes { return &AIRoutes{db: db, get: newReader(db, readRoutes)} }

// Get returns the route of a use case, or ErrNotFound. It is read on
// every call (an admin's change applies to the next question, on every
// process); calls arriving together share one read, and a call only ever
// joins a read that starts after it was made (see batcher), so it sees
// every change committed before it: joining a read already running could
// answer with the route as it was before an admin saved a new one.
func (s *AIRoutes) Get(ctx context.Context, useCase string) (*AIRoute, error) {
	r, err := s.get.get(ctx, useCase)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, ErrNotFound
	}
	// Callers asking for the same use case share the batch's row; each
	// gets its own copy.
	own := *r
	return &own, nil
}

// readRoutes reads the routes of useCases in one statement; routes[i] is
// nil when useCases[i] has no row.
func readRoutes(db *gorm.DB, useCases []string) ([]*AIRoute, error) {
	var rows []AIRoute
	if err := db.Where("use_case IN ?", distinct(useCases)).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("read routes: %w", err)
	}
	return matched(useCases, rows, func(r *AIRoute) string { return r.UseCase }), nil
}

// distinct is list without repeats, in first-seen order.
func distinct(list []string) []string {
	var out []string
	for _, v := range list {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// List returns every route, by use case.
func (s *AIRoutes) List(ctx context.Context) ([]AIRoute, error) {
	var rs []AIRoute
	if err := conn(ctx, s.db).Order("use_case").Find(&rs).Error; err != nil {
		return nil, fmt.Errorf("list routes: %w", err)
	}
	return rs, nil
}

// ErrInvalidRoute is a route with a temperature or token limit out of range.
var ErrInvalidRoute = errors.New("temperature must be between 0 and 2 and max tokens between 1 and 32768")

// MaxDisplayName bounds a route's display name, in characters.
const MaxDisplayName = 60

// ErrInvalidDisplayName is a display name too long or with control characters.
var ErrInvalidDisplayName = errors.New("a display name has at most 60 characters and no control characters")

// Save creates or replaces a route (max tokens 0 means 1,024; the display
// name is trimmed); the caller has checked the provider. ErrInvalidRoute
// when a limit is out of range, ErrInvalidDisplayName for a bad name.
func (s *AIRoutes) Save(ctx context.Context, r AIRoute) error {
	if !validUseCase(r.UseCase) {
		return ErrUnknownUseCase
	}
	r.DisplayName = strings.TrimSpace(r.DisplayName)
	if utf8.RuneCountInString(r.DisplayName) > MaxDisplayName || strings.IndexFunc(r.DisplayName, unicode.IsControl) >= 0 {
		return ErrInvalidDisplayName
	}
	if r.MaxTokens == 0 {
		r.MaxTokens = 1024
	}
	if r.Temperature < 0 || r.Temperature > 2 || r.MaxTokens < 1 || r.MaxTokens > 32768 {
		return ErrInvalidRoute
	}
	if r.UpdatedBy != nil && !validID(*r.UpdatedBy) {
		r.UpdatedBy = nil
	}
	err := conn(ctx, s.db).Exec(`INSERT INTO ai_routes (use_case, provider, model, display_name, temperature, max_tokens, updated_by, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, now())
		ON CONFLICT (use_case) DO UPDATE SET provider = excluded.provider, model = excluded.model,
		    display_name = excluded.display_name, temperature = excluded.temperature, max_tokens = excluded.max_tokens,
		    updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
		r.UseCase, r.Provider, r.Model, r.DisplayName, r.Temperature, r.MaxTokens, r.UpdatedBy).Error
	if err != nil {
		return fmt.Errorf("save route: %w", err)
	}
	return nil
}

// SeedMissing creates the routes that do not exist yet with this provider
// and model; routes an admin chose are left alone.
func (s *AIRoutes) SeedMissing(ctx context.Context, provider, model string) error {
	for _, uc := range UseCases {
		if uc == UseEmbeddings {
			continue // off until an admin chooses: embedding every section costs calls
		}
		err := conn(ctx, s.db).Exec(`INSERT INTO ai_routes (use_case, provider, model) VALUES (?, ?, ?)
			ON CONFLICT (use_case) DO NOTHING`, uc, provider, model).Error
		if err != nil {
			return fmt.Errorf("seed route %s: %w", uc, err)
		}
	}
	return nil
}

func validUseCase(uc string) bool {
	for _, u := range UseCases {
		if u == uc {
			return true
		}
	}
	return false
}
