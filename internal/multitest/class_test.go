package multitest

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/internal/fakellm"
	"aula/models"
)

// The class benchmark: N students ask at the same moment through one
// aula process, beside the fake provider's own first-token figures
// measured in the same run (N streams opened on it directly). Each class
// size runs through the API stream (POST /api/v1/tutor/stream, one token
// per student) and through the browser path (the HTMX POST of the ask
// form with a session cookie and CSRF token, then the answer's event
// stream), each on a fresh database and process; then N students of ONE
// account ask at once through the API. AULA_CLASS sets the class sizes
// (default 1,50,200); `go tool task loadbench` runs 1,50,200,500,1000.
// AULA_CLASS_ONE sets the one-account class (default 200; 0 skips it).
// Each class then asks again, AULA_CLASS_AGAIN times (default 2), once
// its answers are stored: the rows ", 2nd" and ", 3rd" (class_rounds_test.go).

// classAnswer is the fake model's answer: 200 tokens at 50 tokens/s.
var classAnswer = func() []string {
	out := make([]string, 200)
	for i := range out {
		out[i] = fmt.Sprintf("w%d ", i)
	}
	return out
}()

// classQuestion is student i's question: a class asks about the same
// lessons in different words, so the questions are 200 combinations of
// two topics (retrieval, which reads the same search once for all who
// ask it, gets no easier class than a real one).
func classQuestion(i int) string {
	first := []string{"VLANs", "trunk ports", "switches", "MAC addresses", "subnet masks", "routers", "IPv4 addresses",
		"default gateways", "broadcast domains", "access ports"}
	second := []string{"frames", "tagging", "the native VLAN", "ARP", "CIDR", "routing tables", "collision domains",
		"802.1Q", "inter-VLAN routing", "static routes", "DHCP", "the MAC table", "flooding", "Ethernet", "goroutines",
		"channels", "errors in Go", "slices", "interfaces", "context cancellation"}
	return fmt.Sprintf("How do %s relate to %s?", first[i%len(first)], second[(i/len(first))%len(second)])
}

// The doors a class asks through.
const (
	doorAPI     = "API stream"
	doorBrowser = "browser (HTMX+SSE)"
	doorOne     = "API, one account"
)

// classRow is one class size's figures through one door.
type classRow struct {
	Door                     string
	N                        int
	ProvFirst50, ProvFirst99 time.Duration
	First50, First99         time.Duration
	Total50, Total99         time.Duration
	AulaCPU, PGCPU           time.Duration
	PeakRSS                  int64 // KiB
	Complete, Errors         int
	Counted                  int // questions counted in plan_usage
	// Asked50 is the p50 of the time from the class's moment to the
	// provider's receiving the answer's request.
	Asked50 time.Duration
	// Round is the class's how-manieth question (0 and 1 the first):
	// each later round asks once the one before is stored (see classRun).
	Round int
}

func BenchmarkClass(b *testing.B) {
	sizes := classSizes(b, "AULA_CLASS", []int{1, 50, 200})
	one := classSizes(b, "AULA_CLASS_ONE", []int{200})
	var rows []classRow
	for _, n := range sizes {
		rows = append(rows, floorRun(b, n, doorPipe), floorRun(b, n, doorFloor))
		rows = append(rows, classRun(b, n, doorAPI)...)
		rows = append(rows, classRun(b, n, doorBrowser)...)
	}
	for _, n := range one {
		if n > 0 {
			rows = append(rows, classRun(b, n, doorOne)...)
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "\nclass of N students asking at once (fake OpenAI, 200 tokens at 50/s); provider = the fake alone with N streams, same run;\n"+
		"relay floor = the same class through a program that only relays the provider with langchaingo (no account, database or prompt);\n"+
		"pipe floor = the same, copying the provider's stream unparsed\n")
	fmt.Fprintf(&out, "goal = issue 12's allowance from the row's own provider figures: p50 within 1.5 x provider + 10 ms (N <= 200)\n"+
		"or 2 x provider (N > 200), p99 within 3 x provider + 50 ms; a row within it is marked ok\n")
	fmt.Fprintf(&out, "%-18s | %5s | %-19s | %-17s | %-25s | %-19s | %8s | %8s | %9s | %8s | %-15s | %s\n",
		"door", "N", "provider 1st p50/p99", "aula 1st p50/p99", "goal p50 / p99", "aula total p50/p99", "aula CPU", "PG CPU", "PG/answer",
		"peak RSS", "stored complete", "errors, questions counted")
	for _, r := range rows {
		stored := fmt.Sprintf("%6d / %-6d | %d, %d", r.Complete, r.N, r.Errors, r.Counted)
		if r.Door == doorFloor || r.Door == doorPipe {
			stored = fmt.Sprintf("%15s | %d, -", "-", r.Errors)
		}
		fmt.Fprintf(&out, "%-18s | %5d | %8s / %7s | %7s / %7s | %-25s | %8s / %8s | %7.2fs | %7.2fs | %7.1fms | %5d MB | %s\n",
			r.label(), r.N, ms(r.ProvFirst50), ms(r.ProvFirst99), ms(r.First50), ms(r.First99), r.goal(),
			ms(r.Total50), ms(r.Total99),
			r.AulaCPU.Seconds(), r.PGCPU.Seconds(), float64(r.PGCPU.Microseconds())/1000/float64(r.N), r.PeakRSS/1024, stored)
	}
	out.WriteString(verdicts(rows))
	fmt.Print(out.String())
}

// timed records the class's first-chunk and total times and its errors.
func (r *classRow) timed(got burst) {
	r.Errors = got.Errs
	r.First50, r.First99 = pct(got.Firsts, 50), pct(got.Firsts, 99)
	r.Total50, r.Total99 = pct(got.Totals, 50), pct(got.Totals, 99)
}

// goal is the row's first token against issue 12's allowance, computed
// from the provider's figures measured beside it.
func (r classRow) goal() string {
	p50 := r.ProvFirst50*3/2 + 10*time.Millisecond
	if r.N > 200 {
		p50 = 2 * r.ProvFirst50
	}
	p99 := 3*r.ProvFirst99 + 50*time.Millisecond
	mark := func(got, limit time.Duration) string {
		if got <= limit {
			return "<=" + ms(limit) + " ok"
		}
		return "<=" + ms(limit) + " NO"
	}
	return mark(r.First50, p50) + " / " + mark(r.First99, p99)
}

// classSizes reads a list of class sizes from the environment.
func classSizes(b *testing.B, name string, def []int) []int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var sizes []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			b.Fatalf("%s=%q: want sizes such as 1,50,200", name, v)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

func ms(d time.Duration) string { return fmt.Sprintf("%dms", d.Milliseconds()) }

// classRun measures one class size through one door on a fresh database
// and process, and then the same class asking again once every answer is
// stored, AULA_CLASS_AGAIN times (default 2; 0 skips it): through the API
// a new thread each, through the browser a follow-up in the same thread,
// on a process and pool connections the rounds before warmed. The first
// follow-up is the first time each connection plans the statements only
// a follow-up runs (its thread's history); the second is a class's
// steady state.
func classRun(b *testing.B, n int, door string) []classRow {
	b.Helper()
	fake := fakellm.Start(b, fakellm.OpenAI, fakellm.Options{Tokens: classAnswer, TokensPerSecond: 50, LimitTokens: true})
	row := classRow{Door: door, N: n}
	row.ProvFirst50, row.ProvFirst99 = providerFirstTokens(b, fake.URL, n)

	dbURL, db := freshDB(b)
	// The lease is the production default (the harness's 2 s makes the
	// kill tests quick, and would renew every answer's row three times a second).
	// AULA_MEMORY_LIMIT reaches the process, so the limit's cost can be
	// measured (AULA_MEMORY_LIMIT=off against the default). The class of
	// one account holds all n of its streams open at once: past the
	// per-account cap a student would have.
	procs := start(b, env(dbURL, "AULA_LLM_PROVIDER=openai", "AULA_LLM_MODEL=fake-model",
		"OPENAI_API_KEY=sk-fake", "OPENAI_BASE_URL="+fake.URL+"/v1", "AULA_LEASE_TTL=15s",
		"AULA_MEMORY_LIMIT="+os.Getenv("AULA_MEMORY_LIMIT"), fmt.Sprintf("AULA_STREAMS_PER_USER=%d", max(n, 1))), "class")
	p := procs[0]
	accounts := n
	if door == doorOne {
		accounts = 1
	}
	emails, tokens := classAccounts(b, dbURL, accounts)
	if os.Getenv("AULA_CLASS_TITLES") == "offline" {
		// Threads keep their first question as their name: the title calls
		// each new thread's first answer starts in the background are out
		// of the measurement (what they cost the next round is the
		// difference).
		if _, err := db.Exec(`INSERT INTO ai_routes (use_case, provider) VALUES ('title', 'offline')
			ON CONFLICT (use_case) DO UPDATE SET provider = 'offline'`); err != nil {
			b.Fatal(err)
		}
	}
	ask := func() burst { return askAtOnce(p.base+apiStreamPath, tokens) }
	again := func() error { return nil }
	switch door {
	case doorOne:
		ask = func() burst {
			return askAtOnce(p.base+apiStreamPath, slices.Repeat(tokens, n))
		}
	case doorBrowser:
		class, err := classBrowsers(p.base, emails)
		if err != nil {
			b.Fatal(err)
		}
		ask = func() burst { return browsersAtOnce(p.base, class) }
		again = func() error { return rereadThreads(p.base, class) }
	}
	rows := []classRow{measureRound(b, p, db, fake, row, ask)}
	for round := 2; door != doorOne && round <= 1+classAgain(b); round++ {
		if err := again(); err != nil {
			b.Fatal(err)
		}
		next := row
		next.Round = round
		rows = append(rows, measureRound(b, p, db, fake, next, ask))
	}
	// Each run's process goes now: a class size after another must not
	// find the cluster's connections held by the ones before.
	p.stop()
	return rows
}

// classAccounts creates n PRO students, each with one API token and
// classPassword (one hash for all), and returns their emails and tokens.
func classAccounts(b *testing.B, dbURL string, n int) (emails, tokens []string) {
	b.Helper()
	ctx := context.Background()
	g, err := models.Open(ctx, dbURL)
	if err != nil {
		b.Fatal(err)
	}
	sqlDB, _ := g.DB()
	defer sqlDB.Close()
	if err := g.Exec(`INSERT INTO users (email, password_hash, name, plan)
		SELECT 'class-' || i || '@aula.test', ?, 'Student ' || i, 'PRO' FROM generate_series(1, ?) i`,
		models.HashPassword(classPassword), n).Error; err != nil {
		b.Fatal(err)
	}
	var users []struct{ ID, Email string }
	if err := g.Raw(`SELECT id, email FROM users WHERE email LIKE 'class-%' ORDER BY email`).Scan(&users).Error; err != nil {
		b.Fatal(err)
	}
	store := models.NewTokens(g)
	tokens = make([]string, len(users))
	for i, u := range users {
		emails = append(emails, u.Email)
		if _, tokens[i], err = store.Create(ctx, u.ID, "class"); err != nil {
			b.Fatal(err)
		}
	}
	return emails, tokens
}

// apiStreamPath is where the API's students ask.
const apiStreamPath = "/api/v1/tutor/stream"

// askAtOnce has every token ask at url at the same moment and read its
// stream to the end; it returns each answer's first-chunk and total times.
func askAtOnce(url string, tokens []string) burst {
	client := newClassClient(len(tokens))
	return atOnce(len(tokens), func(i int) (time.Duration, time.Duration, error) {
		body := fmt.Sprintf(`{"message":%q}`, classQuestion(i))
		return streamOnce(client, url, tokens[i], body, `"type":"chunk"`, `"type":"done"`)
	})
}

// newClassClient is the load generator's client: one connection per
// student.
func newClassClient(n int) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
}

// burst is one class's asks at once: each answer's first-chunk and total
// times, the failed asks, and the moment they were let go.
type burst struct {
	Firsts, Totals []time.Duration
	Errs           int
	At             time.Time
}

// atOnce runs n asks at the same moment and collects their first-token
// and total times; a failed ask counts as an error.
func atOnce(n int, ask func(i int) (first, total time.Duration, err error)) burst {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var got burst
	gate := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-gate
			first, total, err := ask(i)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				got.Errs++
				return
			}
			got.Firsts, got.Totals = append(got.Firsts, first), append(got.Totals, total)
		})
	}
	got.At = time.Now()
	close(gate)
	wg.Wait()
	return got
}

// asked is the p50 of the time from the class's moment to the provider's
// receiving an answer's request (the title calls, 32 tokens, are not
// answers): how long the door took to call the provider.
func asked(fake *fakellm.Server, at time.Time) time.Duration {
	var since []time.Duration
	for _, r := range fake.Requests() {
		if r.At.After(at) && r.MaxTokens != 32 {
			since = append(since, r.At.Sub(at))
		}
	}
	return pct(since, 50)
}

// providerFirstTokens opens n streams on the fake provider at once, as
// aula would, and returns the p50 and p99 of their first tokens.
func providerFirstTokens(b *testing.B, url string, n int) (p50, p99 time.Duration) {
	b.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	var mu sync.Mutex
	var firsts []time.Duration
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-gate
			first, _, err := streamOnce(client, url+"/v1/chat/completions", "sk-fake",
				`{"model":"fake-model","stream":true,"messages":[{"role":"user","content":"how do VLANs work?"}]}`,
				`"content":"w0 "`, "[DONE]")
			if err == nil {
				mu.Lock()
				firsts = append(firsts, first)
				mu.Unlock()
			}
		})
	}
	close(gate)
	wg.Wait()
	if len(firsts) != n {
		b.Fatalf("the provider alone answered %d of %d streams", len(firsts), n)
	}
	return pct(firsts, 50), pct(firsts, 99)
}

// streamOnce posts body and reads the event stream until a line holding
// end, timing the first line holding first.
func streamOnce(client *http.Client, url, token, body, first, end string) (time.Duration, time.Duration, error) {
	t0 := time.Now()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("status %d", res.StatusCode)
	}
	var firstAt time.Duration
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if firstAt == 0 && bytes.Contains(line, []byte(first)) {
			firstAt = time.Since(t0)
		}
		if bytes.Contains(line, []byte(end)) {
			return firstAt, time.Since(t0), nil
		}
	}
	return 0, 0, fmt.Errorf("stream ended without %s: %v", end, sc.Err())
}

// postmasterPID reads the cluster's postmaster.pid.
func postmasterPID(b *testing.B, db *sql.DB) int {
	b.Helper()
	var dir string
	scan(b, db, `SELECT setting FROM pg_settings WHERE name = 'data_directory'`, nil, &dir)
	raw, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		b.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(raw), "\n", 2)[0]))
	if err != nil {
		b.Fatal(err)
	}
	return pid
}

// clockTick is the kernel's USER_HZ, the unit of /proc/*/stat times.
const clockTick = 10 * time.Millisecond

// cpuOf is a process's user+system CPU time from /proc (with its waited-for
// children's when children is set).
func cpuOf(pid int, children bool) time.Duration {
	f := statFields(pid)
	if len(f) < 17 {
		return 0
	}
	sum := 0
	last := 15 // utime, stime
	if children {
		last = 17 // cutime, cstime
	}
	for _, v := range f[13:last] {
		n, _ := strconv.Atoi(v)
		sum += n
	}
	return time.Duration(sum) * clockTick
}

// statFields splits /proc/pid/stat, the command name (which may hold
// spaces) kept as one field.
func statFields(pid int) []string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return append([]string{s[:strings.IndexByte(s, ' ')], s[:i+1]}, strings.Fields(s[i+1:])...)
}

// pgCPU is the CPU of the postmaster, its exited backends and its live ones.
func pgCPU(postmaster int) time.Duration {
	total := cpuOf(postmaster, true)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := statFields(pid); len(f) > 3 && f[3] == strconv.Itoa(postmaster) {
			total += cpuOf(pid, false)
		}
	}
	return total
}

// peakRSS is a process's VmHWM in KiB.
func peakRSS(pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n
		}
	}
	return 0
}
