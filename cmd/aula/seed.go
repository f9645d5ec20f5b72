package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"gorm.io/gorm"

	"aula/content"
	"aula/content/importer"
	"aula/models"
)

// demoUsers are the accounts `aula seed` creates, one per kind of user;
// README.md lists them with their passwords.
var demoUsers = []models.NewUser{
	{Email: "free@aula.test", Name: "Frida Free", Password: "free-pass-1", Plan: models.PlanFree},
	{Email: "starter@aula.test", Name: "Santiago Starter", Password: "starter-pass-1", Plan: models.PlanStarter, Locale: "es"},
	{Email: "pro@aula.test", Name: "Paula Pro", Password: "pro-pass-1", Plan: models.PlanPro},
	{Email: "content@aula.test", Name: "Carmen Content", Password: "content-pass-1", Plan: models.PlanContentAdmin},
	{Email: "admin@aula.test", Name: "Ada Admin", Password: "admin-pass-1", Plan: models.PlanSuperAdmin},
}

// seed imports the embedded demo content and creates the demo users; running it again changes nothing.
func seed(ctx context.Context, db *gorm.DB, log *slog.Logger) error {
	rep, err := importer.Import(ctx, models.NewContent(db), content.FS)
	if err != nil {
		return err
	}
	for _, e := range rep.Errors {
		log.Error("content file skipped", "error", e.Error())
	}
	if len(rep.Errors) > 0 {
		return fmt.Errorf("%d demo content files have errors", len(rep.Errors))
	}
	users := models.NewUsers(db)
	created := 0
	for _, u := range demoUsers {
		if _, err := users.Create(ctx, u); err != nil && !errors.Is(err, models.ErrEmailTaken) {
			return fmt.Errorf("create demo user %s: %w", u.Email, err)
		} else if err == nil {
			created++
		}
	}
	log.Info("seeded", "lessons", rep.Lessons, "help_articles", rep.HelpArticles, "unchanged", rep.Unchanged, "users_created", created)
	return nil
}
