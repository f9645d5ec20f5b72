package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"aula/mail"
)

// newPost builds the post office from the configuration; without
// AULA_SMTP_URL it is a Post that sends nothing.
func newPost(cfg *config, log *slog.Logger) (*mail.Post, error) {
	if cfg.SMTPURL == "" {
		return mail.NewPost(nil, cfg.BaseURL), nil
	}
	m, err := mail.New(mail.Config{URL: cfg.SMTPURL, From: cfg.MailFrom}, log)
	if err != nil {
		return nil, err
	}
	return mail.NewPost(m, cfg.BaseURL), nil
}

// mailCmd runs `aula mail test ADDRESS [--lang es]`: it sends one message
// now and reports the SMTP server's answer, so an operator can check the settings.
func mailCmd(ctx context.Context, cfg *config, log *slog.Logger, args []string) error {
	if len(args) < 2 || args[0] != "test" {
		return errors.New("usage: aula mail test ADDRESS [--lang en|es]")
	}
	fs := flag.NewFlagSet("mail test", flag.ContinueOnError)
	lang := fs.String("lang", "en", "language of the message, en or es")
	if err := fs.Parse(args[2:]); err != nil {
		return err
	}
	if cfg.SMTPURL == "" {
		return errors.New("mail test: AULA_SMTP_URL is not set, so aula sends no email (see README, Operations)")
	}
	post, err := newPost(cfg, log)
	if err != nil {
		return err
	}
	if err := post.Test(ctx, args[1], *lang); err != nil {
		return fmt.Errorf("mail test: %w", err)
	}
	fmt.Printf("sent a test message to %s; the SMTP server accepted it\n", args[1])
	return nil
}
