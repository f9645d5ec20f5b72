package models_test

import (
	"testing"

	"gorm.io/gorm"

	"aula/internal/pgtest"
	"aula/models"
)

// TestPlanOnceIsTheSearchesOwn checks that a search's statements run with
// generic plans and that the connection goes back to the pool with
// PostgreSQL's own choice: the setting lasts the search's transaction.
func TestPlanOnceIsTheSearchesOwn(t *testing.T) {
	db := pgtest.New(t)
	sqlDB, err := db.DB.DB()
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(1) // the statement after the search runs on the search's connection
	var inside, after string
	err = models.PlanOnce(db.DB, func(tx *gorm.DB) error {
		return tx.Raw("SHOW plan_cache_mode").Scan(&inside).Error
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DB.Raw("SHOW plan_cache_mode").Scan(&after).Error; err != nil {
		t.Fatal(err)
	}
	if inside != "force_generic_plan" || after != "auto" {
		t.Errorf("plan_cache_mode %q in the search and %q after it, want force_generic_plan and auto", inside, after)
	}
}
