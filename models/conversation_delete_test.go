package models_test

import (
	"context"
	"testing"
	"time"

	"aula/internal/pgtest"
	"aula/models"
)

// TestDeleteConversationRemovesContent: deleting a thread removes, in the
// same transaction, everything the student wrote or was answered in it
// (text, files, earlier context, comments, receipts, its title), while the
// question stays counted in the plan and the bare rows stay for the admin
// figures (how many, how fast, which provider). Another thread is untouched.
func TestDeleteConversationRemovesContent(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	convs, msgs := models.NewConversations(db.DB), models.NewMessages(db.DB)
	u := account(t, db, "gone-thread@example.com", models.PlanPro)
	var keep string
	if err := db.Raw(`SELECT id FROM conversations WHERE user_id = ?`, u.ID).Row().Scan(&keep); err != nil {
		t.Fatal(err)
	}
	c, err := convs.CreateWithContext(ctx, u.ID, models.ModeTutor, "", 0, "", []models.ContextTurn{{Role: models.RoleUser, Content: "secret context"}})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := msgs.BeginTurn(ctx, models.TurnInput{UserID: u.ID, ConversationID: c.ID, Content: "secret question",
		AssistantID: newUUID(t, db), Now: time.Now(),
		Attachment: &models.AttachmentInput{Filename: "secret.txt", MIME: "text/plain", Data: []byte("x"), Text: "secret file"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := msgs.Finish(ctx, turn.Assistant.ID, models.FinishInput{Status: models.StatusComplete, Content: "secret answer",
		Metadata: models.JSON(`{"retrievalQuery":"secret question"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := msgs.Rate(ctx, u.ID, turn.Assistant.ID, models.RatingDown, "other", "secret comment"); err != nil {
		t.Fatal(err)
	}
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := db.Raw(q, args...).Row().Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	used := count(`SELECT coalesce(sum(questions), 0) FROM plan_usage WHERE user_id = ?`, u.ID)
	if err := convs.Delete(ctx, u.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, q string
		want    int
	}{
		{"text anywhere", `SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id
			WHERE m.conversation_id = ? AND (m.content LIKE '%secret%' OR m.metadata::text LIKE '%secret%'
			OR m.rating_comment LIKE '%secret%' OR c.title LIKE '%secret%')`, 0},
		{"attachments", `SELECT count(*) FROM attachments a JOIN messages m ON m.id = a.message_id WHERE m.conversation_id = ?`, 0},
		{"earlier context", `SELECT count(*) FROM context_turns WHERE conversation_id = ?`, 0},
		{"bare rows for the figures", `SELECT count(*) FROM messages WHERE conversation_id = ?`, 2},
	} {
		if n := count(tc.q, c.ID); n != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, n, tc.want)
		}
	}
	if n := count(`SELECT coalesce(sum(questions), 0) FROM plan_usage WHERE user_id = ?`, u.ID); n != used || n != 2 {
		t.Errorf("questions counted %d after the delete, want %d (2)", n, used)
	}
	if n := count(`SELECT count(*) FROM messages WHERE conversation_id = ? AND content <> ''`, keep); n != 2 {
		t.Errorf("the other thread lost its messages: %d left", n)
	}
}
