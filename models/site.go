package models

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// Site is the settings of the whole site a SUPER_ADMIN edits.
type Site struct {
	// ContactEmail is where people who cannot sign in can write ("" none).
	ContactEmail string
}

// SiteSettings is the store of the site's settings (one row).
type SiteSettings struct{ db *gorm.DB }

// NewSiteSettings returns the site settings store.
func NewSiteSettings(db *gorm.DB) *SiteSettings { return &SiteSettings{db: db} }

// Get returns the site's settings; the zero Site before any is saved.
func (s *SiteSettings) Get(ctx context.Context) (Site, error) {
	var site Site
	err := conn(ctx, s.db).Raw(`SELECT contact_email FROM site_settings`).Scan(&site).Error
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		return Site{}, fmt.Errorf("read site settings: %w", err)
	}
	return site, nil
}

// Save stores the site's settings, recording who changed them: the
// contact address is normalized and must be a plain email ("" none), or
// ErrInvalidEmail.
func (s *SiteSettings) Save(ctx context.Context, site Site, by string) error {
	site.ContactEmail = NormalizeEmail(site.ContactEmail)
	if site.ContactEmail != "" && !validEmail(site.ContactEmail) {
		return ErrInvalidEmail
	}
	var who *string
	if validID(by) {
		who = &by
	}
	err := conn(ctx, s.db).Exec(`INSERT INTO site_settings (id, contact_email, updated_by, updated_at) VALUES (true, ?, ?, now())
		ON CONFLICT (id) DO UPDATE SET contact_email = excluded.contact_email, updated_by = excluded.updated_by,
		    updated_at = excluded.updated_at`, site.ContactEmail, who).Error
	if err != nil {
		return fmt.Errorf("save site settings: %w", err)
	}
	return nil
}
