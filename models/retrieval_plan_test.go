package models_test

import (
	"context"
	"fmt"
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

// A search and a words' check asked alone keep their generic plans: after
// PostgreSQL's five custom plans on a connection it plans them no more
// (their texts are behind subqueries; with them in view the custom plan
// always looked cheaper, and each question was planned again: 0.4–0.6 ms
// of a check, about a search's own run time).
func TestSearchAndCheckKeepTheirGenericPlans(t *testing.T) {
	db := pgtest.New(t)
	seedChunks(t, db)
	sqlDB, err := db.DB.DB()
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(1) // every statement prepared on the one connection read below
	s := models.NewChunks(db.DB)
	ctx := context.Background()
	for i := range 8 {
		q := models.ChunkSearch{Lang: "en", Match: "'vlan':* | 'trunk':*", RankBy: "'vlan':* | 'trunk':*", Limit: 5}
		if i%2 == 1 {
			q.Match, q.RankBy = "'router':* | 'static':*", "'router':* | 'static':*"
		}
		if _, err := s.Search(ctx, q); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Unknown(ctx, false, []string{"'vlan':*", "'trunk':*", "'port':*", "'switch':*", "'broadcst':*", fmt.Sprintf("'zebra%d'", i)}); err != nil {
			t.Fatal(err)
		}
	}
	var plans []struct {
		Kind                      string
		GenericPlans, CustomPlans int
	}
	err = db.Raw(`SELECT CASE WHEN statement LIKE 'WITH terms AS%' THEN 'search' ELSE 'check' END AS kind, generic_plans, custom_plans
		FROM pg_prepared_statements WHERE statement LIKE 'WITH terms AS%' OR statement LIKE 'SELECT d.t,%' ORDER BY 1`).Scan(&plans).Error
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 2 {
		t.Fatalf("prepared search and check statements: %+v, want one of each", plans)
	}
	for _, p := range plans {
		if p.GenericPlans < 3 || p.CustomPlans > 5 {
			t.Errorf("%s: %d generic and %d custom plans of 8 runs, want the generic plan kept after five custom ones", p.Kind, p.GenericPlans, p.CustomPlans)
		}
	}
}
