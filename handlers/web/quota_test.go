package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
	"aula/views"
)

// fastTutor makes the offline tutor answer at once.
func fastTutor(c *tutor.Config) { c.Credentials.OfflineTokenDelayMs = 0 }

// quotaThread creates a tutor conversation through the form and returns its id.
func quotaThread(t *testing.T, c *webtest.Client) string {
	t.Helper()
	p := c.Submit(c.Get("/chat"), `form[action="/chat"]`, map[string]string{"mode": "tutor"})
	cid := strings.TrimPrefix(p.URL.Path, "/chat/")
	if p.Status != 200 || cid == "" || cid == p.URL.Path {
		t.Fatalf("new thread: status %d at %s", p.Status, p.URL)
	}
	return cid
}

// htmxAsk posts a question the way HTMX does and returns the status and body.
func htmxAsk(c *webtest.Client, csrf, cid, q string) (int, string, error) {
	req, _ := http.NewRequest("POST", c.Base+"/chat/"+cid+"/messages", strings.NewReader(url.Values{"content": {q}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", csrf)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

func TestQuotaRaceAdmitsExactlyTheLimit(t *testing.T) {
	s := apptest.New(t, fastTutor)
	u := s.User(t, "free@example.com", "pass-phrase-1", models.PlanFree)
	c := s.SignIn(t, "free@example.com", "pass-phrase-1")
	csrf := c.Get("/learn").CSRF()
	threads := []string{quotaThread(t, c), quotaThread(t, c), quotaThread(t, c)}
	_, raw, err := s.App.Tokens.Create(context.Background(), u.ID, "race")
	if err != nil {
		t.Fatal(err)
	}

	// 50 questions at once: 35 through the browser route on the same
	// session, 15 through the JSON API with a personal token.
	const total, viaAPI = 50, 15
	var ok, limited, other atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range total {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var status int
			var body string
			if i < viaAPI {
				j, _ := json.Marshal(map[string]any{"message": "What is a VLAN?"})
				req, _ := http.NewRequest("POST", s.URL+"/api/v1/tutor/chat", bytes.NewReader(j))
				req.Header.Set("Authorization", "Bearer "+raw)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					other.Add(1)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				status, body = resp.StatusCode, string(b)
			} else {
				var err error
				if status, body, err = htmxAsk(c, csrf, threads[i%len(threads)], "What is a VLAN?"); err != nil {
					other.Add(1)
					return
				}
			}
			switch {
			case status == http.StatusOK:
				ok.Add(1)
			case status == http.StatusTooManyRequests && i >= viaAPI && strings.Contains(body, `href="/upgrade"`):
				limited.Add(1)
			case status == http.StatusTooManyRequests && i < viaAPI:
				limited.Add(1)
			default:
				t.Logf("question %d: status %d %.200s", i, status, body)
				other.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	if ok.Load() != 3 || limited.Load() != total-3 || other.Load() != 0 {
		t.Errorf("admitted %d, limited %d, other %d; want 3, %d, 0", ok.Load(), limited.Load(), other.Load(), total-3)
	}
	var used, questions int64
	s.DB.Raw(`SELECT coalesce(sum(questions), 0) FROM plan_usage WHERE user_id = ?`, u.ID).Scan(&used)
	s.DB.Raw(`SELECT count(*) FROM messages WHERE user_id = ? AND role = 'user'`, u.ID).Scan(&questions)
	if used != 3 || questions != 3 {
		t.Errorf("plan_usage %d, questions stored %d; want 3 and 3", used, questions)
	}
}

func TestQuotaLimitScreensAndServerRefusal(t *testing.T) {
	s := apptest.New(t, fastTutor)
	u := s.User(t, "free@example.com", "pass-phrase-1", models.PlanFree)
	c := s.SignIn(t, "free@example.com", "pass-phrase-1")
	cid := quotaThread(t, c)
	s.DB.Exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, 3)`, u.ID, models.Period(time.Now()))

	for _, path := range []string{"/chat/" + cid, "/learn/networking/vlan-basics"} {
		p := c.Get(path)
		if p.Doc.Find(`#see-plans[href="/upgrade"]`).Length() != 1 || p.Doc.Find("textarea#q").Length() != 0 {
			t.Errorf("%s at the limit: no See plans call to action in place of the input", path)
		}
		if got := p.Text("#see-plans"); got != "See plans" {
			t.Errorf("%s: call to action %q", path, got)
		}
		if !strings.Contains(p.Text("#usage"), "3 of 3 questions this month") {
			t.Errorf("%s: usage text %q", path, p.Text("#usage"))
		}
	}
	// Past the UI: the server refuses, with the same call to action.
	status, body, err := htmxAsk(c, c.Get("/learn").CSRF(), cid, "one more?")
	if err != nil || status != http.StatusTooManyRequests || !strings.Contains(body, "See plans") {
		t.Errorf("HTMX post at the limit: %d %.200s %v", status, body, err)
	}
	p := c.Post("/chat/"+cid+"/messages", url.Values{"_csrf": {c.Get("/learn").CSRF()}, "content": {"and another?"}})
	if p.Status != http.StatusTooManyRequests || p.Doc.Find("#see-plans").Length() != 1 {
		t.Errorf("plain post at the limit: status %d", p.Status)
	}
	var n int64
	s.DB.Raw(`SELECT count(*) FROM messages WHERE user_id = ?`, u.ID).Scan(&n)
	if n != 0 {
		t.Errorf("%d messages stored past the limit", n)
	}
}

func TestQuotaMonthRollover(t *testing.T) {
	var clock atomic.Pointer[time.Time]
	last := time.Date(2025, 1, 31, 23, 59, 59, 0, time.UTC)
	clock.Store(&last)
	s := apptest.New(t, fastTutor, func(c *tutor.Config) { c.Now = func() time.Time { return *clock.Load() } })
	u := s.User(t, "free@example.com", "pass-phrase-1", models.PlanFree)
	c := s.SignIn(t, "free@example.com", "pass-phrase-1")
	cid := quotaThread(t, c)
	csrf := c.Get("/learn").CSRF()
	s.DB.Exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, '2025-01-01', 2)`, u.ID)

	// The last second of January: the third question of the month goes through, the fourth does not
	// (questions the lessons cover: one they do not is not counted).
	if st, body, _ := htmxAsk(c, csrf, cid, "What is a VLAN?"); st != 200 || !strings.Contains(body, `data-used="3"`) {
		t.Fatalf("last second of January: %d %.300s", st, body)
	}
	if st, _, _ := htmxAsk(c, csrf, cid, "one too many"); st != http.StatusTooManyRequests {
		t.Fatalf("fourth January question: %d, want 429", st)
	}
	if !strings.Contains(c.Get("/chat/"+cid).Text("#ask-form"), "February 1, 2025") {
		t.Error("the call to action does not give the reset date")
	}
	// The first second of February: a new month, a new quota.
	first := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	clock.Store(&first)
	st, body, _ := htmxAsk(c, csrf, cid, "What is a trunk port?")
	if st != 200 || !strings.Contains(body, `data-used="1"`) {
		t.Fatalf("first second of February: %d %.300s", st, body)
	}
	p := c.Get("/chat/" + cid)
	if !strings.Contains(p.Text("#usage"), "1 of 3 questions this month") || !strings.Contains(p.Text("#usage"), "March 1, 2025") {
		t.Errorf("usage in February: %q", p.Text("#usage"))
	}
	var jan, feb int
	s.DB.Raw(`SELECT questions FROM plan_usage WHERE user_id = ? AND period = '2025-01-01'`, u.ID).Scan(&jan)
	s.DB.Raw(`SELECT questions FROM plan_usage WHERE user_id = ? AND period = '2025-02-01'`, u.ID).Scan(&feb)
	if jan != 3 || feb != 1 {
		t.Errorf("plan_usage January %d, February %d; want 3 and 1", jan, feb)
	}
}

func TestUsageBarColourThresholds(t *testing.T) {
	for _, tt := range []struct {
		used, limit int
		want        string
	}{
		{0, 100, "green"}, {79, 100, "green"}, {80, 100, "amber"}, {94, 100, "amber"}, {95, 100, "red"}, {100, 100, "red"},
		// STARTER's 40: 31 is 77.5 %, 32 is 80 %, 37 is 92.5 %, 38 is 95 %.
		{31, 40, "green"}, {32, 40, "amber"}, {37, 40, "amber"}, {38, 40, "red"},
		// A FREE plan warns with its last question left, before the limit.
		{1, 3, "green"}, {2, 3, "amber"}, {3, 3, "red"},
	} {
		if got := views.UsageLevel(tt.used, tt.limit); got != tt.want {
			t.Errorf("UsageLevel(%d, %d) = %s, want %s", tt.used, tt.limit, got, tt.want)
		}
	}

	s := apptest.New(t)
	u := s.User(t, "starter@example.com", "pass-phrase-1", models.PlanStarter)
	c := s.SignIn(t, "starter@example.com", "pass-phrase-1")
	cid := quotaThread(t, c)
	for used, want := range map[int]string{31: "green", 32: "amber", 37: "amber", 38: "red"} {
		s.DB.Exec(`INSERT INTO plan_usage (user_id, period, questions) VALUES (?, ?, ?)
			ON CONFLICT (user_id, period) DO UPDATE SET questions = excluded.questions`, u.ID, models.Period(time.Now()), used)
		bar := c.Get("/chat/" + cid).Doc.Find("#usage")
		if cls := bar.AttrOr("class", ""); !strings.Contains(cls, want) || bar.AttrOr("data-limit", "") != "40" {
			t.Errorf("%d of 40: class %q, want %s", used, cls, want)
		}
	}
	// Unlimited plans have no bar.
	s.User(t, "pro@example.com", "pass-phrase-1", models.PlanPro)
	pc := s.SignIn(t, "pro@example.com", "pass-phrase-1")
	if pc.Get("/chat/"+quotaThread(t, pc)).Doc.Find("#usage").Length() != 0 {
		t.Error("a PRO user sees a usage bar")
	}
}
