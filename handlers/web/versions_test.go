package web_test

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
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

// TestVersionNumberOutOfRange: a version number no answer can have (past
// int4, negative, zero, huge, not a number, with a NUL byte) is a 404 or
// a 422 through every door that takes one, in the student's language on
// the site and as a JSON error code in the API, never a 500; the answer
// on display stays as it was.
func TestVersionNumberOutOfRange(t *testing.T) {
	s := apptest.New(t, apptest.WithProvider(apptest.Numbered()))
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	c := s.SignIn(t, "ana@example.com", "a-long-password-1")
	c.Lang = "es"
	tok := apptest.APIToken(t, s, u.ID)
	mid := apptest.APIJSON(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "What is a VLAN?"}, 200)["messageId"].(string)
	apptest.APIJSON(t, s, tok, "POST", "/messages/"+mid+"/regenerate", nil, 200)
	csrf := c.Get("/chat").CSRF()
	for _, v := range []string{"2147483648", "2147483647", "4294967297", "9223372036854775807", "99999999999999999999",
		"-1", "-2147483649", "0", "", "abc", "1e3", "0x2", " 2", "1\x00", "\x00"} {
		t.Run(strconv.Quote(v), func(t *testing.T) {
			want, says := []int{404, 422}, []string{"Esa versión no existe.", "Página no encontrada"}
			if strings.ContainsRune(v, 0) {
				// The edge refuses a NUL byte in any request, before a handler reads it.
				want, says = []int{400}, []string{"No se pudo leer la solicitud"}
			}
			page := c.Post("/messages/"+mid+"/version", url.Values{"version": {v}, "_csrf": {csrf}})
			if !slices.Contains(want, page.Status) || !slices.ContainsFunc(says, func(s string) bool { return strings.Contains(page.Body, s) }) {
				t.Errorf("the site answered %d:\n%s", page.Status, page.Body)
			}
			resp, body := apptest.APICall(t, s, tok, "POST", "/messages/"+mid+"/versions/"+url.PathEscape(v), nil)
			if !slices.Contains(want, resp.StatusCode) || !strings.Contains(string(body), `"code"`) {
				t.Errorf("the API answered %d: %s", resp.StatusCode, body)
			}
		})
	}
	if m := apptest.Message(t, s, mid); m.Content != "Version 2." || m.Version != 2 {
		t.Fatalf("the answer on display became version %d: %q", m.Version, m.Content)
	}
}
