package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Use cases, as stored in ai_routes.use_case.
const (
	UseTutorChat = "tutor_chat"
	UseTitle     = "title"
	UseCondense  = "condense"
	UseQuiz      = "quiz"
)

// UseCases lists every use case in the order the admin page shows them.
var UseCases = []string{UseTutorChat, UseTitle, UseCondense, UseQuiz}

// ErrUnknownUseCase means a use case aula does not have.
var ErrUnknownUseCase = errors.New("unknown use case (tutor_chat, title, condense or quiz)")

// AIRoute is which provider and model serve one use case.
type AIRoute struct {
	UseCase     string `gorm:"primaryKey"`
	Provider    string
	Model       string
	Temperature float64
	MaxTokens   int
	UpdatedBy   *string `gorm:"type:uuid"`
	UpdatedAt   time.Time
}

// TableName is the table of routes.
func (AIRoute) TableName() string { return "ai_routes" }

// AIRoutes is the store of provider routes.
type AIRoutes struct{ db *gorm.DB }

// NewAIRoutes returns the routes store.
func NewAIRoutes(db *gorm.DB) *AIRoutes { return &AIRoutes{db: db} }

// Get returns the route of a use case, or ErrNotFound.
func (s *AIRoutes) Get(ctx context.Context, useCase string) (*AIRoute, error) {
	var r AIRoute
	if err := conn(ctx, s.db).Where("use_case = ?", useCase).Take(&r).Error; err != nil {
		return nil, notFound(err)
	}
	return &r, nil
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

// Save creates or replaces a route (max tokens 0 means 1,024); the caller
// has checked the provider. ErrInvalidRoute when a limit is out of range.
func (s *AIRoutes) Save(ctx context.Context, r AIRoute) error {
	if !validUseCase(r.UseCase) {
		return ErrUnknownUseCase
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
	err := conn(ctx, s.db).Exec(`INSERT INTO ai_routes (use_case, provider, model, temperature, max_tokens, updated_by, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, now())
		ON CONFLICT (use_case) DO UPDATE SET provider = excluded.provider, model = excluded.model,
		    temperature = excluded.temperature, max_tokens = excluded.max_tokens,
		    updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
		r.UseCase, r.Provider, r.Model, r.Temperature, r.MaxTokens, r.UpdatedBy).Error
	if err != nil {
		return fmt.Errorf("save route: %w", err)
	}
	return nil
}

// SeedMissing creates the routes that do not exist yet with this provider
// and model; routes an admin chose are left alone.
func (s *AIRoutes) SeedMissing(ctx context.Context, provider, model string) error {
	for _, uc := range UseCases {
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
