package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"aula/internal/apptest"
	"aula/internal/fakellm"
	"aula/models"
	"aula/tutor"
)

// End to end through the web: a student asks the lesson's tutor (a fake
// OpenAI server) and the answer cites two sections; a content admin edits
// one of them in the editor and publishes; the student's thread marks
// "changed since" on that section's citation only. A save as draft before
// it marks nothing.
func TestLessonEditorPublishFlagsOnlyTheEditedSection(t *testing.T) {
	const broadcast, trunks = "broadcast-domains-and-the-problem-vlans-solve", "access-ports-and-trunk-ports"
	srv := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: []string{
		"A VLAN splits broadcast domains [§ Broadcast domains](#" + broadcast + ")",
		" and trunks carry many VLANs [§ Access and trunk ports](#" + trunks + ")."}})
	s := apptest.New(t, func(c *tutor.Config) { c.Credentials = tutor.Credentials{OpenAIKey: "k", OpenAIBaseURL: srv.URL} })
	if err := s.DB.Exec(`UPDATE ai_routes SET provider = 'openai', model = 'tutor-1' WHERE use_case = 'tutor_chat'`).Error; err != nil {
		t.Fatal(err)
	}
	s.User(t, "author@example.com", editorPass, models.PlanContentAdmin)
	s.User(t, "student@example.com", editorPass, models.PlanPro)
	author, student := s.SignIn(t, "author@example.com", editorPass), s.SignIn(t, "student@example.com", editorPass)
	p := student.Post("/chat", url.Values{"_csrf": {student.Get(vlanPage).CSRF()}, "mode": {"lesson"}, "lesson_id": {"vlan-basics"},
		"path": {"networking"}, "content": {"What do VLANs and trunk ports do?"}})
	if p.Status != http.StatusOK {
		t.Fatalf("ask: %d", p.Status)
	}
	cid := newestThread(t, s, userID(t, s, "student@example.com"))
	var mid string
	s.DB.Raw(`SELECT id FROM messages WHERE conversation_id = ? AND role = 'assistant'`, cid).Scan(&mid)
	flagged := func() map[string]bool {
		t.Helper()
		out := map[string]bool{}
		page := student.Get("/chat/" + cid)
		page.Doc.Find("#m-" + mid + " .receipt .citations.cited li").Each(func(_ int, li *goquery.Selection) {
			href := li.Find("a").AttrOr("href", "")
			out[href[strings.Index(href, "#")+1:]] = li.Find(".badge.warn").Length() > 0
		})
		if len(out) != 2 {
			t.Fatalf("cited sections: %v\n%s", out, page.Text("#m-"+mid+" .receipt"))
		}
		return out
	}
	if got := flagged(); got[broadcast] || got[trunks] {
		t.Fatalf("flagged before any edit: %v", got)
	}

	e := author.Get(vlanEditor)
	body := editedBody(t, e.Doc.Find("#f-body").Text(), "A **broadcast domain** is", "A **broadcast domain**, edited, is")
	if r := postEditor(t, author, vlanEditor, editorFields(t, e, map[string][]string{"body": {body}, "action": {"save"}})); r.Status != http.StatusSeeOther {
		t.Fatalf("save: %d", r.Status)
	}
	if got := flagged(); got[broadcast] || got[trunks] {
		t.Fatalf("a draft flagged a section: %v", got)
	}
	e = author.Get(vlanEditor)
	if r := postEditor(t, author, vlanEditor, editorFields(t, e, map[string][]string{"action": {"publish"}})); r.Status != http.StatusSeeOther {
		t.Fatalf("publish: %d", r.Status)
	}
	if got := flagged(); !got[broadcast] || got[trunks] {
		t.Fatalf("after publishing: %v, want only %s flagged", got, broadcast)
	}
}
