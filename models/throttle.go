package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"gorm.io/gorm"
)

// ErrThrottled means too many attempts: wait ThrottleError.RetryAfter.
var ErrThrottled = errors.New("too many attempts")

// ThrottleError is ErrThrottled with how long to wait.
type ThrottleError struct {
	// RetryAfter is when the next attempt may be allowed.
	RetryAfter time.Duration
}

func (e *ThrottleError) Error() string {
	return fmt.Sprintf("too many attempts: retry in %s", e.RetryAfter.Round(time.Second))
}

// Is makes errors.Is(err, ErrThrottled) true.
func (e *ThrottleError) Is(target error) bool { return target == ErrThrottled }

// LoginThrottle counts sign-in attempts in the database, so every process
// sees the same counts. An attempt is reserved before the password hash
// runs and cleared when it succeeds, so concurrent guesses all count.
//
// Limits, within Window:
//   - PerPair failures for one account from one address;
//   - PerAddress failures from one address, whatever the accounts;
//   - past PerAccount failures for one account, addresses it has never
//     signed in from wait an exponential backoff (1 s, 2 s, 4 s … up to
//     Window) between attempts. Its usual addresses are not slowed, so
//     guesses from elsewhere never lock the owner out.
type LoginThrottle struct {
	db *gorm.DB
	// Window is how far back failures count.
	Window time.Duration
	// PerPair, PerAddress and PerAccount are the limits described above.
	PerPair, PerAddress, PerAccount int
	// KnownFor is how long a successful sign-in makes an address usual.
	KnownFor time.Duration
}

// NewLoginThrottle allows 5 failures per account and address, 20 per
// address and 10 per account before the backoff, in 15 minutes.
func NewLoginThrottle(db *gorm.DB) *LoginThrottle {
	return &LoginThrottle{db: db, Window: 15 * time.Minute, PerPair: 5, PerAddress: 20, PerAccount: 10,
		KnownFor: 90 * 24 * time.Hour}
}

// Attempt is a reserved sign-in attempt: it counts as a failure unless
// Succeed or Release clears it.
type Attempt struct {
	account, pair, address string
	ids                    []int64
}

func accountKey(email string) string { return "acct:" + NormalizeEmail(email) }
func addressKey(ip string) string    { return "ip:" + ip }
func pairKey(email, ip string) string {
	return "pair:" + NormalizeEmail(email) + "|" + ip
}

// attemptCounts are the failures within the window that bear on an attempt.
type attemptCounts struct {
	Pair, Address, Account int
	LastAccount            time.Time
	Known                  bool
}

// Reserve checks the limits and counts the attempt, atomically for the
// account and the address; a refusal is a *ThrottleError.
func (t *LoginThrottle) Reserve(ctx context.Context, email, ip string) (*Attempt, error) {
	a := &Attempt{account: accountKey(email), pair: pairKey(email, ip), address: ip}
	err := WithTx(ctx, t.db, func(ctx context.Context) error {
		db := conn(ctx, t.db)
		// One reservation at a time per account and per address: the count
		// and the insert must not interleave (always in this order).
		for _, k := range []string{a.account, addressKey(ip)} {
			if err := db.Exec("SELECT pg_advisory_xact_lock(hashtextextended(?, 1))", k).Error; err != nil {
				return err
			}
		}
		var n attemptCounts
		if err := db.Raw(`SELECT
				count(*) FILTER (WHERE key = @pair) AS pair,
				count(*) FILTER (WHERE key = @addr) AS address,
				count(*) FILTER (WHERE key = @acct) AS account,
				coalesce(max(attempted_at) FILTER (WHERE key = @acct), 'epoch') AS last_account,
				EXISTS (SELECT 1 FROM login_addresses WHERE account = @acct AND address = @ip
					AND seen_at > now() - make_interval(secs => @known)) AS known
			FROM login_failures WHERE key IN (@pair, @addr, @acct) AND attempted_at > now() - make_interval(secs => @window)`,
			map[string]any{"pair": a.pair, "addr": addressKey(ip), "acct": a.account, "ip": ip,
				"known": t.KnownFor.Seconds(), "window": t.Window.Seconds()}).Scan(&n).Error; err != nil {
			return err
		}
		if wait := t.wait(n); wait > 0 {
			return &ThrottleError{RetryAfter: wait}
		}
		return db.Raw(`INSERT INTO login_failures (key) VALUES (?), (?), (?) RETURNING id`,
			a.pair, addressKey(ip), a.account).Scan(&a.ids).Error
	})
	if errors.Is(err, ErrThrottled) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reserve a sign-in attempt: %w", err)
	}
	return a, nil
}

// wait is how long the attempt must wait, or 0 when it may go ahead.
func (t *LoginThrottle) wait(n attemptCounts) time.Duration {
	if n.Pair >= t.PerPair || n.Address >= t.PerAddress {
		return t.Window
	}
	if n.Known || n.Account < t.PerAccount {
		return 0
	}
	backoff := t.Window
	if e := n.Account - t.PerAccount; e < 30 {
		backoff = min(time.Duration(math.Pow(2, float64(e)))*time.Second, t.Window)
	}
	if since := time.Since(n.LastAccount); since < backoff {
		return backoff - since
	}
	return 0
}

// Succeed clears the attempt and the failures of this account from this
// address, and makes the address one of the account's usual ones.
func (t *LoginThrottle) Succeed(ctx context.Context, a *Attempt) error {
	return WithTx(ctx, t.db, func(ctx context.Context) error {
		db := conn(ctx, t.db)
		if err := db.Exec(`DELETE FROM login_failures WHERE id IN ? OR key = ?`, a.ids, a.pair).Error; err != nil {
			return fmt.Errorf("clear sign-in failures: %w", err)
		}
		return db.Exec(`INSERT INTO login_addresses (account, address) VALUES (?, ?)
			ON CONFLICT (account, address) DO UPDATE SET seen_at = now()`, a.account, a.address).Error
	})
}

// Release forgets an attempt that did not happen (the server was too busy
// to check the password).
func (t *LoginThrottle) Release(ctx context.Context, a *Attempt) error {
	return conn(ctx, t.db).Exec(`DELETE FROM login_failures WHERE id IN ?`, a.ids).Error
}

// Sweep deletes failures older than the window and usual addresses not
// seen for KnownFor.
func (t *LoginThrottle) Sweep(ctx context.Context) (int64, error) {
	db := conn(ctx, t.db)
	res := db.Exec(`DELETE FROM login_failures WHERE attempted_at < now() - make_interval(secs => ?)`, t.Window.Seconds())
	if res.Error != nil {
		return 0, fmt.Errorf("sweep sign-in failures: %w", res.Error)
	}
	if err := db.Exec(`DELETE FROM login_addresses WHERE seen_at < now() - make_interval(secs => ?)`,
		t.KnownFor.Seconds()).Error; err != nil {
		return 0, fmt.Errorf("sweep sign-in addresses: %w", err)
	}
	return res.RowsAffected, nil
}

// forgetSignIns deletes what the throttle keeps about an email (a deleted
// account): its failures and its usual addresses.
func forgetSignIns(db *gorm.DB, email string) error {
	// pairKey without an address is the prefix of every pair key of the email.
	if err := db.Exec(`DELETE FROM login_failures WHERE key = ? OR starts_with(key, ?)`,
		accountKey(email), pairKey(email, "")).Error; err != nil {
		return err
	}
	return db.Exec(`DELETE FROM login_addresses WHERE account = ?`, accountKey(email)).Error
}
