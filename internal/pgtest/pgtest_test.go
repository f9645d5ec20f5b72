package pgtest_test

import (
	"testing"

	"aula/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestFreshDatabasesAreMigratedAndIsolated(t *testing.T) {
	a, b := pgtest.New(t), pgtest.New(t)
	if err := a.Exec("INSERT INTO paths (slug, title, language) VALUES ('x', 'X', 'en')").Error; err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := b.Raw("SELECT count(*) FROM paths").Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("database b sees %d rows written to a", n)
	}
}
