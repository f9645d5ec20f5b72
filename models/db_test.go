package models_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"

	"aula/internal/pgtest"
)

// TestPoolConnectionsCacheOnlyStatements checks what a pool connection
// holds for the statements it runs: the prepared-statement cache of pgx's
// default mode, and no description cache, which that mode never reads
// (sized at pgx's default it took 28 KiB per connection).
func TestPoolConnectionsCacheOnlyStatements(t *testing.T) {
	db := pgtest.New(t)
	sqlDB, err := db.DB.DB()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sqlDB.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.Raw(func(driverConn any) error {
		c := driverConn.(*stdlib.Conn).Conn()
		if got := c.Config().DescriptionCacheCapacity; got != 0 {
			t.Errorf("description cache for %d statements, want none", got)
		}
		if got := c.Config().StatementCacheCapacity; got == 0 {
			t.Error("no statement cache: every statement would be parsed and planned anew")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var one int
	if err := db.DB.Raw("SELECT ?::int", 1).Scan(&one).Error; err != nil || one != 1 {
		t.Fatalf("a statement through the pool: %d, %v", one, err)
	}
}
