package models_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"aula/internal/pgtest"
	"aula/models"
)

// TestAIRoutesGetInParallel has many questions read their routes at the
// same moment, so they share statements: each gets its own use case's
// route, and a use case without a row is ErrNotFound.
func TestAIRoutesGetInParallel(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	routes := models.NewAIRoutes(db.DB)
	for _, r := range []models.AIRoute{
		{UseCase: models.UseTutorChat, Provider: "openai", Model: "chat-model"},
		{UseCase: models.UseTitle, Provider: "anthropic", Model: "title-model"},
	} {
		if err := routes.Save(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		useCase, model string
		err            error
	}{
		{models.UseTutorChat, "chat-model", nil},
		{models.UseTitle, "title-model", nil},
		{models.UseQuiz, "", models.ErrNotFound},
	}
	const calls = 90
	var wg sync.WaitGroup
	errs := make(chan string, calls)
	for i := range calls {
		tc := tests[i%len(tests)]
		wg.Go(func() {
			r, err := routes.Get(ctx, tc.useCase)
			switch {
			case tc.err != nil && !errors.Is(err, tc.err):
				errs <- fmt.Sprintf("%s: %v, want %v", tc.useCase, err, tc.err)
			case tc.err == nil && (err != nil || r.Model != tc.model || r.UseCase != tc.useCase):
				errs <- fmt.Sprintf("%s: %+v %v, want model %s", tc.useCase, r, err, tc.model)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestAIRoutesGetSeesTheRouteJustSaved reads a route right after each
// change while other readers keep the shared reads busy: a read never
// answers with the route as it was before a change committed before it
// was asked for (an admin's change applies to the very next question).
func TestAIRoutesGetSeesTheRouteJustSaved(t *testing.T) {
	db := pgtest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	routes := models.NewAIRoutes(db.DB)
	save := func(model string) {
		t.Helper()
		if err := routes.Save(context.Background(), models.AIRoute{UseCase: models.UseTutorChat, Provider: "openai", Model: model}); err != nil {
			t.Fatal(err)
		}
	}
	save("model-0")
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	t.Cleanup(cancel)
	for range 8 {
		wg.Go(func() {
			for ctx.Err() == nil {
				_, _ = routes.Get(ctx, models.UseTutorChat)
			}
		})
	}
	for i := 1; i <= 30; i++ {
		want := fmt.Sprintf("model-%d", i)
		save(want)
		r, err := routes.Get(context.Background(), models.UseTutorChat)
		if err != nil || r.Model != want {
			t.Fatalf("after saving %s, Get = %+v, %v", want, r, err)
		}
	}
}
