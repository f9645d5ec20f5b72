package models_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// TestLoginAttemptsReservedAtomically: 20 concurrent guesses for one
// account from one address; only PerPair of them may reach the hash.
func TestLoginAttemptsReservedAtomically(t *testing.T) {
	db := pgtest.New(t)
	th := models.NewLoginThrottle(db.DB)
	var admitted, refused atomic.Int64
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			_, err := th.Reserve(context.Background(), "victim@example.com", "203.0.113.9")
			switch {
			case err == nil:
				admitted.Add(1)
			case errors.Is(err, models.ErrThrottled):
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if admitted.Load() != int64(th.PerPair) || refused.Load() != 20-int64(th.PerPair) {
		t.Errorf("%d attempts admitted, %d refused; want %d and %d", admitted.Load(), refused.Load(), th.PerPair, 20-th.PerPair)
	}
}

// TestGuessesElsewhereDoNotLockOutTheOwner: an attacker rotating addresses
// makes 40 wrong guesses; the owner still signs in from their usual
// address, while the attacker is slowed to the backoff.
func TestGuessesElsewhereDoNotLockOutTheOwner(t *testing.T) {
	db := pgtest.New(t)
	th := models.NewLoginThrottle(db.DB)
	ctx := context.Background()
	const owner, home = "owner@example.com", "198.51.100.7"
	a, err := th.Reserve(ctx, owner, home)
	if err != nil {
		t.Fatal(err)
	}
	if err := th.Succeed(ctx, a); err != nil {
		t.Fatal(err)
	}
	admitted := 0
	for i := range 40 {
		if _, err := th.Reserve(ctx, owner, fmt.Sprintf("203.0.113.%d", i)); err == nil {
			admitted++
		} else if !errors.Is(err, models.ErrThrottled) {
			t.Fatal(err)
		}
	}
	if admitted > th.PerAccount+1 {
		t.Errorf("%d guesses from rotating addresses admitted at once, want at most %d", admitted, th.PerAccount+1)
	}
	var te *models.ThrottleError
	if _, err := th.Reserve(ctx, owner, "203.0.113.250"); !errors.As(err, &te) || te.RetryAfter <= 0 {
		t.Errorf("a new address after the guesses: %v, want a throttle with a retry time", err)
	}
	if _, err := th.Reserve(ctx, owner, home); err != nil {
		t.Errorf("the owner from their usual address is locked out: %v", err)
	}
	// Wrong guesses from one address lock that pair only.
	for range th.PerPair {
		_, _ = th.Reserve(ctx, "other@example.com", "192.0.2.1")
	}
	if _, err := th.Reserve(ctx, "other@example.com", "192.0.2.1"); !errors.Is(err, models.ErrThrottled) {
		t.Errorf("the %dth guess from one address: %v", th.PerPair+1, err)
	}
}

func TestLoginThrottleSweep(t *testing.T) {
	db := pgtest.New(t)
	th := models.NewLoginThrottle(db.DB)
	ctx := context.Background()
	_, _ = th.Reserve(ctx, "x@example.com", "192.0.2.2")
	db.Exec(`INSERT INTO login_failures (key, attempted_at) VALUES ('acct:old@example.com', now() - interval '2 hours')`)
	n, err := th.Sweep(ctx)
	if err != nil || n != 1 {
		t.Fatalf("swept %d, %v; want the one old row", n, err)
	}
	var left int64
	db.Raw("SELECT count(*) FROM login_failures").Scan(&left)
	if left != 3 {
		t.Errorf("%d rows left, want the 3 of the recent attempt", left)
	}
}

func TestSignupThrottlePerAddress(t *testing.T) {
	db := pgtest.New(t)
	th := models.NewSignupThrottle(db.DB)
	ctx := context.Background()
	allowed := 0
	for range 10 {
		if err := th.Reserve(ctx, "192.0.2.8"); err == nil {
			allowed++
		} else if !errors.Is(err, models.ErrThrottled) {
			t.Fatal(err)
		}
	}
	if allowed != th.Burst {
		t.Errorf("%d sign-ups from one address at once, want %d", allowed, th.Burst)
	}
	if err := th.Reserve(ctx, "192.0.2.9"); err != nil {
		t.Errorf("another address is throttled too: %v", err)
	}
}

func TestSignupThrottleSweep(t *testing.T) {
	db := pgtest.New(t)
	th := models.NewSignupThrottle(db.DB)
	ctx := context.Background()
	if err := th.Reserve(ctx, "192.0.2.30"); err != nil {
		t.Fatal(err)
	}
	db.Exec(`INSERT INTO signup_attempts (address, attempted_at) VALUES ('192.0.2.31', now() - interval '25 hours')`)
	if n, err := th.Sweep(ctx); err != nil || n != 1 {
		t.Errorf("swept %d, %v; want the one sign-up older than a day", n, err)
	}
}
