package multitest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// loadOptions size the scenario: Users students at once, each asking
// Questions questions in a row.
type loadOptions struct {
	Users, Questions int
	DSN              string // database URL, for the notification counter
}

// loadResult is what the scenario measured.
type loadResult struct {
	Procs, Users, Streams, Mismatches int
	Requests                          int64
	Elapsed                           time.Duration
	Ask, FirstChunk, Reconnect, Whole []time.Duration
	Notifications                     int
	PerStreamRate                     []float64 // notifications per second of each answer's generation
}

// loadScenario: every student signs up on one process, opens a thread on
// the next, and for each question asks on one process, reads the first
// part of the answer's stream there, drops the connection and resumes with
// Last-Event-ID on the next process (never the one generating), checking
// the text it got against the stored answer.
func loadScenario(t testing.TB, procs []*proc, db *sql.DB, o loadOptions) *loadResult {
	t.Helper()
	r := &loadResult{Procs: len(procs), Users: o.Users}
	notes := countNotifications(t, o.DSN)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var requests countingRequests
	began := time.Now()
	suffix := strconv.FormatInt(time.Now().UnixNano(), 36)
	type answer struct {
		mid         string
		asked, done time.Time
	}
	var answers []answer
	for i := range o.Users {
		wg.Go(func() {
			br := newBrowser()
			br.counter = &requests
			br.addr = fmt.Sprintf("198.18.%d.%d", i/250, i%250+1)
			n := len(procs)
			email := fmt.Sprintf("load-%d-%s@aula.test", i, suffix)
			br.signup(t, procs[i%n].base, fmt.Sprintf("Load %d", i), email, "load-pass-1")
			exec1(t, db, `UPDATE users SET plan = 'PRO' WHERE email = $1`, email)
			cid := br.newThread(t, procs[(i+1)%n].base)
			for q := range o.Questions {
				owner, other := procs[(i+q)%n], procs[(i+q+1)%n]
				t0 := time.Now()
				code, mid := br.ask(t, owner.base, cid, fmt.Sprintf("Question %d: how do VLANs and trunk ports work?", q))
				asked := time.Now()
				if code != 200 {
					t.Errorf("ask on %s: %d", owner.name, code)
					return
				}
				var firstAt time.Time
				var head strings.Builder
				last := ""
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				_ = br.stream(ctx, owner.base, mid, "", func(ev sseEvent) bool {
					if ev.name != "chunk" {
						return ev.name == "slow"
					}
					if firstAt.IsZero() {
						firstAt = time.Now()
					}
					head.WriteString(chunkText(ev))
					last = ev.id
					return head.Len() < 40
				})
				cancel()
				t1 := time.Now()
				var reconnectAt time.Time
				var tail strings.Builder
				final := ""
				ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
				_ = br.stream(ctx, other.base, mid, last, func(ev sseEvent) bool {
					if reconnectAt.IsZero() {
						reconnectAt = time.Now()
					}
					switch ev.name {
					case "chunk":
						tail.WriteString(chunkText(ev))
					case "done", "error":
						final = ev.name
						return false
					}
					return true
				})
				cancel()
				done := time.Now()
				stored := contentOf(t, db, mid)
				mu.Lock()
				r.Streams++
				if final != "done" || head.String()+tail.String() != stored {
					r.Mismatches++
					t.Errorf("answer %s (asked on %s, resumed on %s at %s): %s\ngot    %q\nstored %q",
						mid, owner.name, other.name, last, final, head.String()+tail.String(), stored)
				}
				r.Ask = append(r.Ask, asked.Sub(t0))
				if !firstAt.IsZero() {
					r.FirstChunk = append(r.FirstChunk, firstAt.Sub(asked))
				}
				if !reconnectAt.IsZero() {
					r.Reconnect = append(r.Reconnect, reconnectAt.Sub(t1))
				}
				r.Whole = append(r.Whole, done.Sub(t0))
				answers = append(answers, answer{mid, t0, done})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	r.Elapsed = time.Since(began)
	r.Requests = requests.n.Load()
	counts := notes.stop()
	for _, a := range answers {
		n := counts[a.mid]
		r.Notifications += n
		// The stream's own span: from the question to the end of the
		// answer as the student saw it.
		if secs := a.done.Sub(a.asked).Seconds(); secs > 0 {
			r.PerStreamRate = append(r.PerStreamRate, float64(n)/secs)
		}
	}
	return r
}

// notificationCounter counts aula_stream notifications per message.
type notificationCounter struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	counts map[string]int
}

func countNotifications(t testing.TB, dsn string) *notificationCounter {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &notificationCounter{cancel: cancel, done: make(chan struct{}), counts: map[string]int{}}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "LISTEN aula_stream"); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.done)
		defer conn.Close(context.Background())
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				return
			}
			// A batch names "<id> <bytes>" pairs; "<id> end" is the end
			// of an answer, not text.
			if strings.HasSuffix(n.Payload, " end") {
				continue
			}
			c.mu.Lock()
			for _, f := range strings.Fields(n.Payload) {
				if len(f) == 36 {
					c.counts[f]++
				}
			}
			c.mu.Unlock()
		}
	}()
	return c
}

func (c *notificationCounter) stop() map[string]int {
	time.Sleep(100 * time.Millisecond) // notifications of the last commits
	c.cancel()
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts
}

// pct is the p-th percentile of d, 0 when d is empty (the load and class scenarios share it).
func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func (r *loadResult) print(t testing.TB) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "load: %d processes, %d students, %d answers each resumed on another process, %d lost or doubled\n",
		r.Procs, r.Users, r.Streams, r.Mismatches)
	fmt.Fprintf(&b, "  %d requests in %v: %.1f requests/s\n", r.Requests, r.Elapsed.Round(time.Millisecond),
		float64(r.Requests)/r.Elapsed.Seconds())
	fmt.Fprintf(&b, "  %-34s %9s %9s %9s\n", "latency", "p50", "p90", "p99")
	for _, row := range []struct {
		name string
		d    []time.Duration
	}{{"ask (POST, HTMX)", r.Ask}, {"first chunk on the owner", r.FirstChunk},
		{"first event after reconnect", r.Reconnect}, {"whole answer (ask to done)", r.Whole}} {
		fmt.Fprintf(&b, "  %-34s %9v %9v %9v\n", row.name, pct(row.d, 50).Round(100*time.Microsecond),
			pct(row.d, 90).Round(100*time.Microsecond), pct(row.d, 99).Round(100*time.Microsecond))
	}
	rates := slices.Clone(r.PerStreamRate)
	slices.Sort(rates)
	mean := 0.0
	for _, x := range rates {
		mean += x
	}
	if len(rates) > 0 {
		mean /= float64(len(rates))
		fmt.Fprintf(&b, "  notifications: %d for %d answers; per answer per second mean %.1f, max %.1f (bound: 1 per 100 ms flush = 10/s)\n",
			r.Notifications, len(rates), mean, rates[len(rates)-1])
	}
	t.Log("\n" + b.String())
	if os.Getenv("AULA_LOAD_PRINT") != "" {
		fmt.Print(b.String())
	}
}

// TestLoadScenarioLong is the longer load run across three processes; it
// runs when AULA_LOAD_USERS is set, e.g.
// AULA_LOAD_USERS=40 AULA_LOAD_QUESTIONS=3 go test ./internal/multitest -run LoadScenarioLong -v
func TestLoadScenarioLong(t *testing.T) {
	users, _ := strconv.Atoi(os.Getenv("AULA_LOAD_USERS"))
	if users <= 0 {
		t.Skip("set AULA_LOAD_USERS to run the long load scenario")
	}
	questions, _ := strconv.Atoi(os.Getenv("AULA_LOAD_QUESTIONS"))
	questions = max(questions, 1)
	dbURL, db := freshDB(t)
	environ := env(dbURL)
	procs := start(t, environ, "a", "b", "c")
	run(t, environ, "seed")
	r := loadScenario(t, procs, db, loadOptions{Users: users, Questions: questions, DSN: dbURL})
	r.print(t)
	if r.Mismatches != 0 {
		t.Fatalf("%d of %d reconnected streams lost or doubled text", r.Mismatches, r.Streams)
	}
}
