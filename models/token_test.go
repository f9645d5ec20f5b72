package models_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

func TestTokensCreateAuthenticateRevoke(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	tokens := models.NewTokens(db.DB)
	u, other := newUser(t, db, models.PlanPro), newUser(t, db, models.PlanFree)

	tok, raw, err := tokens.Create(ctx, u, "  my   laptop ")
	if err != nil {
		t.Fatal(err)
	}
	if tok.Name != "my laptop" || !strings.HasPrefix(raw, models.TokenPrefix) {
		t.Fatalf("token %q named %q", raw, tok.Name)
	}
	var stored int64
	db.Raw(`SELECT count(*) FROM api_tokens WHERE token_hash = convert_to(?, 'UTF8')`, raw).Row().Scan(&stored)
	if stored != 0 {
		t.Fatal("the secret itself is stored")
	}

	now := time.Now().UTC()
	got, _, err := tokens.Authenticate(ctx, raw, now)
	if err != nil || got.ID != u {
		t.Fatalf("authenticate: %v %v", got, err)
	}
	list, _ := tokens.List(ctx, u)
	if len(list) != 1 || list[0].LastUsedAt == nil {
		t.Fatalf("list after use: %+v", list)
	}
	first := *list[0].LastUsedAt
	if _, _, err := tokens.Authenticate(ctx, raw, now.Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	list, _ = tokens.List(ctx, u)
	if !list[0].LastUsedAt.Equal(first) {
		t.Fatalf("last used written again within the minute: %v then %v", first, list[0].LastUsedAt)
	}
	if _, _, err := tokens.Authenticate(ctx, raw, now.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	list, _ = tokens.List(ctx, u)
	if !list[0].LastUsedAt.After(first) {
		t.Fatal("last used not updated after a minute")
	}

	for _, bad := range []string{"", "aula_", "Bearer " + raw, raw + "x", "aula_" + strings.Repeat("A", 43), raw[:len(raw)-1]} {
		if _, _, err := tokens.Authenticate(ctx, bad, now); !errors.Is(err, models.ErrInvalidToken) {
			t.Errorf("token %q: %v, want ErrInvalidToken", bad, err)
		}
	}

	if err := tokens.Revoke(ctx, other, tok.ID); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("someone else revoked it: %v", err)
	}
	if err := tokens.Revoke(ctx, u, "not-a-uuid"); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("bad id: %v", err)
	}
	if err := tokens.Revoke(ctx, u, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tokens.Authenticate(ctx, raw, now); !errors.Is(err, models.ErrInvalidToken) {
		t.Fatalf("revoked token: %v", err)
	}
	if l, _ := tokens.List(ctx, other); len(l) != 0 {
		t.Fatalf("other user sees %d tokens", len(l))
	}
}

func TestTokenNames(t *testing.T) {
	db := pgtest.New(t)
	tokens := models.NewTokens(db.DB)
	u := newUser(t, db, models.PlanPro)
	for _, name := range []string{"", "   ", strings.Repeat("n", models.MaxTokenNameChars+1)} {
		if _, _, err := tokens.Create(context.Background(), u, name); !errors.Is(err, models.ErrTokenName) {
			t.Errorf("name %q: %v", name, err)
		}
	}
}

// TestTokensAuthenticateInParallel has many requests authenticate at the
// same moment, so they share statements: each still gets its own answer.
func TestTokensAuthenticateInParallel(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	tokens := models.NewTokens(db.DB)
	type account struct{ id, raw string }
	var live []account
	for range 5 {
		u := newUser(t, db, models.PlanPro)
		_, raw, err := tokens.Create(ctx, u, "laptop")
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, account{u, raw})
	}
	revokedUser := newUser(t, db, models.PlanPro)
	tok, revoked, _ := tokens.Create(ctx, revokedUser, "old")
	if err := tokens.Revoke(ctx, revokedUser, tok.ID); err != nil {
		t.Fatal(err)
	}
	unknown := models.TokenPrefix + strings.Repeat("A", 43)

	const calls = 120
	var wg sync.WaitGroup
	errs := make(chan string, calls)
	for i := range calls {
		wg.Go(func() {
			switch i % 7 {
			case 5:
				if _, _, err := tokens.Authenticate(ctx, revoked, time.Now()); !errors.Is(err, models.ErrInvalidToken) {
					errs <- "revoked token: " + fmt.Sprint(err)
				}
			case 6:
				if _, _, err := tokens.Authenticate(ctx, unknown, time.Now()); !errors.Is(err, models.ErrInvalidToken) {
					errs <- "unknown token: " + fmt.Sprint(err)
				}
			default:
				a := live[i%7]
				u, _, err := tokens.Authenticate(ctx, a.raw, time.Now())
				if err != nil || u.ID != a.id {
					errs <- fmt.Sprintf("token of %s: %v %v", a.id, u, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	var touched int
	db.Raw(`SELECT count(*) FROM api_tokens WHERE last_used_at IS NOT NULL AND revoked_at IS NULL`).Row().Scan(&touched)
	if touched != len(live) {
		t.Errorf("%d live tokens have a last use, want %d", touched, len(live))
	}
}
