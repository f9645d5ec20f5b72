package models_test

import (
	"context"
	"testing"

	"gorm.io/gorm"

	"aula/internal/pgtest"
	"aula/models"
)

// TestPlanOnceIsTheSearchesOwn checks that a search's statements run with
// generic plans and that the connection goes back to the pool with
// PostgreSQL's own choice: the setting lasts the search's transaction.
// In a caller's transaction the search takes no setting, which would
// outlast it there.
func TestPlanOnceIsTheSearchesOwn(t *testing.T) {
	db := pgtest.New(t)
	sqlDB, err := db.DB.DB()
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(1) // the statement after the search runs on the search's connection
	show := func(ctx context.Context) (inside, after string) {
		t.Helper()
		err := models.PlanOnce(ctx, db.DB, func(tx *gorm.DB) error {
			return tx.Raw("SHOW plan_cache_mode").Scan(&inside).Error
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.DB.Raw("SHOW plan_cache_mode").Scan(&after).Error; err != nil {
			t.Fatal(err)
		}
		return inside, after
	}
	if inside, after := show(context.Background()); inside != "force_generic_plan" || after != "auto" {
		t.Errorf("plan_cache_mode %q in the search and %q after it, want force_generic_plan and auto", inside, after)
	}
	var inTx string
	err = models.WithTx(context.Background(), db.DB, func(ctx context.Context) error {
		return models.PlanOnce(ctx, db.DB, func(tx *gorm.DB) error {
			return tx.Raw("SHOW plan_cache_mode").Scan(&inTx).Error
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if inTx != "auto" {
		t.Errorf("plan_cache_mode %q in a caller's transaction, want auto", inTx)
	}
}
