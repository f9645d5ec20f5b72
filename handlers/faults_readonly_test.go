package handlers_test

// PostgreSQL refusing writes (read-only, SQLSTATE 25006) while answers
// stream: the final write is retried until it is stored, "done" is sent
// only then, and the doors answer 503 meanwhile, never 500.

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/internal/apptest"
	"aula/internal/webtest"
	"aula/models"
	"aula/tutor"
)

// makeReadOnly makes the test's database refuse writes, as an operator
// (or a failover to a standby) does: new transactions are read-only and
// the open connections are ended so none keeps writing. The returned
// restore lets writes back the same way; cleanup restores it too.
func makeReadOnly(t *testing.T, s *apptest.Server) (restore func()) {
	t.Helper()
	admin, err := sql.Open("pgx", strings.Replace(s.DB.URL, "/"+s.DB.Name+"?", "/postgres?", 1))
	if err != nil {
		t.Fatal(err)
	}
	// Sessions read the setting when they start: ending them applies it.
	set := func(q string) error {
		for _, q := range []string{q, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = '` + s.DB.Name + `' AND pid <> pg_backend_pid()`} {
			if _, err := admin.Exec(q); err != nil {
				return err
			}
		}
		return nil
	}
	var once sync.Once
	restore = func() {
		once.Do(func() {
			if err := set(`ALTER DATABASE ` + s.DB.Name + ` RESET default_transaction_read_only`); err != nil {
				t.Errorf("let writes back: %v", err)
			}
			admin.Close()
		})
	}
	t.Cleanup(restore)
	if err := set(`ALTER DATABASE ` + s.DB.Name + ` SET default_transaction_read_only = on`); err != nil {
		t.Fatalf("make the database read-only: %v", err)
	}
	return restore
}

// storedRow reads a message, retrying while the pool's connections are
// being replaced (the database ended them); bounded.
func storedRow(t *testing.T, s *apptest.Server, mid string) models.Message {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var m models.Message
		err := s.DB.Raw(`SELECT * FROM messages WHERE id = ?`, mid).Scan(&m).Error
		if err == nil && m.ID != "" {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("read message %s: %v", mid, err)
		}
	}
}

// waitLogged waits (bounded) until every one of ids appears in a log
// line containing what.
func waitLogged(t *testing.T, log *lockedBuffer, what string, ids ...string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		missing := 0
		for _, id := range ids {
			found := false
			for _, line := range strings.Split(log.String(), "\n") {
				found = found || (strings.Contains(line, what) && strings.Contains(line, id))
			}
			if !found {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d answers never logged %q:\n%s", missing, what, log.String())
		}
	}
}

// heldAnswers is a provider whose every answer writes first, then waits
// until release is closed to write the rest; started is done once n
// answers have written first.
type heldAnswers struct {
	*apptest.Scripted
	started sync.WaitGroup
	release chan struct{}
}

func newHeldAnswers(n int, first string, rest ...string) *heldAnswers {
	h := &heldAnswers{release: make(chan struct{})}
	h.started.Add(n)
	h.Scripted = &apptest.Scripted{Answer: func(ctx context.Context, _ int, _ tutor.Request, emit func(string) error) error {
		if err := emit(first); err != nil {
			return err
		}
		h.started.Done()
		select {
		case <-h.release:
		case <-ctx.Done():
			return ctx.Err()
		}
		return apptest.EmitAll(emit, rest...)
	}}
	return h
}

// The database turns read-only while two answers stream (one to the
// browser, one through the API), they finish while it refuses writes,
// and it takes writes again later: each client gets "done" only once its
// whole answer is stored, and both rows hold it complete and counted.
// Signing in and asking while it refuses writes answer 503, never 500.
func TestFaultDatabaseReadOnlyMidAnswer(t *testing.T) {
	const answer = "Written before, and stored after."
	p := newHeldAnswers(2, "Written before,", " and stored", " after.")
	log := &lockedBuffer{}
	s := apptest.New(t, apptest.WithProvider(p.Scripted), func(c *tutor.Config) {
		c.Stream.LeaseTTL = time.Second
		c.FirstTokenTimeout, c.AnswerTimeout = time.Minute, time.Minute
		c.Logger = slog.New(slog.NewTextHandler(log, nil))
	})
	u := s.User(t, "ana@example.com", "a-long-password-1", models.PlanPro)
	tok := apptest.APIToken(t, s, u.ID)
	st := signInStudent(t, s.URL, "ana@example.com", "a-long-password-1", nil)
	cid := apptest.NewThread(t, st.web)
	mid, status, err := st.ask(context.Background(), cid, "What is stored?")
	if err != nil || status != http.StatusOK {
		t.Fatalf("ask: %d %v", status, err)
	}
	browser := apptest.OpenSSE(t, st.web, mid, "", "")
	type result struct {
		text string
		last map[string]any
		row  models.Message
	}
	api := make(chan result, 1)
	go func() {
		resp, body := apptest.APICall(t, s, tok, http.MethodPost, "/tutor/stream", map[string]any{"message": "And this?"})
		text, last := apiStreamEvents(t, body)
		r := result{text: text, last: last}
		if id, _ := last["messageId"].(string); resp.StatusCode == http.StatusOK && id != "" {
			r.row = storedRow(t, s, id) // read at once: "done" must mean stored
		}
		api <- r
	}()
	p.started.Wait()
	visitor := webtest.New(t, s.URL)
	loginPage := visitor.Get("/login")

	restore := makeReadOnly(t, s)
	refusedWhileReadOnly(t, s, visitor, loginPage, tok)
	close(p.release) // the answers end while no write can be stored
	var apiMid string
	for deadline := time.Now().Add(30 * time.Second); apiMid == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		s.DB.Raw(`SELECT id FROM messages WHERE user_id = ? AND role = 'assistant' AND id <> ?`, u.ID, mid).Scan(&apiMid)
	}
	waitLogged(t, log, "tutor: store answer", mid, apiMid)
	restore()

	text, end := browser.Rest(t)
	row := storedRow(t, s, mid)
	if end.Name != "done" || text != answer {
		t.Errorf("the browser got %q then %q, want the whole answer then done", text, end.Name)
	}
	if row.Status != models.StatusComplete || row.Content != answer {
		t.Errorf("when the browser got %q the row held %s %q, want complete %q", end.Name, row.Status, row.Content, answer)
	}
	r := <-api
	if r.last["type"] != "done" || r.last["status"] != models.StatusComplete || r.text != answer {
		t.Errorf("the API client got %q then %v, want the whole answer then done complete", r.text, r.last)
	}
	if r.row.Status != models.StatusComplete || r.row.Content != answer {
		t.Errorf("when the API client got %v the row held %s %q, want complete %q", r.last["type"], r.row.Status, r.row.Content, answer)
	}
	if used := questionsUsed(t, s, u.ID); used != 2 {
		t.Errorf("questions used %d, want 2", used)
	}
}

// refusedWhileReadOnly checks that what needs a write while the database
// refuses them is a 503 with Retry-After, not a 500: signing in (the
// form got before), and asking through the API; a read still answers.
func refusedWhileReadOnly(t *testing.T, s *apptest.Server, visitor *webtest.Client, loginPage *webtest.Page, tok string) {
	t.Helper()
	// The first request after the connections were ended may meet one of
	// them; each door is asked twice.
	for range 2 {
		p := visitor.Submit(loginPage, `form[action="/login"]`, map[string]string{"email": "ana@example.com", "password": "a-long-password-1"})
		if p.Status != http.StatusServiceUnavailable {
			t.Errorf("signing in while the database is read-only: %d at %s, want 503", p.Status, p.URL)
		}
		resp, body := apptest.APICall(t, s, tok, http.MethodPost, "/tutor/chat", map[string]any{"message": "Now?"})
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
			!strings.Contains(string(body), "SERVICE_UNAVAILABLE") {
			t.Errorf("asking through the API while the database is read-only: %d %s, want 503 SERVICE_UNAVAILABLE", resp.StatusCode, body)
		}
		if resp, body := apptest.APICall(t, s, tok, http.MethodGet, "/conversations", nil); resp.StatusCode >= 500 &&
			resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("reading through the API while the database is read-only: %d %s", resp.StatusCode, body)
		}
	}
}
