// Package pgtest gives tests a real PostgreSQL: one throwaway cluster per
// test binary and a fresh database per test, cloned from a migrated template.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"gorm.io/gorm"

	"aula/internal/pgcluster"
	"aula/migrations"
	"aula/models"
)

const template = "aula_template"

var (
	cluster *pgcluster.Cluster
	admin   *sql.DB
	counter atomic.Int64
	createM sync.Mutex
)

// Main runs the package's tests against a cluster it starts and stops.
// Call it from TestMain: func TestMain(m *testing.M) { pgtest.Main(m) }.
func Main(m *testing.M) {
	// A fuzzing worker only runs the fuzz target, which needs no database:
	// starting a cluster in each worker made `go test -fuzz` slow and,
	// seen once, hang while the workers started.
	if fuzzWorker() {
		os.Exit(m.Run())
	}
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func fuzzWorker() bool {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.fuzzworker") {
			return true
		}
	}
	return false
}

func run(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "aulapg")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		return 0, err
	}
	ctx := context.Background()
	cluster, err = pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Throwaway: true})
	if err != nil {
		return 0, err
	}
	defer cluster.Stop()
	admin, err = sql.Open("pgx", cluster.URL("postgres"))
	if err != nil {
		return 0, err
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + template); err != nil {
		return 0, fmt.Errorf("create template: %w", err)
	}
	tdb, err := sql.Open("pgx", cluster.URL(template))
	if err != nil {
		return 0, err
	}
	if err := migrations.Up(ctx, tdb); err != nil {
		return 0, err
	}
	tdb.Close()
	return m.Run(), nil
}

// DB is a fresh, migrated database for one test.
type DB struct {
	*gorm.DB
	// URL connects to this database.
	URL string
	// Name is the database name.
	Name string
}

// New creates a fresh migrated database, dropped when the test ends.
func New(t testing.TB) *DB {
	t.Helper()
	if cluster == nil {
		t.Fatal("pgtest: call pgtest.Main from TestMain")
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), counter.Add(1))
	createM.Lock()
	_, err := admin.Exec(fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template))
	createM.Unlock()
	if err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	url := cluster.URL(name)
	db, err := models.Open(context.Background(), url)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			sqlDB.Close()
		}
		_, _ = admin.Exec(fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
	})
	return &DB{DB: db, URL: url, Name: name}
}

// Cluster is the running test cluster, for tests that stop or restart it.
func Cluster() *pgcluster.Cluster { return cluster }
