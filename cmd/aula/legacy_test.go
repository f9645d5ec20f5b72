package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aula/internal/pgtest"
)

// import-legacy: each user gets one default conversation with their
// messages in order (created_at, then line); bad lines are reported with
// their numbers and skipped; a second run adds nothing; new lines append.
func TestImportLegacy(t *testing.T) {
	db := pgtest.New(t)
	env(t, db.URL)
	for _, u := range [][]string{{"ana@example.com", "Ana"}, {"bo@example.com", "Bo"}} {
		if _, stderr, err := runCLI(t, "user", "create", "--email", u[0], "--name", u[1], "--password", "pass-phrase-123"); err != nil {
			t.Fatalf("user create: %v %s", err, stderr)
		}
	}
	lines := []string{
		`{"email":"ana@example.com","role":"user","content":"What is a goroutine, and why would I use one instead of a thread in my programs?","created_at":"2024-03-01T10:00:00Z"}`,
		`{"email":"ana@example.com","role":"assistant","content":"A goroutine is a lightweight thread.","created_at":"2024-03-01T10:00:05Z"}`,
		`{"email":"BO@example.com","role":"user","content":"Hola","created_at":"2024-03-02T09:00:00+01:00"}`,
		`not json at all`,
		`{"email":"nobody@example.com","role":"user","content":"Hi","created_at":"2024-03-01T10:00:00Z"}`,
		`{"email":"ana@example.com","role":"system","content":"You are a bot","created_at":"2024-03-01T10:00:00Z"}`,
		`{"email":"ana@example.com","role":"user","content":"   ","created_at":"2024-03-01T10:00:00Z"}`,
		`{"email":"ana@example.com","role":"user","content":"When?","created_at":"yesterday"}`,
		``,
		// Out of order in the file: sorted by time. Same time as line 11: line order.
		`{"email":"ana@example.com","role":"user","content":"And channels?","created_at":"2024-03-01T10:01:00Z"}`,
		`{"email":"ana@example.com","role":"assistant","content":"Channels connect goroutines.","created_at":"2024-03-01T10:01:00Z"}`,
		`{"email":"ana@example.com","role":"user","content":"Thanks!","created_at":"2024-03-01T10:00:30Z"}`,
		`{"email":"bo@example.com","role":"assistant","content":"¡Hola!","created_at":"2024-03-02T08:00:01Z"}`,
	}
	file := filepath.Join(t.TempDir(), "history.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCLI(t, "import-legacy", file)
	if err != nil {
		t.Fatalf("import-legacy: %v\n%s", err, stderr)
	}
	if !strings.Contains(out, "imported 7 messages for 2 users (0 already imported), 5 bad lines skipped") {
		t.Errorf("summary %q", out)
	}
	for _, want := range []string{"line 4: malformed JSON", "line 5: no user with email nobody@example.com",
		"line 6: role must be user or assistant", "line 7: empty content", "line 8: created_at \"yesterday\""} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the report does not say %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "line 9") || strings.Contains(stderr, "line 1:") {
		t.Errorf("good or blank lines reported:\n%s", stderr)
	}

	type conv struct {
		ID, Title, Mode string
		NextSeq         int
	}
	check := func(email string, wantTitle string, want []string) {
		t.Helper()
		var cs []conv
		db.Raw(`SELECT c.id, c.title, c.mode, c.next_seq FROM conversations c JOIN users u ON u.id = c.user_id
			WHERE u.email = ? AND c.deleted_at IS NULL`, email).Scan(&cs)
		if len(cs) != 1 || cs[0].Mode != "tutor" || cs[0].Title != wantTitle || cs[0].NextSeq != len(want) {
			t.Fatalf("%s's conversations: %+v, want one tutor thread titled %q", email, cs, wantTitle)
		}
		var got []string
		db.Raw(`SELECT role || ': ' || content FROM messages WHERE conversation_id = ? AND status = 'complete' ORDER BY seq`, cs[0].ID).Scan(&got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s's messages:\n%s\nwant:\n%s", email, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		var seqs []int
		db.Raw(`SELECT seq FROM messages WHERE conversation_id = ? ORDER BY seq`, cs[0].ID).Scan(&seqs)
		for i, s := range seqs {
			if s != i {
				t.Errorf("%s: seqs %v, want 0..%d", email, seqs, len(want)-1)
				break
			}
		}
		var active string
		db.Raw(`SELECT coalesce(active_conversation_id::text, '') FROM users WHERE email = ?`, email).Scan(&active)
		if active != cs[0].ID {
			t.Errorf("%s: the imported thread is not the active one", email)
		}
	}
	anaWant := []string{
		"user: What is a goroutine, and why would I use one instead of a thread in my programs?",
		"assistant: A goroutine is a lightweight thread.",
		"user: Thanks!",
		"user: And channels?",
		"assistant: Channels connect goroutines.",
	}
	anaTitle := "What is a goroutine, and why would I use one instead of a t…"
	check("ana@example.com", anaTitle, anaWant)
	check("bo@example.com", "Hola", []string{"user: Hola", "assistant: ¡Hola!"}) // 09:00+01:00 is before 08:00:01Z
	var used int
	db.Raw(`SELECT coalesce(sum(questions), 0) FROM plan_usage`).Scan(&used)
	if used != 0 {
		t.Errorf("imported questions count against the quota: %d", used)
	}

	// Twice: nothing added.
	out, _, err = runCLI(t, "import-legacy", file)
	if err != nil || !strings.Contains(out, "imported 0 messages for 2 users (7 already imported), 5 bad lines skipped") {
		t.Fatalf("second run: %v %q", err, out)
	}
	check("ana@example.com", anaTitle, anaWant)

	// A longer export adds only its new line, at the end of the same thread.
	more := append(lines, `{"email":"ana@example.com","role":"user","content":"One more","created_at":"2024-04-01T00:00:00Z"}`)
	if err := os.WriteFile(file, []byte(strings.Join(more, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, err = runCLI(t, "import-legacy", file); err != nil || !strings.Contains(out, "imported 1 messages") {
		t.Fatalf("third run: %v %q", err, out)
	}
	check("ana@example.com", anaTitle, append(anaWant, "user: One more"))

	// Usage errors.
	if _, _, err := runCLI(t, "import-legacy"); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("no file: %v", err)
	}
	if _, _, err := runCLI(t, "import-legacy", filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
		t.Errorf("a missing file is no error")
	}
}
