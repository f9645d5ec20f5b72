package multitest

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/internal/fakellm"
)

// TestMigrationsRaceOnFreshDatabase starts several `aula migrate` at once
// on an empty database: the advisory lock lets one apply the schema and
// the others find it done.
func TestMigrationsRaceOnFreshDatabase(t *testing.T) {
	dbURL, db := freshDB(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			cmd := command(env(dbURL), "migrate")
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("%v: %s", err, out)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var applied, distinct int
	if err := db.QueryRow(`SELECT count(*), count(DISTINCT version_id) FROM goose_db_version WHERE version_id > 0`).
		Scan(&applied, &distinct); err != nil {
		t.Fatal(err)
	}
	if applied == 0 || applied != distinct {
		t.Fatalf("migrations applied %d times for %d versions", applied, distinct)
	}
	var cols int
	if err := db.QueryRow(`SELECT count(*) FROM information_schema.columns
		WHERE table_name = 'messages' AND column_name IN ('lease_owner', 'lease_until')`).Scan(&cols); err != nil || cols != 2 {
		t.Fatalf("lease columns: %d %v", cols, err)
	}
}

// TestSeveralProcessesOneDatabase runs two, then three, aula processes on
// one database (started at once on an empty one, so they also race to
// migrate it) and checks that they behave as one site.
func TestSeveralProcessesOneDatabase(t *testing.T) {
	fake := fakellm.Start(t, fakellm.OpenAI, fakellm.Options{Tokens: []string{"Routed", " through", " the", " fake", "."}})
	dbURL, db := freshDB(t)
	environ := env(dbURL, "OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+fake.URL)
	procs := start(t, environ, "a", "b")
	a, b := procs[0], procs[1]
	run(t, environ, "seed")
	run(t, environ, "user", "create", "--email", "race@aula.test", "--name", "Race", "--password", "race-pass-1", "--plan", "FREE")
	run(t, environ, "user", "create", "--email", "throttle@aula.test", "--name", "Throttle", "--password", "throttle-pass-1")

	t.Run("session", func(t *testing.T) {
		br := newBrowser()
		if code := br.login(t, a.base, "pro@aula.test", "pro-pass-1"); code != http.StatusSeeOther {
			t.Fatalf("login on a: %d", code)
		}
		if code, _ := br.page(t, b.base+"/chat"); code != http.StatusOK {
			t.Fatalf("a's session on b: %d", code)
		}
		// A form whose CSRF token was issued by a posts through b.
		cid := br.newThread(t, b.base)
		if code, _ := br.page(t, a.base+"/chat/"+cid); code != http.StatusOK {
			t.Fatalf("b's thread on a: %d", code)
		}
		if code, _, _ := br.post(t, b.base+"/logout", url.Values{}, nil); code != http.StatusSeeOther {
			t.Fatalf("logout on b: %d", code)
		}
		if code, _ := br.page(t, a.base+"/chat"); code != http.StatusSeeOther {
			t.Fatalf("a still accepts the session b revoked: %d", code)
		}
	})

	t.Run("login throttle", func(t *testing.T) {
		for i := range 5 {
			p := procs[i%2]
			if code := newBrowser().login(t, p.base, "throttle@aula.test", "wrong-password"); code != http.StatusUnauthorized {
				t.Fatalf("failure %d on %s: %d", i, p.name, code)
			}
		}
		for _, p := range procs {
			if code := newBrowser().login(t, p.base, "throttle@aula.test", "throttle-pass-1"); code != http.StatusTooManyRequests {
				t.Fatalf("%s after 5 failures spread over both: %d", p.name, code)
			}
		}
	})

	t.Run("quota race", func(t *testing.T) {
		br := newBrowser()
		br.login(t, a.base, "race@aula.test", "race-pass-1")
		cid := br.newThread(t, a.base)
		var mu sync.Mutex
		codes := map[int]int{}
		var mids []string
		var wg sync.WaitGroup
		for i := range 50 {
			wg.Go(func() {
				code, mid := br.ask(t, procs[i%2].base, cid, fmt.Sprintf("question %d: what is a VLAN?", i))
				mu.Lock()
				codes[code]++
				if mid != "" {
					mids = append(mids, mid)
				}
				mu.Unlock()
			})
		}
		wg.Wait()
		if codes[http.StatusOK] != 3 || codes[http.StatusTooManyRequests] != 47 {
			t.Fatalf("50 questions of a FREE user over two processes: %v", codes)
		}
		var used, answers int
		scan(t, db, `SELECT coalesce(sum(questions), 0) FROM plan_usage p JOIN users u ON u.id = p.user_id WHERE u.email = 'race@aula.test'`, nil, &used)
		scan(t, db, `SELECT count(*) FROM messages m JOIN users u ON u.id = m.user_id WHERE u.email = 'race@aula.test' AND m.role = 'assistant'`, nil, &answers)
		if used != 3 || answers != 3 {
			t.Fatalf("used %d, answers %d", used, answers)
		}
		for _, mid := range mids {
			waitStatus(t, db, mid, 30*time.Second, "complete")
		}
	})

	br := newBrowser()
	br.login(t, b.base, "pro@aula.test", "pro-pass-1")
	cid := br.newThread(t, a.base)

	t.Run("stream resumes on another process", func(t *testing.T) {
		_, mid := br.ask(t, a.base, cid, "How do VLANs separate traffic on a switch?")
		first, last := readUntil(t, br, a.base, mid, "", 60)
		rest, final := readToEnd(t, br, b.base, mid, last)
		content := contentOf(t, db, mid)
		if final != "done" || first+rest != content {
			t.Fatalf("resume on b after %d bytes from a: %s\nfirst %q\nrest  %q\nstored %q", len(first), final, first, rest, content)
		}
		// The stream's first connection lands on b, which is not generating.
		_, mid2 := br.ask(t, a.base, cid, "And what is a trunk port?")
		whole, final := readToEnd(t, br, b.base, mid2, "")
		if final != "done" || whole != contentOf(t, db, mid2) {
			t.Fatalf("whole stream from b: %s %q", final, whole)
		}
	})

	t.Run("rating through another process", func(t *testing.T) {
		var mid string
		scan(t, db, `SELECT id FROM messages WHERE conversation_id = $1 AND role = 'assistant' AND status = 'complete' ORDER BY seq LIMIT 1`, []any{cid}, &mid)
		if code, _, _ := br.post(t, b.base+"/messages/"+mid+"/rate", url.Values{"rating": {"up"}}, nil); code != http.StatusSeeOther {
			t.Fatalf("rate on b: %d", code)
		}
		if _, page := br.page(t, a.base+"/chat/"+cid); !strings.Contains(page, "m-"+mid) {
			t.Fatal("answer missing on a")
		}
		var rating sql.NullString
		scan(t, db, `SELECT rating FROM messages WHERE id = $1`, []any{mid}, &rating)
		if rating.String != "up" {
			t.Fatalf("rating %q", rating.String)
		}
	})

	t.Run("route change reaches every process", func(t *testing.T) {
		exec1(t, db, `UPDATE ai_routes SET provider = 'openai', model = 'gpt-routed', updated_at = now() WHERE use_case = 'tutor_chat'`)
		for _, p := range procs {
			_, mid := br.ask(t, p.base, cid, "Which model answers now?")
			waitStatus(t, db, mid, 30*time.Second, "complete")
			var provider, model, content string
			scan(t, db, `SELECT provider, model, content FROM messages WHERE id = $1`, []any{mid}, &provider, &model, &content)
			if provider != "openai" || model != "gpt-routed" || content != fake.Answer() {
				t.Fatalf("%s after the route change: %s/%s %q", p.name, provider, model, content)
			}
		}
		exec1(t, db, `UPDATE ai_routes SET provider = 'offline', model = '' WHERE use_case = 'tutor_chat'`)
	})

	// d answers slowly, so there is time to stop it, or kill it, mid-answer.
	d := start(t, append(environ[:len(environ):len(environ)], "AULA_OFFLINE_TOKEN_DELAY_MS=150"), "d")[0]

	t.Run("cancel from another process", func(t *testing.T) {
		_, mid := br.ask(t, d.base, cid, "Explain subnet masks in detail, please")
		readUntil(t, br, d.base, mid, "", 20)
		code, _, _ := br.post(t, b.base+"/messages/"+mid+"/cancel", url.Values{}, nil)
		if code != http.StatusSeeOther {
			t.Fatalf("cancel on b: %d", code)
		}
		var status string
		scan(t, db, `SELECT status FROM messages WHERE id = $1`, []any{mid}, &status)
		if status != "cancelled" {
			t.Fatalf("after cancel on b: %s", status)
		}
	})

	c := start(t, environ, "c")[0]
	procs = append(procs, c)

	t.Run("load across three processes", func(t *testing.T) {
		r := loadScenario(t, procs, db, loadOptions{Users: 6, Questions: 2, DSN: dbURL})
		r.print(t)
		if r.Mismatches != 0 || r.Streams != 12 {
			t.Fatalf("%d of %d reconnected streams lost or doubled text", r.Mismatches, r.Streams)
		}
	})

	t.Run("a process killed mid-answer", func(t *testing.T) {
		var before int
		pro := `SELECT coalesce(sum(questions), 0) FROM plan_usage p JOIN users u ON u.id = p.user_id WHERE u.email = 'pro@aula.test'`
		_, mid := br.ask(t, d.base, cid, "Tell me everything about VLAN trunking and tagging")
		scan(t, db, pro, nil, &before)
		// b follows the answer d generates; it must end, not hang.
		ended := make(chan string, 1)
		go func() {
			_, final := readToEnd(t, br, b.base, mid, "")
			ended <- final
		}()
		waitFor(t, 20*time.Second, "text in the row", func() bool { return contentOf(t, db, mid) != "" })
		d.kill(t)
		var status string
		scan(t, db, `SELECT status FROM messages WHERE id = $1`, []any{mid}, &status)
		if status != "streaming" {
			t.Fatalf("the answer ended (%s) before the kill", status)
		}
		killed := time.Now()
		waitStatus(t, db, mid, 30*time.Second, "failed")
		detected := time.Since(killed)
		var code string
		var quota sql.NullTime
		scan(t, db, `SELECT error_code, quota_period FROM messages WHERE id = $1`, []any{mid}, &code, &quota)
		var after int
		scan(t, db, pro, nil, &after)
		if code != "interrupted" || quota.Valid || after != before-1 {
			t.Fatalf("dead owner's answer: code %q, quota_period %v, used %d -> %d", code, quota.Valid, before, after)
		}
		select {
		case final := <-ended:
			if final != "error" {
				t.Fatalf("b's follower ended with %q", final)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("b's follower never ended")
		}
		// Later sweeps (every process sweeps) refund nothing more.
		time.Sleep(1500 * time.Millisecond)
		scan(t, db, pro, nil, &after)
		if after != before-1 {
			t.Fatalf("refunded twice: used %d -> %d", before, after)
		}
		t.Logf("figure: answer of a SIGKILLed process failed %v after the kill (lease TTL 2s, sweep every 667ms)", detected.Round(10*time.Millisecond))
		// The survivors still answer.
		_, mid = br.ask(t, c.base, cid, "Are you still there?")
		waitStatus(t, db, mid, 30*time.Second, "complete")
	})
}

// scan reads one row of q (with args) into dst.
func scan(t testing.TB, db *sql.DB, q string, args []any, dst ...any) {
	t.Helper()
	if err := db.QueryRow(q, args...).Scan(dst...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func exec1(t testing.TB, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func contentOf(t testing.TB, db *sql.DB, mid string) string {
	t.Helper()
	var s string
	scan(t, db, `SELECT content FROM messages WHERE id = $1`, []any{mid}, &s)
	return s
}

func waitStatus(t testing.TB, db *sql.DB, mid string, d time.Duration, want string) {
	t.Helper()
	var status string
	waitFor(t, d, "answer "+want, func() bool {
		scan(t, db, `SELECT status FROM messages WHERE id = $1`, []any{mid}, &status)
		if status != want && status != "streaming" {
			t.Fatalf("answer %s ended %s, want %s", mid, status, want)
		}
		return status == want
	})
}

// readUntil reads an answer's chunks from base until at least n bytes
// arrived, then drops the connection; it returns the text and the last event id.
func readUntil(t testing.TB, br *browser, base, mid, lastID string, n int) (string, string) {
	t.Helper()
	var b strings.Builder
	last := lastID
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := br.stream(ctx, base, mid, lastID, func(ev sseEvent) bool {
		if ev.name != "chunk" {
			return ev.name == "slow"
		}
		b.WriteString(chunkText(ev))
		last = ev.id
		return b.Len() < n
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), last
}

// readToEnd reads an answer from base (from lastID) to its final event;
// it returns the text and the final event's name.
func readToEnd(t testing.TB, br *browser, base, mid, lastID string) (string, string) {
	var b strings.Builder
	final := ""
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_ = br.stream(ctx, base, mid, lastID, func(ev sseEvent) bool {
		switch ev.name {
		case "chunk":
			b.WriteString(chunkText(ev))
		case "done", "error":
			final = ev.name
			return false
		}
		return true
	})
	return b.String(), final
}
