package models_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

const testPassword = "correct horse battery"

// account creates a user with testPassword and a thread with a question,
// an answer (rated, with an attachment on the question), a token, a
// session, plan usage and a reset link: a row in every table naming users.
func account(t *testing.T, db *pgtest.DB, email, plan string) *models.User {
	t.Helper()
	ctx := context.Background()
	u, err := models.NewUsers(db.DB).Create(ctx, models.NewUser{Email: email, Name: "Ana Pérez", Password: testPassword, Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	// Earlier context brought by another program is the user's data too.
	c, err := models.NewConversations(db.DB).CreateWithContext(ctx, u.ID, models.ModeTutor, "", 0, "",
		[]models.ContextTurn{{Role: models.RoleUser, Content: "earlier question of " + email}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := models.NewMessages(db.DB)
	turn, err := msgs.BeginTurn(ctx, models.TurnInput{UserID: u.ID, ConversationID: c.ID, Content: "question of " + email,
		AssistantID: newUUID(t, db), Now: time.Now(),
		Attachment: &models.AttachmentInput{Filename: "notes-" + email + ".txt", MIME: "text/plain", Data: []byte("x"), Text: "notes of " + email}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := msgs.Finish(ctx, turn.Assistant.ID, models.FinishInput{Status: models.StatusComplete, Content: "answer for " + email}); err != nil {
		t.Fatal(err)
	}
	if err := msgs.Rate(ctx, u.ID, turn.Assistant.ID, models.RatingDown, "other", "comment of "+email); err != nil {
		t.Fatal(err)
	}
	if _, _, err := models.NewTokens(db.DB).Create(ctx, u.ID, "laptop"); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(`INSERT INTO sessions (id, user_id, data, expires_at, user_agent, address)
		VALUES (?, ?, '', now() + interval '1 day', 'Firefox', '192.0.2.1')`, "sess-"+email, u.ID).Error; err != nil {
		t.Fatal(err)
	}
	if _, err := models.NewPasswordResets(db.DB).Issue(ctx, u.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	return u
}

func newUUID(t *testing.T, db *pgtest.DB) string {
	t.Helper()
	var id string
	if err := db.Raw(`SELECT gen_random_uuid()::text`).Row().Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestDeleteAccountRemovesEveryRow(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	users := models.NewUsers(db.DB)
	admin := account(t, db, "admin@example.com", models.PlanSuperAdmin)
	gone := account(t, db, "gone@example.com", models.PlanSuperAdmin)
	stays := account(t, db, "stays@example.com", models.PlanFree)
	// The leaving admin changed someone's plan: that audit row is the other
	// user's and stays, without naming who changed it.
	if _, err := models.NewAudit(db.DB).ChangePlan(ctx, gone.ID, stays.ID, models.PlanPro, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := models.NewAudit(db.DB).ChangePlan(ctx, admin.ID, gone.ID, models.PlanSuperAdmin, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := models.NewLoginThrottle(db.DB).Reserve(ctx, gone.Email, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	if _, err := models.NewResetThrottle(db.DB).Allow(ctx, gone.Email, "192.0.2.1", time.Now()); err != nil {
		t.Fatal(err)
	}
	if cols := pgtest.UserColumns(t, db); len(cols) < 9 {
		t.Fatalf("found only %d user id columns: %v", len(cols), cols)
	}
	before := pgtest.RowsNaming(t, db, gone.ID)
	for _, k := range []string{"conversations.user_id", "messages.user_id", "attachments.user_id", "plan_usage.user_id",
		"api_tokens.user_id", "sessions.user_id", "password_resets.user_id", "plan_changes.changed_by", "context_turns.user_id"} {
		if before[k] == 0 {
			t.Fatalf("setup left %s empty: the test would prove nothing (%v)", k, before)
		}
	}

	staysBefore := pgtest.RowsNaming(t, db, stays.ID)
	if err := users.Delete(ctx, gone.ID, "wrong password"); !errors.Is(err, models.ErrBadCredentials) {
		t.Fatalf("wrong password: %v", err)
	}
	if err := users.Delete(ctx, gone.ID, testPassword); err != nil {
		t.Fatal(err)
	}
	for k, n := range pgtest.RowsNaming(t, db, gone.ID) {
		if n != 0 {
			t.Errorf("%s still has %d rows of the deleted account", k, n)
		}
	}
	var keys int
	db.Raw(`SELECT (SELECT count(*) FROM login_failures WHERE key LIKE '%gone@%') +
		(SELECT count(*) FROM login_addresses WHERE account LIKE '%gone@%') +
		(SELECT count(*) FROM password_reset_requests WHERE key LIKE 'email:%')`).Row().Scan(&keys)
	if keys != 0 {
		t.Errorf("%d throttling rows keyed by the deleted email remain", keys)
	}
	var ratings int
	db.Raw(`SELECT coalesce(sum(down), 0) FROM lesson_rating_totals`).Row().Scan(&ratings)
	if ratings != 2 {
		t.Errorf("rating totals count %d 👎, want the 2 of the remaining accounts", ratings)
	}
	for k, n := range pgtest.RowsNaming(t, db, stays.ID) {
		if n != staysBefore[k] {
			t.Errorf("%s: the other account's rows went from %d to %d", k, staysBefore[k], n)
		}
	}
}

func TestDeleteRefusesLastSuperAdmin(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	users := models.NewUsers(db.DB)
	a := account(t, db, "a@example.com", models.PlanSuperAdmin)
	b := account(t, db, "b@example.com", models.PlanSuperAdmin)
	if err := users.Delete(ctx, a.ID, testPassword); err != nil {
		t.Fatal(err)
	}
	if err := users.Delete(ctx, b.ID, testPassword); !errors.Is(err, models.ErrLastSuperAdmin) {
		t.Fatalf("deleting the last SUPER_ADMIN: %v", err)
	}
	if _, err := users.Get(ctx, b.ID); err != nil {
		t.Fatalf("the last SUPER_ADMIN is gone: %v", err)
	}
}

func TestExportHoldsOnlyTheOwnersData(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	users := models.NewUsers(db.DB)
	ana := account(t, db, "ana@example.com", models.PlanFree)
	account(t, db, "bob@example.com", models.PlanFree)
	exp, err := users.Export(ctx, ana.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if exp.Account.Email != ana.Email || len(exp.Conversations) != 1 || len(exp.Conversations[0].Messages) != 2 {
		t.Fatalf("export %+v", exp)
	}
	q, a := exp.Conversations[0].Messages[0], exp.Conversations[0].Messages[1]
	if q.Content != "question of ana@example.com" || len(q.Attachments) != 1 || q.Attachments[0].ExtractedText != "notes of ana@example.com" {
		t.Errorf("question %+v", q)
	}
	if a.Content != "answer for ana@example.com" || a.Rating == nil || *a.Rating != models.RatingDown || a.RatingComment != "comment of ana@example.com" {
		t.Errorf("answer %+v", a)
	}
	if ct := exp.Conversations[0].ContextTurns; len(ct) != 1 || ct[0].Content != "earlier question of ana@example.com" {
		t.Errorf("context turns %+v", ct)
	}
	if len(exp.Usage) != 1 || exp.Usage[0].Questions != 1 || len(exp.APITokens) != 1 || len(exp.Sessions) != 1 {
		t.Errorf("usage %v tokens %v sessions %v", exp.Usage, exp.APITokens, exp.Sessions)
	}
	if s := fmt.Sprintf("%+v", exp); strings.Contains(s, "bob@") {
		t.Errorf("export carries the other account's data: %s", s)
	}
}

func TestChangePasswordRevokesSessions(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	users := models.NewUsers(db.DB)
	u := account(t, db, "ana@example.com", models.PlanFree)
	other := account(t, db, "bob@example.com", models.PlanFree)
	tests := []struct {
		name, current, next string
		want                error
	}{
		{"wrong current password", "nope", "a new password 1", models.ErrBadCredentials},
		{"short new password", testPassword, "short", models.ErrShortPassword},
		{"ok", testPassword, "a new password 1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := users.ChangePassword(ctx, u.ID, tt.current, tt.next); !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := users.Authenticate(ctx, u.Email, "a new password 1"); err != nil {
		t.Fatalf("new password refused: %v", err)
	}
	if list, _ := models.NewSessions(db.DB).Devices(ctx, u.ID, ""); len(list) != 0 {
		t.Errorf("%d sessions survive the change", len(list))
	}
	if list, _ := models.NewSessions(db.DB).Devices(ctx, other.ID, ""); len(list) != 1 {
		t.Errorf("the other account lost its session")
	}
}

func TestDevicesScopedByUser(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	devices := models.NewSessions(db.DB)
	u := account(t, db, "ana@example.com", models.PlanFree)
	other := account(t, db, "bob@example.com", models.PlanFree)
	db.Exec(`INSERT INTO sessions (id, user_id, data, expires_at) VALUES ('phone', ?, '', now() + interval '1 day')`, u.ID)
	if err := devices.Touch(ctx, "phone", "Mozilla/5.0 (iPhone)\x00\xff", "198.51.100.7"); err != nil {
		t.Fatal(err)
	}
	list, err := devices.Devices(ctx, u.ID, "phone")
	if err != nil || len(list) != 2 {
		t.Fatalf("list %v %v", list, err)
	}
	cur := list[0]
	if !cur.Current || cur.UserAgent != "Mozilla/5.0 (iPhone)" || cur.Address != "198.51.100.7" {
		t.Errorf("current device %+v", cur)
	}
	if err := devices.SignOut(ctx, other.ID, cur.Handle); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("another user signed out my session: %v", err)
	}
	if n, err := devices.SignOutOthers(ctx, u.ID, "phone"); err != nil || n != 1 {
		t.Errorf("sign out others: %d %v", n, err)
	}
	if err := devices.SignOut(ctx, u.ID, cur.Handle); err != nil {
		t.Errorf("sign out: %v", err)
	}
	if list, _ := devices.Devices(ctx, u.ID, ""); len(list) != 0 {
		t.Errorf("left %v", list)
	}
}
