package models_test

import (
	"context"
	"errors"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// TestWithTxSpansStores checks that store calls made with WithTx's context
// commit or roll back together, and that a nested WithTx joins the outer one.
func TestWithTxSpansStores(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	convs := models.NewConversations(db.DB)
	boom := errors.New("boom")
	tests := []struct {
		name    string
		fail    bool
		nested  bool
		wantErr error
		want    int64
	}{
		{"commit", false, false, nil, 2},
		{"rollback", true, false, boom, 0},
		{"nested rollback", true, true, boom, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUser(t, db, models.PlanPro)
			err := models.WithTx(ctx, db.DB, func(ctx context.Context) error {
				if _, err := convs.Create(ctx, u, models.ModeTutor, "", 0, ""); err != nil {
					return err
				}
				create := func(ctx context.Context) error {
					_, err := convs.Create(ctx, u, models.ModeTutor, "", 0, "")
					return err
				}
				if tt.nested {
					if err := models.WithTx(ctx, db.DB, create); err != nil {
						return err
					}
				} else if err := create(ctx); err != nil {
					return err
				}
				if tt.fail {
					return boom
				}
				return nil
			})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("WithTx = %v, want %v", err, tt.wantErr)
			}
			var n int64
			if err := db.Raw(`SELECT count(*) FROM conversations WHERE user_id = ?`, u).Row().Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != tt.want {
				t.Errorf("%d conversations after WithTx, want %d", n, tt.want)
			}
		})
	}
}
