package models_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"

	"aula/internal/pgtest"
	"aula/models"
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

// TestConnectionsRunWithoutJIT checks that aula's connections have
// PostgreSQL's JIT off (it compiled a class's batch of lesson searches for
// 1.8 s before running it in 0.2 s), and that a URL saying jit=on keeps it.
func TestConnectionsRunWithoutJIT(t *testing.T) {
	db := pgtest.New(t)
	tests := []struct {
		name, url, want string
	}{
		{"default", db.URL, "off"},
		{"the URL's own", db.URL + "&jit=on", "on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := models.Open(context.Background(), tt.url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { models.Close(g) })
			var got string
			if err := g.Raw("SHOW jit").Scan(&got).Error; err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("jit = %q, want %q", got, tt.want)
			}
		})
	}
}
