package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"gorm.io/gorm"

	"aula/models"
)

// legacyLine is one line of a single-thread chat history export.
type legacyLine struct {
	Email     *string `json:"email"`
	Role      *string `json:"role"`
	Content   *string `json:"content"`
	CreatedAt *string `json:"created_at"`
}

// legacyReport is what an import did.
type legacyReport struct {
	Users, Added, Existing int
	Bad                    []string // "line N: why"
}

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
	rep, err := importLegacy(ctx, db, f)
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

// importLegacy reads the JSON lines of r and imports them user by user.
func importLegacy(ctx context.Context, db *gorm.DB, r io.Reader) (legacyReport, error) {
	var rep legacyReport
	users := models.NewUsers(db)
	ids := map[string]string{} // email → user id ("" unknown)
	byUser := map[string][]models.LegacyMessage{}
	var order []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		raw := strings.TrimSpace(sc.Text())
		if raw == "" {
			continue
		}
		bad := func(format string, a ...any) {
			rep.Bad = append(rep.Bad, fmt.Sprintf("line %d: ", n)+fmt.Sprintf(format, a...))
		}
		var l legacyLine
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			bad("malformed JSON: %v", err)
			continue
		}
		switch {
		case l.Email == nil || strings.TrimSpace(*l.Email) == "":
			bad("no email")
			continue
		case l.Role == nil || (*l.Role != models.RoleUser && *l.Role != models.RoleAssistant):
			bad("role must be user or assistant")
			continue
		case l.Content == nil || strings.TrimSpace(*l.Content) == "":
			bad("empty content")
			continue
		case l.CreatedAt == nil:
			bad("no created_at")
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, *l.CreatedAt)
		if err != nil {
			bad("created_at %q is not an RFC 3339 time", *l.CreatedAt)
			continue
		}
		email := strings.ToLower(strings.TrimSpace(*l.Email))
		id, known := ids[email]
		if !known {
			u, err := users.GetByEmail(ctx, email)
			switch {
			case errors.Is(err, models.ErrNotFound):
			case err != nil:
				return rep, err
			default:
				id = u.ID
			}
			ids[email] = id
		}
		if id == "" {
			bad("no user with email %s", email)
			continue
		}
		if _, ok := byUser[id]; !ok {
			order = append(order, id)
		}
		byUser[id] = append(byUser[id], models.LegacyMessage{Line: n, Role: *l.Role,
			Content: strings.ToValidUTF8(*l.Content, "\uFFFD"), CreatedAt: at})
	}
	if err := sc.Err(); err != nil {
		return rep, fmt.Errorf("read: %w", err)
	}
	convs := models.NewConversations(db)
	for _, id := range order {
		res, err := convs.ImportLegacy(ctx, id, byUser[id])
		if err != nil {
			return rep, err
		}
		rep.Users++
		rep.Added += res.Added
		rep.Existing += res.Existing
	}
	return rep, nil
}
