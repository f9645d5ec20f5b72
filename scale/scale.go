// Package scale generates the load-test data set behind `aula seed --scale`
// and the benchmarks on a million messages: how big it is, who can sign in
// to it, and how long it took. The statements are the models.ScaleData store's.
package scale

import (
	"context"
	"fmt"
	"time"

	"aula/models"
)

// Password is the password of every generated user (scale-N@aula.test),
// so benchmarks and demos can sign in as one.
const Password = "scale-pass-1"

// Report counts what Generate inserted.
type Report struct {
	Users, Conversations, Messages int64
	Took                           time.Duration
}

// Generate fills the database with 10,000×n users, 100,000×n conversations
// and 1,000,000×n messages over the 180 days before now, in one
// transaction (about 1.5 minutes on 2 cores, most of it maintaining the
// messages indexes), then vacuums so index-only scans stay index-only. The
// demo content must be imported first (models.ErrNoLessons); a second run
// is models.ErrScaleExists.
func Generate(ctx context.Context, store *models.ScaleData, n int, now time.Time) (Report, error) {
	start := time.Now()
	if n < 1 {
		return Report{}, fmt.Errorf("scale must be at least 1, got %d", n)
	}
	rep := Report{Users: 10_000 * int64(n), Conversations: 100_000 * int64(n), Messages: 1_000_000 * int64(n)}
	err := store.Insert(ctx, models.ScaleSize{
		Users: rep.Users, Conversations: rep.Conversations, MessagesPerConversation: rep.Messages / rep.Conversations,
		PasswordHash: models.HashPassword(Password), Now: now,
	})
	if err != nil {
		return rep, err
	}
	if err := store.Vacuum(ctx); err != nil {
		return rep, err
	}
	rep.Took = time.Since(start)
	return rep, nil
}
