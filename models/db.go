// Package models holds the GORM models and every query on them (the schema
// is in migrations, the relay only LISTENs). A store per aggregate, built once in
// cmd/aula; a store reaches the database through conn, and a multi-step
// write runs in one transaction started with WithTx, which the context
// carries to every store called with it. A missing row, or someone else's,
// is ErrNotFound, whatever the query.
package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// ErrNotFound is returned when a row does not exist or belongs to someone else.
var ErrNotFound = errors.New("not found")

// Open connects to PostgreSQL and checks the connection.
func Open(ctx context.Context, url string) (*gorm.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	// Statements run in pgx's default mode, which caches them prepared;
	// its description cache serves another mode only, and each connection
	// allocated one for 512 statements (28 KiB; 1.1 MiB for the pool).
	cfg.DescriptionCacheCapacity = 0
	// No JIT: a batch of a class's lesson searches is estimated costly
	// enough that PostgreSQL compiled it first, 1.8 s per batch of 99 on
	// this machine for a statement that runs in 0.2 s (see noJIT).
	noJIT(cfg)
	db, err := gorm.Open(postgres.New(postgres.Config{Conn: stdlib.OpenDB(*cfg)}), &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		PrepareStmt:            false,
		NowFunc:                func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	// Connections are kept once made, idle ones too: a class asking at
	// once otherwise made new backends in the middle of its questions
	// (each one forked and filling its caches) and closed them right after.
	sqlDB.SetMaxOpenConns(PoolSize)
	sqlDB.SetMaxIdleConns(PoolSize)
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return db, nil
}

// PoolSize is the most connections one process holds.
const PoolSize = 40

// Warm opens the pool's connections now, so the first questions after a
// start do not wait for new backends; on an error (the server's
// max_connections reached) the connections opened so far stay.
func Warm(ctx context.Context, db *gorm.DB) error {
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	conns := make([]*sql.Conn, PoolSize)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i := range conns {
		if conns[i], err = sqlDB.Conn(ctx); err != nil {
			return fmt.Errorf("open the connection pool: %w", err)
		}
	}
	return nil
}

// CreateDatabase creates the database name on the server adminURL reaches
// (as a user allowed to), unless it exists already.
func CreateDatabase(ctx context.Context, adminURL, name string) error {
	admin, err := Open(ctx, adminURL)
	if err != nil {
		return err
	}
	defer Close(admin)
	var exists bool
	if err := admin.WithContext(ctx).Raw(`SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = ?)`, name).
		Row().Scan(&exists); err != nil {
		return fmt.Errorf("check database: %w", err)
	}
	if exists {
		return nil
	}
	// A database name cannot be a bound parameter: it is quoted as an identifier.
	if err := admin.WithContext(ctx).Exec(`CREATE DATABASE ` + pgx.Identifier{name}.Sanitize()).Error; err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	return nil
}

// Close closes db's connection pool.
func Close(db *gorm.DB) {
	if sqlDB, err := db.DB(); err == nil {
		sqlDB.Close()
	}
}

// notFound maps "no row" (GORM's record-not-found, or no row for a
// Row().Scan) to ErrNotFound, so callers outside models test one error.
func notFound(err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) || errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// noJIT turns PostgreSQL's JIT compilation off for aula's connections,
// unless the URL already says otherwise (options or jit=...): every
// statement here is a short one, and JIT's compile time is paid on
// every execution of a statement whose estimated cost passes
// jit_above_cost, whatever it really costs.
func noJIT(cfg *pgx.ConnConfig) {
	if _, set := cfg.RuntimeParams["jit"]; !set {
		cfg.RuntimeParams["jit"] = "off"
	}
}
