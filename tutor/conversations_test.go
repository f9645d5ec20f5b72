package tutor

import (
	"context"
	"errors"
	"testing"

	"aula/models"
)

func TestDeleteConversationStopsItsAnswers(t *testing.T) {
	f := newFixture(t)
	started := make(chan struct{})
	f.prov.set(func(ctx context.Context, _ Request, on func(string) error) (Usage, error) {
		_ = on("Half an answer ")
		close(started)
		<-ctx.Done()
		return Usage{}, ctx.Err()
	})
	u := f.user(models.PlanPro)
	c := f.conv(u, models.ModeTutor, "", "")
	res, err := f.svc.Ask(context.Background(), AskInput{UserID: u, ConversationID: c, Content: "explain subnetting"})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	other := f.user(models.PlanPro)
	// The site and the API delete a thread this way: stop, then delete.
	deleteConversation := func(userID string) error {
		if err := f.svc.Streams().StopConversation(context.Background(), userID, c); err != nil {
			return err
		}
		return models.NewConversations(f.db.DB).Delete(context.Background(), userID, c)
	}
	if err := deleteConversation(other); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("someone else's delete: %v", err)
	}
	if err := deleteConversation(u); err != nil {
		t.Fatal(err)
	}
	var status string
	f.scalar(&status, `SELECT status FROM messages WHERE id = ?`, res.AssistantMessage.ID)
	if status != models.StatusCancelled {
		t.Fatalf("the deleted thread's answer is %s, want cancelled", status)
	}
	if f.svc.Streams().Active() != 0 {
		t.Fatalf("%d generations still running after the delete", f.svc.Streams().Active())
	}
	var deleted bool
	f.scalar(&deleted, `SELECT deleted_at IS NOT NULL FROM conversations WHERE id = ?`, c)
	if !deleted {
		t.Fatal("the conversation was not deleted")
	}
}
