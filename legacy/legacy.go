// Package legacy imports the chat history of aula's single-thread
// predecessor (`aula import-legacy FILE`): JSON lines of email, role,
// content and created_at. Each user gets one default conversation holding
// their messages in order; running it again adds nothing, and a longer
// export adds only the new lines.
package legacy

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"aula/models"
)

// Report is what an import did.
type Report struct {
	Users, Added, Existing int
	Bad                    []string // "line N: why"
}

// line is one line of the export.
type line struct {
	Email     *string `json:"email"`
	Role      *string `json:"role"`
	Content   *string `json:"content"`
	CreatedAt *string `json:"created_at"`
}

// message is one valid line, for the user it belongs to.
type message struct {
	Line      int
	Role      string
	Content   string
	CreatedAt time.Time
}

// Import reads the JSON lines of r and imports them user by user. Bad
// lines are reported with their numbers in the report and skipped.
func Import(ctx context.Context, users *models.Users, convs *models.Conversations, r io.Reader) (Report, error) {
	var rep Report
	order, byUser, err := read(ctx, users, r, &rep)
	if err != nil {
		return rep, err
	}
	for _, id := range order {
		msgs, title := keyed(byUser[id])
		res, err := convs.ImportHistory(ctx, id, title, msgs)
		if err != nil {
			return rep, err
		}
		rep.Users++
		rep.Added += res.Added
		rep.Existing += res.Existing
	}
	return rep, nil
}

// read groups the valid lines of r by user id, users in order of first
// appearance; bad lines go to rep.Bad.
func read(ctx context.Context, users *models.Users, r io.Reader, rep *Report) ([]string, map[string][]message, error) {
	ids := map[string]string{} // email → user id ("" unknown)
	byUser := map[string][]message{}
	var order []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		raw := strings.TrimSpace(sc.Text())
		if raw == "" {
			continue
		}
		email, m, problem := parse(raw)
		if problem == "" {
			id, err := userID(ctx, users, ids, email)
			if err != nil {
				return nil, nil, err
			}
			if id == "" {
				problem = "no user with email " + email
			} else {
				if _, ok := byUser[id]; !ok {
					order = append(order, id)
				}
				m.Line = n
				byUser[id] = append(byUser[id], m)
			}
		}
		if problem != "" {
			rep.Bad = append(rep.Bad, fmt.Sprintf("line %d: %s", n, problem))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("read: %w", err)
	}
	return order, byUser, nil
}

// parse checks one line; problem says why it is skipped ("" when valid).
func parse(raw string) (email string, m message, problem string) {
	var l line
	if err := json.Unmarshal([]byte(raw), &l); err != nil {
		return "", m, fmt.Sprintf("malformed JSON: %v", err)
	}
	switch {
	case l.Email == nil || strings.TrimSpace(*l.Email) == "":
		return "", m, "no email"
	case l.Role == nil || (*l.Role != models.RoleUser && *l.Role != models.RoleAssistant):
		return "", m, "role must be user or assistant"
	case l.Content == nil || strings.TrimSpace(*l.Content) == "":
		return "", m, "empty content"
	case l.CreatedAt == nil:
		return "", m, "no created_at"
	}
	at, err := time.Parse(time.RFC3339Nano, *l.CreatedAt)
	if err != nil {
		return "", m, fmt.Sprintf("created_at %q is not an RFC 3339 time", *l.CreatedAt)
	}
	m = message{Role: *l.Role, Content: strings.ToValidUTF8(*l.Content, "\uFFFD"), CreatedAt: at}
	return strings.ToLower(strings.TrimSpace(*l.Email)), m, ""
}

// userID looks email up once, remembering the answer in ids ("" unknown).
func userID(ctx context.Context, users *models.Users, ids map[string]string, email string) (string, error) {
	if id, known := ids[email]; known {
		return id, nil
	}
	u, err := users.GetByEmail(ctx, email)
	switch {
	case errors.Is(err, models.ErrNotFound):
		ids[email] = ""
	case err != nil:
		return "", err
	default:
		ids[email] = u.ID
	}
	return ids[email], nil
}

// keyed orders a user's messages by created_at, then line, and gives each
// a key (a digest of its role, time and text, with its occurrence number),
// so a later run recognises it; the title comes from the first question.
func keyed(msgs []message) ([]models.ImportedMessage, string) {
	sorted := slices.Clone(msgs)
	slices.SortStableFunc(sorted, func(a, b message) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Line, b.Line))
	})
	out := make([]models.ImportedMessage, len(sorted))
	seen := map[string]int{}
	title := ""
	for i, m := range sorted {
		sum := sha256.Sum256([]byte(m.Role + "\x00" + m.CreatedAt.UTC().Format(time.RFC3339Nano) + "\x00" + m.Content))
		k := hex.EncodeToString(sum[:16])
		seen[k]++
		out[i] = models.ImportedMessage{Key: k + "-" + strconv.Itoa(seen[k]), Line: m.Line, Role: m.Role,
			Content: m.Content, CreatedAt: m.CreatedAt}
		if title == "" && m.Role == models.RoleUser {
			title = models.TitleFrom(m.Content)
		}
	}
	return out, title
}
