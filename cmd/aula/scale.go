package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"gorm.io/gorm"

	"aula/models"
	"aula/scale"
)

// seedCmd is `aula seed [--scale N]`: the demo content and users, and with
// --scale the load-test data set on top (scale.Generate).
func seedCmd(ctx context.Context, db *gorm.DB, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	n := fs.Int("scale", 0, "also generate 10,000×N users, 100,000×N conversations and 1,000,000×N messages")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("seed: unexpected argument %q", fs.Arg(0))
	}
	if *n < 0 {
		return fmt.Errorf("seed: --scale must be 1 or more, got %d", *n)
	}
	if err := seed(ctx, db, log); err != nil {
		return err
	}
	if *n == 0 {
		return nil
	}
	rep, err := scale.Generate(ctx, models.NewScaleData(db), *n, time.Now())
	if err != nil {
		return fmt.Errorf("seed --scale: %w", err)
	}
	log.Info("scale data generated", "users", rep.Users, "conversations", rep.Conversations,
		"messages", rep.Messages, "took", rep.Took.Round(time.Millisecond), "password", scale.Password)
	return nil
}
