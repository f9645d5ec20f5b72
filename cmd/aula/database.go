package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"gorm.io/gorm"

	"aula/internal/pgcluster"
	"aula/migrations"
	"aula/models"
)

// database is the open, migrated database and, when aula manages it, the cluster.
type database struct {
	Gorm *gorm.DB
	// URL is what Gorm was opened with (the LISTEN connection uses it too).
	URL     string
	cluster *pgcluster.Cluster
	log     *slog.Logger
}

// openDatabase connects to DATABASE_URL, or starts the managed cluster under
// .data/postgres (creating its database on first run), then migrates.
func openDatabase(ctx context.Context, cfg *config, log *slog.Logger) (*database, error) {
	d := &database{log: log}
	url := cfg.DatabaseURL
	if url == "" {
		// .data is aula's own folder; the PostgreSQL user must be able to enter it.
		if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
			return nil, err
		}
		_ = os.Chmod(cfg.DataDir, 0o755)
		dir := filepath.Join(cfg.DataDir, "postgres")
		c, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Fallback: pgcluster.SharedDir(dir)})
		if err != nil {
			return nil, fmt.Errorf("start the local PostgreSQL: %w", err)
		}
		d.cluster = c
		logCluster(log, c, dir)
		if err := models.CreateDatabase(ctx, c.URL("postgres"), "aula"); err != nil {
			d.Close()
			return nil, err
		}
		url = c.URL("aula")
	}
	db, err := models.Open(ctx, url)
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("%w (check DATABASE_URL, or leave it empty to let aula run its own PostgreSQL)", err)
	}
	d.Gorm, d.URL = db, url
	sqlDB, _ := db.DB()
	if err := migrations.Up(ctx, sqlDB); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// logCluster says which cluster aula uses and where its files are.
func logCluster(log *slog.Logger, c *pgcluster.Cluster, dir string) {
	if c.Dir() != dir {
		log.Info("PostgreSQL's files are kept outside the project: the postgres user cannot enter its folder",
			"dir", c.Dir(), "log", filepath.Join(c.Dir(), "postgres.log"))
	}
	if c.Shared() {
		log.Info("using the PostgreSQL another aula process runs for this folder", "dir", c.Dir(), "port", c.Port())
	} else {
		log.Info("managed PostgreSQL running", "dir", c.Dir(), "port", c.Port())
	}
}

// Close closes the connections and leaves the managed cluster, which
// stops when no other aula process (a server beside an admin command)
// uses it.
func (d *database) Close() {
	if d.Gorm != nil {
		models.Close(d.Gorm)
	}
	if d.cluster == nil {
		return
	}
	// The command's context may be cancelled already (Ctrl-C): leaving
	// must still happen.
	stopped, err := d.cluster.Release(context.Background())
	switch {
	case err != nil:
		d.log.Error("stop PostgreSQL", "error", err)
	case stopped:
		d.log.Info("PostgreSQL stopped")
	default:
		d.log.Info("PostgreSQL left running for the other aula processes using it")
	}
}
