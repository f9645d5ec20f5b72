package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"gorm.io/gorm"

	"aula/models"
)

// seedCmd is `aula seed [--scale N]`: the demo content and users, and with
// --scale the load-test data set on top (models.GenerateScale).
func seedCmd(ctx context.Context, db *gorm.DB, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	scale := fs.Int("scale", 0, "also generate 10,000×N users, 100,000×N conversations and 1,000,000×N messages")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("seed: unexpected argument %q", fs.Arg(0))
	}
	if *scale < 0 {
		return fmt.Errorf("seed: --scale must be 1 or more, got %d", *scale)
	}
	if err := seed(ctx, db, log); err != nil {
		return err
	}
	if *scale == 0 {
		return nil
	}
	rep, err := models.GenerateScale(ctx, db, *scale, time.Now())
	if err != nil {
		return fmt.Errorf("seed --scale: %w", err)
	}
	log.Info("scale data generated", "users", rep.Users, "conversations", rep.Conversations,
		"messages", rep.Messages, "took", rep.Took.Round(time.Millisecond), "password", models.ScalePassword)
	return nil
}
