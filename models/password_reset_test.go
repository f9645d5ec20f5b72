package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

func TestResetLinkSingleUseExpiryRevocation(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	resets := models.NewPasswordResets(db.DB)
	u := account(t, db, "ana@example.com", models.PlanFree)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	token, err := resets.Issue(ctx, u.ID, t0)
	if err != nil {
		t.Fatal(err)
	}
	stale, _ := resets.Issue(ctx, u.ID, t0)
	expired, _ := resets.Issue(ctx, u.ID, t0.Add(-time.Hour))
	tests := []struct {
		name, token, password string
		at                    time.Time
		want                  error
	}{
		{"unknown token", "not-a-token", "a new password 1", t0, models.ErrResetLink},
		{"expired by 30 minutes", expired, "a new password 1", t0.Add(-time.Hour + models.ResetLinkTTL), models.ErrResetLink},
		{"too short a password keeps the link", token, "short", t0, models.ErrShortPassword},
		{"valid", token, "a new password 1", t0.Add(models.ResetLinkTTL - time.Second), nil},
		{"used once already", token, "another password 2", t0.Add(time.Minute), models.ErrResetLink},
		{"the other open link was spent with it", stale, "another password 2", t0.Add(time.Minute), models.ErrResetLink},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := resets.Redeem(ctx, tt.token, tt.password, tt.at)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := resets.Check(ctx, token, t0); !errors.Is(err, models.ErrResetLink) {
		t.Errorf("a used link still checks: %v", err)
	}
	if _, err := models.NewUsers(db.DB).Authenticate(ctx, u.Email, "a new password 1"); err != nil {
		t.Errorf("new password refused: %v", err)
	}
	var sessions int
	db.Raw(`SELECT count(*) FROM sessions WHERE user_id = ?`, u.ID).Row().Scan(&sessions)
	if sessions != 0 {
		t.Errorf("%d sessions survive the reset", sessions)
	}
	var hashes int
	db.Raw(`SELECT count(*) FROM password_resets WHERE token_hash = convert_to(?, 'UTF8')`, token).Row().Scan(&hashes)
	if hashes != 0 {
		t.Errorf("the token is stored in clear")
	}
}

func TestResetThrottlePerEmailAndAddress(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	th := models.NewResetThrottle(db.DB)
	th.PerEmail, th.PerAddress = 2, 3
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name, email, ip string
		at              time.Time
		want            bool
	}{
		{"first", "a@example.com", "192.0.2.1", t0, true},
		{"second for the email", "A@example.com", "192.0.2.2", t0, true},
		{"third for the email", "a@example.com", "192.0.2.3", t0, false},
		{"another email, address 1 second time", "b@example.com", "192.0.2.1", t0, true},
		{"address 1 third time", "c@example.com", "192.0.2.1", t0, true},
		{"address 1 fourth time", "d@example.com", "192.0.2.1", t0, false},
		{"an hour later the email is free again", "a@example.com", "192.0.2.9", t0.Add(time.Hour + time.Second), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := th.Allow(ctx, tt.email, tt.ip, tt.at)
			if err != nil || ok != tt.want {
				t.Fatalf("allowed %v (%v), want %v", ok, err, tt.want)
			}
		})
	}
}
