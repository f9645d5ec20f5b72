package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"aula/handlers"
	"aula/internal/apptest"
	"aula/models"
)

// apiCheck is a check as the API answers it.
type apiCheck = handlers.CheckJSON

func decodeCheck(t *testing.T, b []byte) apiCheck {
	t.Helper()
	var c apiCheck
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("not a check: %s", b)
	}
	return c
}

// A whole check over the API, on real PostgreSQL with the offline tutor:
// started over a lesson (one question of the plan), each question answered
// in turn (the first with its expected answer, the others wrong) until it
// ends; the verdicts, the tally and the thread agree, the expected answers
// never show, and an answer after the end is CHECK_FINISHED.
func TestAPIWholeCheck(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "api-check@example.com", "api-pass-1", models.PlanPro)
	tok := apptest.APIToken(t, s, u.ID)

	resp, b := apptest.APICall(t, s, tok, "POST", "/checks", map[string]any{"lessonId": "vlan-basics"})
	if resp.StatusCode != 201 {
		t.Fatalf("start: %d %s", resp.StatusCode, b)
	}
	if strings.Contains(string(b), "expected") {
		t.Fatalf("the check shows its expected answers: %s", b)
	}
	c := decodeCheck(t, b)
	if c.Current == nil || c.Current.Position != 1 || c.Finished || c.Last != nil || *c.LessonID != "vlan-basics" || c.Current.Heading == "" {
		t.Fatalf("started check %+v", c)
	}
	for i := 1; !c.Finished; i++ {
		if i > c.MaxItems {
			t.Fatalf("the check did not end after %d answers", c.MaxItems)
		}
		answer := "I do not know"
		if i == 1 {
			s.DB.Raw(`SELECT expected FROM check_items WHERE conversation_id = ? AND position = 1`, c.ID).Scan(&answer)
		}
		resp, b := apptest.APICall(t, s, tok, "POST", "/checks/"+c.ID+"/answer", map[string]any{"answer": answer})
		if resp.StatusCode != 200 {
			t.Fatalf("answer %d: %d %s", i, resp.StatusCode, b)
		}
		c = decodeCheck(t, b)
		if c.Last == nil || c.Last.Position != i || c.Last.Answer != answer {
			t.Fatalf("answer %d: last %+v", i, c.Last)
		}
	}
	if c.Current != nil || len(c.Items) != c.MaxItems || c.Tally.Correct < 1 || c.Tally.Correct+c.Tally.Partly+c.Tally.NotYet != c.MaxItems {
		t.Fatalf("finished check: current %+v, %d items, tally %+v", c.Current, len(c.Items), c.Tally)
	}
	if v := c.Items[0].Verdict; v == nil || *v != models.VerdictCorrect {
		t.Errorf("the expected answer was graded %v", v)
	}
	got := apptest.APIJSON(t, s, tok, "GET", "/checks/"+c.ID, nil, 200)
	if got["finished"] != true || len(got["items"].([]any)) != c.MaxItems {
		t.Errorf("GET after the end: %v", got)
	}
	conv := apptest.APIJSON(t, s, tok, "GET", "/conversations/"+c.ID, nil, 200)
	if conv["mode"] != models.ModeCheck || len(conv["messages"].([]any)) < 2*c.MaxItems {
		t.Errorf("the check's thread: mode %v, %d messages", conv["mode"], len(conv["messages"].([]any)))
	}
	resp, b = apptest.APICall(t, s, tok, "POST", "/checks/"+c.ID+"/answer", map[string]any{"answer": "more"})
	if resp.StatusCode != 409 || !strings.Contains(string(b), handlers.CodeCheckFinished) {
		t.Errorf("an answer after the end: %d %s", resp.StatusCode, b)
	}
	if used := apptest.APIJSON(t, s, tok, "GET", "/tutor/monthly-usage", nil, 200); used["used"] != float64(1) {
		t.Errorf("the check counts %v questions of the plan, want 1", used["used"])
	}
	// The activity figures agree with the plan: one check, one question.
	mine := apptest.APIJSON(t, s, tok, "GET", "/tutor/my-usage", nil, 200)
	if mine["questionsThisMonth"] != float64(1) || mine["totalQuestions"] != float64(1) {
		t.Errorf("my-usage after one check: %v questions this month, %v in all, want 1 and 1",
			mine["questionsThisMonth"], mine["totalQuestions"])
	}
}

// Someone else's check is a 404 to read and to answer; bad input is a 4xx
// with the API's error shape and code, and nothing is started by it.
func TestAPICheckRefusals(t *testing.T) {
	s := apptest.New(t)
	owner := s.User(t, "owner@example.com", "api-pass-1", models.PlanPro)
	other := s.User(t, "other@example.com", "api-pass-1", models.PlanPro)
	tok, otherTok := apptest.APIToken(t, s, owner.ID), apptest.APIToken(t, s, other.ID)
	var anchor string
	s.DB.Raw(`SELECT anchor FROM lesson_chunks WHERE lesson_id = 'vlan-basics' AND anchor <> '' ORDER BY position LIMIT 1`).Scan(&anchor)
	c := apptest.APIJSON(t, s, tok, "POST", "/checks", map[string]any{"lessonId": "vlan-basics", "anchor": anchor}, 201)
	id := c["id"].(string)
	if cur := c["current"].(map[string]any); cur["anchor"] != anchor {
		t.Fatalf("a section check asks about %v, want %s", cur["anchor"], anchor)
	}
	cases := []struct {
		name, token, method, path string
		body                      any
		status                    int
		code                      string
	}{
		{"someone else's check", otherTok, "GET", "/checks/" + id, nil, 404, handlers.CodeNotFound},
		{"answer someone else's check", otherTok, "POST", "/checks/" + id + "/answer", map[string]any{"answer": "x"}, 404, handlers.CodeNotFound},
		{"not an id", tok, "GET", "/checks/nope", nil, 404, handlers.CodeNotFound},
		{"not a check", tok, "GET", "/checks/" + apptest.APIJSON(t, s, tok, "POST", "/tutor/chat", map[string]any{"message": "Hi"}, 200)["conversationId"].(string), nil, 404, handlers.CodeNotFound},
		{"no token", "", "GET", "/checks/" + id, nil, 401, handlers.CodeUnauthorized},
		{"no lesson", tok, "POST", "/checks", map[string]any{}, 422, handlers.CodeLessonRequired},
		{"unknown lesson", tok, "POST", "/checks", map[string]any{"lessonId": "nope"}, 422, handlers.CodeUnknownLesson},
		{"unknown section", tok, "POST", "/checks", map[string]any{"lessonId": "vlan-basics", "anchor": "nope"}, 422, handlers.CodeUnknownSection},
		{"not JSON", tok, "POST", "/checks", "{", 400, handlers.CodeInvalidJSON},
		{"empty answer", tok, "POST", "/checks/" + id + "/answer", map[string]any{"answer": "  "}, 422, handlers.CodeEmptyMessage},
		{"answer too long", tok, "POST", "/checks/" + id + "/answer", map[string]any{"answer": strings.Repeat("a", 1001)}, 422, handlers.CodeTooLong},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := apptest.APICall(t, s, tc.token, tc.method, tc.path, tc.body)
			var e struct {
				Error struct{ Code, Message string }
			}
			if resp.StatusCode != tc.status || json.Unmarshal(b, &e) != nil || e.Error.Code != tc.code || e.Error.Message == "" {
				t.Fatalf("%d %s, want %d %s", resp.StatusCode, b, tc.status, tc.code)
			}
		})
	}
	for name, body := range map[string]string{"NUL": `{"answer": "a\u0000b"}`, "not UTF-8": "{\"answer\": \"a\xff\xfeb\"}"} {
		req, _ := http.NewRequest("POST", s.URL+"/api/v1/checks/"+id+"/answer", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(b), handlers.CodeInvalidText) {
			t.Errorf("an answer with %s: %d %s", name, resp.StatusCode, b)
		}
	}
	var checks int
	s.DB.Raw(`SELECT count(*) FROM checks`).Scan(&checks)
	if checks != 1 {
		t.Errorf("%d checks exist, want only the one started", checks)
	}
	if st := apptest.APIJSON(t, s, tok, "GET", "/checks/"+id, nil, 200); st["last"] != nil {
		t.Errorf("a refused answer was recorded: %v", st["last"])
	}
}
