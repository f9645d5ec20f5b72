package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"gorm.io/gorm"

	"aula/legacy"
	"aula/models"
)

// importLegacyCmd is `aula import-legacy FILE`: each user of the export gets
// one default conversation with their messages in order. Bad lines are
// reported with their numbers and skipped; running it again adds nothing.
func importLegacyCmd(ctx context.Context, db *gorm.DB, args []string) error {
	if len(args) != 1 || args[0] == "" {
		return errors.New("usage: aula import-legacy FILE")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return fmt.Errorf("import-legacy: %w", err)
	}
	defer f.Close()
	rep, err := legacy.Import(ctx, models.NewUsers(db), models.NewConversations(db), f)
	for _, b := range rep.Bad {
		fmt.Fprintln(os.Stderr, "import-legacy: skipped", b)
	}
	if err != nil {
		return fmt.Errorf("import-legacy: %w", err)
	}
	fmt.Printf("imported %d messages for %d users (%d already imported), %d bad lines skipped\n",
		rep.Added, rep.Users, rep.Existing, len(rep.Bad))
	return nil
}
