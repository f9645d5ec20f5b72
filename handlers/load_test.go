package handlers_test

// The load scenario: simulated students sign in, open threads, ask,
// stream the answers over SSE, follow up, switch threads and rate, all at
// once, against aula with the offline tutor. In `go tool task test` it is
// small (AULA_LOAD_STUDENTS=30 students for AULA_LOAD_DURATION=8s);
// `go tool task load` runs 200 students for 60 seconds.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// loadSize reads the scenario's size from the environment.
func loadSize(t *testing.T) (students int, duration time.Duration) {
	t.Helper()
	students, duration = 30, 8*time.Second
	if v := os.Getenv("AULA_LOAD_STUDENTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("AULA_LOAD_STUDENTS=%q is not a positive number", v)
		}
		students = n
	}
	if v := os.Getenv("AULA_LOAD_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("AULA_LOAD_DURATION=%q is not a duration", v)
		}
		duration = d
	}
	return students, duration
}

// loadStats collects every request's outcome.
type loadStats struct {
	mu        sync.Mutex
	latency   map[string][]time.Duration // by kind of request
	status    map[int]int
	errors    []string
	admitted  map[string]string // answer id → user id
	refused   int               // questions refused for the quota (429)
	firstByte []time.Duration   // question posted → first chunk
}

func (s *loadStats) note(kind string, status int, took time.Duration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency[kind] = append(s.latency[kind], took)
	s.status[status]++
	if err != nil {
		s.errors = append(s.errors, fmt.Sprintf("%s: %v", kind, err))
	}
}

// newThreadAt presses "New conversation" as a plain form and returns the thread id.
func (s *student) newThreadAt(ctx context.Context) (string, int, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/chat",
		strings.NewReader(url.Values{"mode": {"tutor"}, "_csrf": {s.csrf}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := s.http.Do(req)
	if err != nil {
		return "", 0, err
	}
	resp.Body.Close()
	cid, ok := strings.CutPrefix(resp.Request.URL.Path, "/chat/")
	if resp.StatusCode != http.StatusOK || !ok {
		return "", resp.StatusCode, fmt.Errorf("new thread landed on %s", resp.Request.URL)
	}
	return cid, resp.StatusCode, nil
}

// runStudent plays one student until the deadline.
func runStudent(ctx context.Context, st *student, userID string, deadline time.Time, stats *loadStats) {
	timed := func(kind string, f func() (int, error)) int {
		start := time.Now()
		status, err := f()
		stats.note(kind, status, time.Since(start), err)
		return status
	}
	var threads []string
	limited := false // refused at the plan limit: from then on the student only reads
	question := []string{"What is a VLAN?", "How does a trunk port carry VLANs?", "What is an IPv4 subnet mask?",
		"Why route between VLANs?", "What does a switch learn from frames?"}
	for i := 0; time.Now().Before(deadline); i++ {
		var cid string
		if len(threads) == 0 || (i%3 == 0 && !limited) {
			status := timed("new thread", func() (int, error) {
				var status int
				var err error
				cid, status, err = st.newThreadAt(ctx)
				return status, err
			})
			if status != http.StatusOK {
				return
			}
			threads = append(threads, cid)
		} else {
			cid = threads[len(threads)-1]
		}
		// Ask, then follow up in the same thread.
		for turn := range 2 {
			if limited {
				break
			}
			var mid string
			start := time.Now()
			status := timed("ask", func() (int, error) {
				var status int
				var err error
				mid, status, err = st.ask(ctx, cid, question[(i+turn)%len(question)])
				return status, err
			})
			if status == http.StatusTooManyRequests {
				stats.mu.Lock()
				stats.refused++
				stats.mu.Unlock()
				limited = true
				break
			}
			if status != http.StatusOK || mid == "" {
				return
			}
			stats.mu.Lock()
			stats.admitted[mid] = userID
			stats.mu.Unlock()
			var first time.Time
			var final webtest.SSEEvent
			timed("stream", func() (int, error) {
				var err error
				final, err = st.stream(ctx, mid, func(ev webtest.SSEEvent, at time.Time) bool {
					if ev.Type == "chunk" && first.IsZero() {
						first = at
					}
					return true
				})
				if err == nil && final.Type != "done" {
					err = fmt.Errorf("answer %s ended with %q", mid, final.Type)
				}
				return http.StatusOK, err
			})
			if !first.IsZero() {
				stats.mu.Lock()
				stats.firstByte = append(stats.firstByte, first.Sub(start))
				stats.mu.Unlock()
			}
			if final.Type == "done" && (i+turn)%2 == 0 {
				timed("rate", func() (int, error) {
					status, _, err := st.do(ctx, http.MethodPost, "/messages/"+mid+"/rate", url.Values{"rating": {"up"}}, true)
					return status, err
				})
			}
		}
		// Switch to an earlier thread, and look at the list.
		if len(threads) > 1 {
			timed("switch thread", func() (int, error) {
				status, _, err := st.do(ctx, http.MethodGet, "/chat/"+threads[i%(len(threads)-1)], nil, false)
				return status, err
			})
		}
		timed("thread list", func() (int, error) {
			status, _, err := st.do(ctx, http.MethodGet, "/chat", nil, false)
			return status, err
		})
	}
}

// TestLoad: students at once for a while: no 5xx, every admitted question
// has exactly one assistant message (complete or failed), no plan limit is
// exceeded, every thread's seq has no gap or double; it prints requests per
// second and latency percentiles.
func TestLoad(t *testing.T) {
	students, duration := loadSize(t)
	s := apptest.New(t, func(c *tutor.Config) { c.Credentials.OfflineTokenDelayMs = 5 })
	type account struct {
		email, id, plan string
	}
	accounts := make([]account, students)
	for i := range accounts {
		plan := models.PlanPro
		if i%5 == 0 {
			plan = models.PlanFree // some reach the limit of 3 questions
		}
		email := fmt.Sprintf("student%03d@example.com", i)
		u := s.User(t, email, "a-long-password-1", plan)
		accounts[i] = account{email, u.ID, plan}
	}
	tr := sharedTransport()
	stats := &loadStats{latency: map[string][]time.Duration{}, status: map[int]int{}, admitted: map[string]string{}}
	ctx := context.Background()

	// Everyone signs in (timed as a request too), then plays.
	sts := make([]*student, students)
	var wg sync.WaitGroup
	start := time.Now()
	for i, a := range accounts {
		signInStart := time.Now()
		sts[i] = signInStudent(t, s.URL, a.email, "a-long-password-1", tr)
		stats.note("sign in", http.StatusOK, time.Since(signInStart), nil)
	}
	deadline := time.Now().Add(duration)
	for i, a := range accounts {
		wg.Go(func() { runStudent(ctx, sts[i], a.id, deadline, stats) })
	}
	wg.Wait()
	elapsed := time.Since(start)

	// What the students saw.
	var total int
	for _, l := range stats.latency {
		total += len(l)
	}
	for status, n := range stats.status {
		if status >= 500 || status == 0 {
			t.Errorf("%d requests answered %d", n, status)
		}
	}
	for _, e := range stats.errors[:min(len(stats.errors), 10)] {
		t.Errorf("request failed: %s", e)
	}
	if len(stats.admitted) == 0 {
		t.Fatal("no question was admitted")
	}

	// What the database holds.
	var userMsgs, assistantMsgs int64
	s.DB.Raw(`SELECT count(*) FROM messages WHERE role = 'user'`).Scan(&userMsgs)
	s.DB.Raw(`SELECT count(*) FROM messages WHERE role = 'assistant'`).Scan(&assistantMsgs)
	if int(userMsgs) != len(stats.admitted) || int(assistantMsgs) != len(stats.admitted) {
		t.Errorf("%d questions admitted, %d questions and %d answers stored", len(stats.admitted), userMsgs, assistantMsgs)
	}
	ids := make([]string, 0, len(stats.admitted))
	for id := range stats.admitted {
		ids = append(ids, id)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages WHERE id IN ? AND role = 'assistant' AND status IN ('complete', 'failed')`, ids); int(n) != len(ids) {
		t.Errorf("%d of %d admitted answers are complete or failed", n, len(ids))
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM messages q WHERE q.role = 'user' AND (SELECT count(*) FROM messages a
		WHERE a.conversation_id = q.conversation_id AND a.role = 'assistant' AND a.seq = q.seq + 1) != 1`); n != 0 {
		t.Errorf("%d questions without exactly one answer after them", n)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM (SELECT conversation_id FROM messages GROUP BY conversation_id
		HAVING count(DISTINCT seq) != count(*) OR max(seq) - min(seq) + 1 != count(*) OR min(seq) != 0) bad`); n != 0 {
		t.Errorf("%d threads whose seq has a gap, a double or a wrong start", n)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM plan_usage p JOIN users u ON u.id = p.user_id
		WHERE u.plan = 'FREE' AND p.questions > 3`); n != 0 {
		t.Errorf("%d FREE students over their limit", n)
	}
	if n := apptest.Count(t, s, `SELECT count(*) FROM (SELECT m.user_id FROM messages m JOIN users u ON u.id = m.user_id
		WHERE u.plan = 'FREE' AND m.role = 'assistant' AND m.status = 'complete' GROUP BY m.user_id HAVING count(*) > 3) over`); n != 0 {
		t.Errorf("%d FREE students got more than 3 answers", n)
	}

	// The table.
	var b strings.Builder
	fmt.Fprintf(&b, "\nload: %d students for %s (%s with sign-in): %d requests, %.1f requests/s, %d questions answered, %d refused at the plan limit\n",
		students, duration, elapsed.Round(time.Millisecond), total, float64(total)/elapsed.Seconds(), len(stats.admitted), stats.refused)
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "request\tcount\tp50 ms\tp90 ms\tp99 ms\tmax ms\t")
	kinds := make([]string, 0, len(stats.latency))
	for k := range stats.latency {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	row := func(name string, l []time.Duration) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t\n", name, len(l), ms(percentile(l, 50)), ms(percentile(l, 90)),
			ms(percentile(l, 99)), ms(percentile(l, 100)))
	}
	for _, k := range kinds {
		row(k, stats.latency[k])
	}
	row("question → first chunk", stats.firstByte)
	tw.Flush()
	t.Log(b.String())
	if testing.Verbose() {
		fmt.Println(b.String())
	}
}
