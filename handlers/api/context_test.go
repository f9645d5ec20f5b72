package api_test

import (
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
	"aula/tutor"
)

// TestAPISeededHistoryRemembered: conversationHistory sent with a first
// question stays with the conversation as earlier context, so a follow-up
// with the returned conversationId sends it to the model again (the
// README's own example), counted in the window; the site shows it in the
// thread as earlier context.
func TestAPISeededHistoryRemembered(t *testing.T) {
	p := &apptest.Scripted{}
	s := apptest.New(t, apptest.WithProvider(p))
	u := s.User(t, "seeded@example.com", "seeded-pass-1", models.PlanPro)
	tok := apptest.APIToken(t, s, u.ID)
	seed := []any{
		map[string]any{"role": "user", "content": "I am preparing the CCNA exam."},
		map[string]any{"role": "assistant", "content": "Good luck with the CCNA!"},
	}
	web := s.SignIn(t, "seeded@example.com", "seeded-pass-1")
	for _, path := range []string{"/tutor/chat", "/tutor/stream"} {
		t.Run(path, func(t *testing.T) {
			first := apptest.APIJSON(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "What is a VLAN?",
				"conversationHistory": seed}, 200)
			cid := first["conversationId"].(string)
			resp, b := apptest.APICall(t, s, tok, "POST", path, map[string]any{"message": "Which exam did I mention?", "conversationId": cid})
			if resp.StatusCode != 200 {
				t.Fatalf("follow-up: %d %s", resp.StatusCode, b)
			}
			reqs := p.Requests()
			got := reqs[len(reqs)-1].History
			want := []tutor.Turn{{Role: "user", Content: "I am preparing the CCNA exam."}, {Role: "assistant", Content: "Good luck with the CCNA!"},
				{Role: "user", Content: "What is a VLAN?"}}
			if len(got) != 4 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
				t.Fatalf("the follow-up sent %+v; want the seeded turns, then the first exchange", got)
			}
			conv := apptest.APIJSON(t, s, tok, "GET", "/conversations/"+cid, nil, 200)
			if n := len(conv["messages"].([]any)); n != 4 {
				t.Fatalf("the seeded turns became messages: %d", n)
			}
			if ctx, _ := conv["earlierContext"].([]any); len(ctx) != 2 {
				t.Fatalf("earlierContext %v, want the 2 seeded turns", conv["earlierContext"])
			}
			page := web.Get("/chat/" + cid)
			if !strings.Contains(page.Body, "Earlier context") || !strings.Contains(page.Body, "I am preparing the CCNA exam.") {
				t.Fatal("the thread does not show the seeded turns as earlier context")
			}
		})
	}
}
