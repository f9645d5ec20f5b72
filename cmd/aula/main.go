// Command aula is the learning platform with an AI tutor: the web server and
// its operator commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

const usage = `aula — a learning platform with an AI tutor

Usage:
  aula [serve] [--seed-if-empty]          start the web server (default)
  aula migrate                            apply database migrations
  aula seed [--scale N]                   import the demo content and create the demo users
                                          (--scale: also N×1,000,000 generated messages for load tests)
  aula content import DIR                 import lessons, help articles and media/ images from Markdown files
  aula content export DIR|FILE.zip [--path SLUG]
                                          write them back in the same folder format (a zip or a folder)
  aula user create --email E --name N --password P [--plan PLAN]
  aula user set-plan EMAIL PLAN
  aula user set-password EMAIL            set a password read from standard input; signs the user out everywhere
  aula user list
  aula mail test ADDRESS [--lang es]      send a test email with the AULA_SMTP_URL settings
  aula digest                             send the organization admins' weekly digests due now
  aula import-legacy FILE                 import a single-thread chat history (JSON lines)

Configuration comes from the environment; see README.md.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "aula:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	case "serve", "migrate", "seed", "content", "user", "import-legacy", "mail", "digest":
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	log := newLogger(cfg)
	switch cmd {
	case "serve":
		return serve(ctx, cfg, log, args)
	case "mail":
		return mailCmd(ctx, cfg, log, args)
	}
	// Operator commands: open the database (starting the managed cluster
	// when needed), migrate, do the work, stop.
	db, err := openDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	switch cmd {
	case "migrate":
		log.Info("migrations applied")
		return nil
	case "seed":
		return seedCmd(ctx, db.Gorm, log, args)
	case "content":
		return contentCmd(ctx, db.Gorm, args)
	case "import-legacy":
		return importLegacyCmd(ctx, db.Gorm, args)
	case "digest":
		return digestCmd(ctx, cfg, db.Gorm, log, args)
	default:
		return userCmd(ctx, db.Gorm, args)
	}
}

func newLogger(cfg *config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}
