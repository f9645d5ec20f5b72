package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"gorm.io/gorm"

	"aula/digest"
)

// digestCmd runs `aula digest`: it sends now the weekly digests due this
// week (those the server would send within the hour) and says how many
// went out; an admin already sent this week's gets none.
func digestCmd(ctx context.Context, cfg *config, db *gorm.DB, log *slog.Logger, args []string) error {
	if len(args) > 0 {
		return errors.New("usage: aula digest")
	}
	if cfg.SMTPURL == "" {
		return errors.New("digest: AULA_SMTP_URL is not set, so aula sends no email (see README, Operations)")
	}
	post, err := newPost(cfg, log)
	if err != nil {
		return err
	}
	n, err := digest.New(db, post, log, time.Now).SendDue(ctx)
	fmt.Printf("sent %d weekly digest letter(s)\n", n)
	if err != nil {
		return fmt.Errorf("digest: %w", err)
	}
	return nil
}
