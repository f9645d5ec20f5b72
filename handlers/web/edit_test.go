package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

// Without JavaScript: the thread's last question offers Edit (a form in a
// disclosure), an earlier one does not; sent, it answers 303 to the
// answer, which now answers the edited question as "2 / 2"; the previous
// version's form brings back the first question with its answer.
func TestEditWithoutJavaScript(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(apptest.Numbered()))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	for _, q := range []string{"First question", "What is a VLAN?"} {
		res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: q})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Tutor.Streams().Wait(context.Background(), u.ID, res.AssistantMessage.ID); err != nil {
			t.Fatal(err)
		}
	}
	msgs := apptest.ThreadMessages(t, s, cid)
	qid, mid := msgs[2].ID, msgs[3].ID
	page := c.Get("/chat/" + cid)
	if page.Doc.Find("#m-"+msgs[0].ID+" .edit-form").Length() != 0 || page.Doc.Find("#m-"+qid+" details.edit-q form.edit-form textarea").Text() != "What is a VLAN?" {
		t.Fatalf("Edit is not offered on the last question only")
	}
	if got := page.Text("#m-" + qid + " .edit-q summary"); got != "✎ Edit" {
		t.Fatalf("the Edit control reads %q", got)
	}
	c.HTTP.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	got := c.Submit(page, "#m-"+qid+" form.edit-form", map[string]string{"content": "What is a trunk?"})
	if got.Status != http.StatusSeeOther || got.Header.Get("Location") != "/chat/"+cid+"#m-"+mid {
		t.Fatalf("Edit answered %d to %q", got.Status, got.Header.Get("Location"))
	}
	if _, err := s.Tutor.Streams().Wait(context.Background(), u.ID, mid); err != nil {
		t.Fatal(err)
	}
	c.HTTP.CheckRedirect = nil
	page = c.Get("/chat/" + cid)
	if page.Text("#m-"+qid+" .msg-body") != "What is a trunk?" || page.Text("#m-"+mid+" .msg-body") != "Version 3." || page.Text("#m-"+mid+" .version-of") != "2 / 2" {
		t.Fatalf("after the edit: %q → %q (%q)", page.Text("#m-"+qid+" .msg-body"), page.Text("#m-"+mid+" .msg-body"), page.Text("#m-"+mid+" .version-of"))
	}
	page = c.Submit(page, "#m-"+mid+` .versions form:has([aria-label="Previous version"])`, nil)
	if page.Text("#m-"+qid+" .msg-body") != "What is a VLAN?" || page.Text("#m-"+mid+" .msg-body") != "Version 2." {
		t.Fatalf("version 1: %q → %q", page.Text("#m-"+qid+" .msg-body"), page.Text("#m-"+mid+" .msg-body"))
	}
	// An earlier question is refused, in the user's language.
	got = c.Post("/messages/"+msgs[0].ID+"/edit", map[string][]string{"_csrf": {page.CSRF()}, "content": {"changed"}})
	if got.Status != http.StatusConflict || !strings.Contains(got.Body, "Only the last question, once answered, can be edited.") {
		t.Fatalf("editing an earlier question: %d", got.Status)
	}
}
