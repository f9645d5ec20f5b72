package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"time"

	"gorm.io/gorm"

	"aula/digest"
	"aula/handlers"
	"aula/handlers/api"
	"aula/handlers/mcp"
	"aula/handlers/web"
	"aula/models"
	"aula/static"
	"aula/tutor"
	"aula/tutor/stream"
)

// serve runs the web server until ctx ends (SIGINT/SIGTERM), then drains.
func serve(ctx context.Context, cfg *config, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	seedIfEmpty := fs.Bool("seed-if-empty", false, "import the demo content and users when the database has no lessons")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// Pages without HTMX never finish an answer: better no server at all.
	if err := static.Check(static.FS); err != nil {
		return err
	}
	applyMemoryLimit(cfg.MemoryLimit)
	db, err := openDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := prepareDatabase(ctx, db, log, *seedIfEmpty); err != nil {
		return err
	}
	svc := tutor.New(tutor.Config{
		DB: db.Gorm, Credentials: cfg.Credentials, Logger: log,
		DefaultProvider: cfg.LLMProvider, DefaultModel: cfg.LLMModel,
		FirstTokenTimeout: cfg.FirstTokenTimeout, AnswerTimeout: cfg.AnswerTimeout,
		Stream: stream.Config{DatabaseURL: db.URL, LeaseTTL: cfg.LeaseTTL, InstanceID: cfg.InstanceID,
			StreamsPerUser: cfg.StreamsPerUser},
	})
	if err := svc.Start(ctx); err != nil {
		return err
	}
	metrics := &handlers.Metrics{}
	site, err := newSite(cfg, db, svc, log, metrics)
	if err != nil {
		return err
	}
	h := handlers.New(&handlers.Server{DB: db.Gorm, Tutor: svc, Log: log, Static: static.FS,
		AssetVersion: site.AssetVersion, Metrics: metrics, Pages: site,
		TrustedProxies: cfg.TrustedProxies, SecureCookies: cfg.SecureCookies},
		site, api.New(db.Gorm, svc), mcp.New(db.Gorm, svc, log))
	srv := handlers.NewHTTPServer(cfg.Addr, h, log)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (set AULA_ADDR to another address)", cfg.Addr, err)
	}
	go sweepSessions(ctx, db.Gorm, log)
	go paceCollector(ctx, svc.Streams().Active)
	go digest.New(db.Gorm, site.Post, log, svc.Now).Run(ctx, time.Hour)
	log.Info("aula is ready", "url", "http://"+ln.Addr().String(), "provider", cfg.LLMProvider,
		"instance", svc.Streams().InstanceID(), "lease_ttl", cfg.LeaseTTL)
	// Answers in flight get the drain time to finish; whatever is left is
	// stored as interrupted.
	err = handlers.Serve(ctx, srv, ln, svc, cfg.DrainTimeout, log)
	// Email already queued (a welcome, a reset link) still goes out.
	site.Post.Wait()
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("stopped")
	return nil
}

// prepareDatabase opens the whole connection pool before the first
// question, and imports the demo content when asked and the database has
// no lessons.
func prepareDatabase(ctx context.Context, db *database, log *slog.Logger, seedIfEmpty bool) error {
	if err := models.Warm(ctx, db.Gorm); err != nil {
		// The pool still opens connections as questions need them.
		log.Warn("database: the connection pool could not be opened at start", "err", err)
	}
	if !seedIfEmpty {
		return nil
	}
	n, err := models.NewContent(db.Gorm).CountLessons(ctx)
	if err != nil || n > 0 {
		return err
	}
	return seed(ctx, db.Gorm, log)
}

// newSite builds the site's dependencies, its session store signing with
// a key derived from the configured secret.
func newSite(cfg *config, db *database, svc *tutor.Service, log *slog.Logger, m *handlers.Metrics) (*web.App, error) {
	secret, err := cfg.sessionSecret()
	if err != nil {
		return nil, err
	}
	hashKey := sha256.Sum256(append([]byte("aula session signing\x00"), secret...))
	app := web.New(db.Gorm, svc, hashKey[:], log, m)
	app.Sessions.Options.Secure = cfg.SecureCookies
	// Each password hash takes 19 MiB, and a burst of sign-ins leaves the
	// heap sized for the two running at once (about 140 MB resident where
	// 60 MB serve) until a later collection: it goes back to the system
	// as soon as the last hash ends, for one collection per burst.
	app.Users.Hashing.Idle = debug.FreeOSMemory
	if app.Post, err = newPost(cfg, log); err != nil {
		return nil, err
	}
	app.BaseURL = cfg.BaseURL
	return app, nil
}

// sweepSessions deletes expired sessions, old sign-in failures and
// sign-ups and joins, and abandoned empty threads every hour.
func sweepSessions(ctx context.Context, db *gorm.DB, log *slog.Logger) {
	sessions, convs := models.NewSessions(db), models.NewConversations(db)
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	sweeps := []struct {
		what string
		do   func(context.Context) (int64, error)
	}{
		{"expired sessions", sessions.DeleteExpired},
		{"old sign-in failures", models.NewLoginThrottle(db).Sweep},
		{"old sign-ups", models.NewSignupThrottle(db).Sweep},
		{"old organization joins", models.NewJoinThrottle(db).Sweep},
		{"old class sign-ups", models.NewClassSignupThrottle(db).Sweep},
		{"empty conversations", func(ctx context.Context) (int64, error) {
			return convs.DeleteStaleEmpty(ctx, models.EmptyThreadTTL)
		}},
	}
	for {
		for _, s := range sweeps {
			if n, err := s.do(ctx); err != nil && ctx.Err() == nil {
				log.Warn("delete "+s.what, "error", err)
			} else if n > 0 {
				log.Info("deleted "+s.what, "count", n)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
