package models_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

func TestLastSuperAdminStays(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	audit, users := models.NewAudit(db.DB), models.NewUsers(db.DB)
	a := account(t, db, "a@example.com", models.PlanSuperAdmin)
	b := account(t, db, "b@example.com", models.PlanSuperAdmin)

	// Two admins demoting each other at once: one of them stays.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, pair := range [][2]string{{a.ID, b.ID}, {b.ID, a.ID}} {
		wg.Go(func() { _, errs[i] = audit.ChangePlan(ctx, pair[0], pair[1], models.PlanFree, time.Now()) })
	}
	wg.Wait()
	refused := 0
	for _, err := range errs {
		if errors.Is(err, models.ErrLastSuperAdmin) {
			refused++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	var left int64
	db.Raw("SELECT count(*) FROM users WHERE plan = 'SUPER_ADMIN'").Scan(&left)
	if refused != 1 || left != 1 {
		t.Fatalf("%d demotions refused, %d SUPER_ADMIN left; want 1 and 1", refused, left)
	}

	var last string
	db.Raw("SELECT email FROM users WHERE plan = 'SUPER_ADMIN'").Scan(&last)
	if _, err := users.SetPlan(ctx, last, models.PlanPro); !errors.Is(err, models.ErrLastSuperAdmin) {
		t.Errorf("set-plan of the last SUPER_ADMIN: %v", err)
	}
	if _, err := users.SetPlan(ctx, last, models.PlanSuperAdmin); err != nil {
		t.Errorf("keeping the last SUPER_ADMIN's plan: %v", err)
	}
}
