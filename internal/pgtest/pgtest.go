// Package pgtest gives tests a real PostgreSQL: one throwaway cluster per
// test binary and a fresh database per test, cloned from a migrated template.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"gorm.io/gorm"

	"aula/internal/pgcluster"
	"aula/migrations"
	"aula/models"
)

const template = "aula_template"

var (
	cluster *pgcluster.Cluster
	admin   *gorm.DB
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
	sweepStale(os.TempDir())
	dir, err := os.MkdirTemp("", clusterPattern)
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
	admin, err = models.Open(ctx, cluster.URL("postgres"))
	if err != nil {
		return 0, err
	}
	defer models.Close(admin)
	if err := admin.Exec("CREATE DATABASE " + ident(template)).Error; err != nil {
		return 0, fmt.Errorf("create template: %w", err)
	}
	if err := migrateTemplate(ctx); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// migrateTemplate applies the migrations to the template every test's
// database is cloned from.
func migrateTemplate(ctx context.Context) error {
	tdb, err := models.Open(ctx, cluster.URL(template))
	if err != nil {
		return err
	}
	defer models.Close(tdb)
	sqlDB, err := tdb.DB()
	if err != nil {
		return err
	}
	return migrations.Up(ctx, sqlDB)
}

// ident quotes a database name; names cannot be bound parameters.
func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

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
	err := admin.Exec("CREATE DATABASE " + ident(name) + " TEMPLATE " + ident(template)).Error
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
		models.Close(db)
		admin.Exec("DROP DATABASE IF EXISTS " + ident(name) + " WITH (FORCE)")
	})
	return &DB{DB: db, URL: url, Name: name}
}

// Cluster is the running test cluster, for tests that stop or restart it.
func Cluster() *pgcluster.Cluster { return cluster }
