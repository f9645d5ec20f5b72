package web_test

import (
	"context"
	"testing"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

// TestRegenerateWithoutJavaScript: a finished answer offers Regenerate as a
// plain form; afterwards the bubble reads "2 / 2" and the previous-version
// form puts version 1 back on display.
func TestRegenerateWithoutJavaScript(t *testing.T) {
	p := apptest.Numbered()
	s := apptest.New(t, apptest.WithProvider(p))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	cid := apptest.NewThread(t, c)
	res, err := s.Tutor.Ask(context.Background(), tutor.AskInput{UserID: u.ID, ConversationID: cid, Content: "What is a VLAN?"})
	if err != nil {
		t.Fatal(err)
	}
	mid := res.AssistantMessage.ID
	if _, err := s.Tutor.Streams().Wait(context.Background(), u.ID, mid); err != nil {
		t.Fatal(err)
	}
	page := c.Get("/chat/" + cid)
	if page.Doc.Find("#m-"+mid+` form[action="/messages/`+mid+`/retry"] button.regenerate`).Length() != 1 {
		t.Fatal("a finished answer offers no Regenerate form")
	}
	c.Submit(page, "#m-"+mid+" .versions form:has(button.regenerate)", nil)
	if _, err := s.Tutor.Streams().Wait(context.Background(), u.ID, mid); err != nil {
		t.Fatal(err)
	}
	page = c.Get("/chat/" + cid)
	if got := page.Text("#m-" + mid + " .version-of"); got != "2 / 2" || page.Text("#m-"+mid+" .msg-body") != "Version 2." {
		t.Fatalf("after regenerating: %q showing %q", got, page.Text("#m-"+mid+" .msg-body"))
	}
	got := c.Submit(page, "#m-"+mid+` .versions form[action="/messages/`+mid+`/version"]`, nil) // the previous version's
	if got.Status != 200 {
		t.Fatalf("switching answered %d", got.Status)
	}
	if got.Text("#m-"+mid+" .msg-body") != "Version 1." || got.Text("#m-"+mid+" .version-of") != "1 / 2" {
		t.Fatalf("after switching: %q (%q)", got.Text("#m-"+mid+" .msg-body"), got.Text("#m-"+mid+" .version-of"))
	}
}
