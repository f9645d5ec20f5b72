package api_test

import (
	"strings"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// A question without conversationId opens its thread only when it is
// answered: refused (its lesson, module or mode unknown, the month's
// quota spent) it leaves no conversation and no message behind, and the
// refusal names no conversation. An admitted one opens a lesson thread
// in its lesson's module.
func TestAPIRefusedQuestionOpensNoThread(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "newthread@example.com", "newthread-pass-1", models.PlanFree)
	tok := apptest.APIToken(t, s, u.ID)
	first := apptest.APIJSON(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "What is a VLAN?", "lessonId": "vlan-basics"}, 200)
	var module, lessonModule int64
	if err := s.DB.Raw(`SELECT c.module_id, l.module_id FROM conversations c JOIN lessons l ON l.id = c.lesson_id WHERE c.id = ?`,
		first["conversationId"]).Row().Scan(&module, &lessonModule); err != nil || module != lessonModule {
		t.Fatalf("the lesson thread's module %d, its lesson's %d (%v)", module, lessonModule, err)
	}
	cases := []struct {
		name, path string
		body       map[string]any
		status     int
		code       string
		spent      bool // asked once the month's questions are spent
	}{
		{"unknown lesson, stream", "/tutor/stream", map[string]any{"message": "hi", "lessonId": "no-such-lesson"}, 422, "UNKNOWN_LESSON", false},
		{"unknown lesson, chat", "/tutor/chat", map[string]any{"message": "hi", "lessonId": "no-such-lesson"}, 422, "UNKNOWN_LESSON", false},
		{"unknown lesson with history", "/tutor/chat", map[string]any{"message": "hi", "lessonId": "no-such-lesson",
			"conversationHistory": []any{map[string]any{"role": "user", "content": "earlier"}}}, 422, "UNKNOWN_LESSON", false},
		{"unknown module", "/tutor/stream", map[string]any{"message": "hi", "moduleId": 999999}, 422, "UNKNOWN_MODULE", false},
		{"over the quota, stream", "/tutor/stream", map[string]any{"message": "One more?"}, 429, "QUOTA_EXCEEDED", true},
		{"over the quota, chat, lesson", "/tutor/chat", map[string]any{"message": "One more?", "lessonId": "vlan-basics"}, 429, "QUOTA_EXCEEDED", true},
	}
	spent := false
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.spent && !spent {
				for i := range 2 {
					apptest.APIJSON(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "What is a trunk? " + string(rune('a'+i))}, 200)
				}
				spent = true
			}
			threads := apptest.Count(t, s, `SELECT count(*) FROM conversations WHERE user_id = ?`, u.ID)
			msgs := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE user_id = ?`, u.ID)
			resp, b := apptest.APICall(t, s, tok, "POST", tc.path, tc.body)
			if resp.StatusCode != tc.status || errorCode(t, b) != tc.code {
				t.Fatalf("status %d %s, want %d %s", resp.StatusCode, b, tc.status, tc.code)
			}
			if strings.Contains(string(b), "conversationId") {
				t.Errorf("the refusal names a conversation: %s", b)
			}
			if n := apptest.Count(t, s, `SELECT count(*) FROM conversations WHERE user_id = ?`, u.ID); n != threads {
				t.Errorf("%d threads after the refusal, %d before", n, threads)
			}
			if n := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE user_id = ?`, u.ID); n != msgs {
				t.Errorf("%d messages after the refusal, %d before", n, msgs)
			}
		})
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM conversations WHERE user_id = ?`, u.ID); n != 3 {
		t.Errorf("%d threads, want the 3 answered questions'", n)
	}
}
