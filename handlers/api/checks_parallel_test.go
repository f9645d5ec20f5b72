package api_test

import (
	"sync"
	"testing"

	"aula/internal/apptest"
	"aula/models"
)

// Twenty checks started at once by a FREE student (3 questions a month):
// exactly three start, the others are refused with 429, and the plan
// counts three; twenty parallel answers to question 1 (as a double submit
// sends them): one is graded, the rest are told it was answered already,
// and no request fails.
func TestAPIChecksInParallel(t *testing.T) {
	s := apptest.New(t)
	u := s.User(t, "racer@example.com", "api-pass-1", models.PlanFree)
	tok := apptest.APIToken(t, s, u.ID)

	codes := parallel(20, func() int {
		resp, _ := apptest.APICall(t, s, tok, "POST", "/checks", map[string]any{"lessonId": "vlan-basics"})
		return resp.StatusCode
	})
	if codes[201] != 3 || codes[429] != 17 {
		t.Fatalf("20 parallel starts at a limit of 3: %v, want 3×201 and 17×429", codes)
	}
	if n := apptest.Count(t, s, `SELECT questions FROM plan_usage WHERE user_id = ?`, u.ID); n != 3 {
		t.Errorf("the plan counts %d questions, want 3", n)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM checks WHERE user_id = ?`, u.ID); n != 3 {
		t.Errorf("%d checks stored, want 3", n)
	}

	var cid string
	s.DB.Raw(`SELECT conversation_id FROM checks WHERE user_id = ? LIMIT 1`, u.ID).Scan(&cid)
	codes = parallel(20, func() int {
		resp, b := apptest.APICall(t, s, tok, "POST", "/checks/"+cid+"/answer", map[string]any{"answer": "a guess", "position": 1})
		if resp.StatusCode >= 500 {
			t.Errorf("a parallel answer: %d %s", resp.StatusCode, b)
		}
		return resp.StatusCode
	})
	if codes[200] != 1 || codes[200]+codes[409] != 20 {
		t.Fatalf("20 parallel answers to one question: %v, want 1×200 and the rest 409", codes)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM check_items WHERE conversation_id = ? AND attempts > 0`, cid); n != 1 {
		t.Errorf("%d questions answered, want 1", n)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE conversation_id = ? AND role = 'user'`, cid); n != 1 {
		t.Errorf("%d answers in the thread, want 1", n)
	}

	// Without a position each answer takes whatever question is current:
	// they are written one after another, and the check never asks more
	// than its five questions nor one question twice.
	var other string
	s.DB.Raw(`SELECT conversation_id FROM checks WHERE user_id = ? AND conversation_id <> ? LIMIT 1`, u.ID, cid).Scan(&other)
	codes = parallel(20, func() int {
		resp, b := apptest.APICall(t, s, tok, "POST", "/checks/"+other+"/answer", map[string]any{"answer": "a guess"})
		if resp.StatusCode >= 500 {
			t.Errorf("a parallel answer: %d %s", resp.StatusCode, b)
		}
		return resp.StatusCode
	})
	var items []struct{ Position, Attempts int }
	s.DB.Raw(`SELECT position, attempts FROM check_items WHERE conversation_id = ? ORDER BY position`, other).Scan(&items)
	if len(items) > models.MaxCheckItems || codes[200] != countAnswered(items) {
		t.Errorf("20 parallel answers without a position: %v; items %v", codes, items)
	}
	for i, it := range items {
		if it.Position != i+1 {
			t.Errorf("items %v: positions are not 1…n", items)
		}
	}
}

// countAnswered counts the items that got an answer.
func countAnswered(items []struct{ Position, Attempts int }) int {
	n := 0
	for _, it := range items {
		if it.Attempts > 0 {
			n++
		}
	}
	return n
}

// parallel runs f n times at once and counts the status codes it returns.
func parallel(n int, f func() int) map[int]int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	codes := map[int]int{}
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := f()
			mu.Lock()
			codes[c]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return codes
}
