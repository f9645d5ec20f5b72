package models_test

import (
	"context"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// newCatalog makes path "p" with module "m" and lessons a, b, c as an author would.
func newCatalog(t *testing.T, c *models.Content) *models.Module {
	t.Helper()
	ctx := context.Background()
	if _, err := c.CreatePath(ctx, models.Actor{}, models.NewPath{Slug: "p", Title: "P", Language: "en"}); err != nil {
		t.Fatal(err)
	}
	m, err := c.CreateModule(ctx, models.Actor{}, "p", models.NewModule{Slug: "m", Title: "M"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if _, err := c.CreateLesson(ctx, models.Actor{}, m.ID, models.NewLesson{ID: id, Title: id}); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// lessonsOf is module m's lesson ids by stored position.
func lessonsOf(t *testing.T, db *pgtest.DB, m *models.Module) string {
	t.Helper()
	var out string
	db.DB.Raw(`SELECT string_agg(id || ':' || position, ',' ORDER BY position, id) FROM lessons WHERE module_id = ?`, m.ID).Scan(&out)
	return out
}

func TestCatalogMovesRenumberDensely(t *testing.T) {
	db := pgtest.New(t)
	c := models.NewContent(db.DB)
	ctx := context.Background()
	m := newCatalog(t, c)
	for _, tc := range []struct {
		id   string
		p    models.Place
		want string
	}{
		{"a", models.Place{Step: 1}, "b:1,a:2,c:3"},
		{"a", models.Place{Step: 1}, "b:1,c:2,a:3"},
		{"a", models.Place{Step: 1}, "b:1,c:2,a:3"},
		{"a", models.Place{To: 1}, "a:1,b:2,c:3"},
		{"c", models.Place{Step: -1}, "a:1,c:2,b:3"},
		{"b", models.Place{To: 99}, "a:1,c:2,b:3"},
	} {
		if err := c.MoveLesson(ctx, tc.id, tc.p); err != nil {
			t.Fatal(err)
		}
		if got := lessonsOf(t, db, m); got != tc.want {
			t.Fatalf("move %s %+v: %s, want %s", tc.id, tc.p, got, tc.want)
		}
	}
}
