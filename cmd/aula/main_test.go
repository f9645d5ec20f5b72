package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"aula/internal/pgtest"
	"aula/internal/smtptest"
	"aula/models"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// env sets a clean, valid configuration for one test; overrides win.
func env(t *testing.T, databaseURL string, overrides ...string) {
	t.Helper()
	vars := map[string]string{
		"DATABASE_URL":                databaseURL,
		"AULA_ADDR":                   "127.0.0.1:0",
		"AULA_DATA_DIR":               t.TempDir(),
		"AULA_SESSION_SECRET":         "",
		"AULA_LLM_PROVIDER":           "offline",
		"AULA_LLM_MODEL":              "",
		"AULA_LOG_FORMAT":             "text",
		"AULA_SECURE_COOKIES":         "",
		"AULA_OFFLINE_TOKEN_DELAY_MS": "",
		"AULA_FIRST_TOKEN_TIMEOUT":    "",
		"AULA_ANSWER_TIMEOUT":         "",
		"AULA_DRAIN_TIMEOUT":          "",
		"AULA_SMTP_URL":               "",
		"AULA_MAIL_FROM":              "",
		"AULA_BASE_URL":               "",
	}
	for i := 0; i+1 < len(overrides); i += 2 {
		vars[overrides[i]] = overrides[i+1]
	}
	for k, v := range vars {
		t.Setenv(k, v)
	}
}

// closedPort returns a local TCP port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// capture runs f with os.Stdout and os.Stderr redirected and returns what
// it printed to each.
func capture(t *testing.T, f func() error) (stdout, stderr string, err error) {
	t.Helper()
	oldOut, oldErr := os.Stdout, os.Stderr
	rOut, wOut, _ := os.Pipe()
	rErr, wErr, _ := os.Pipe()
	os.Stdout, os.Stderr = wOut, wErr
	outC, errC := make(chan string), make(chan string)
	go func() { b, _ := io.ReadAll(rOut); outC <- string(b) }()
	go func() { b, _ := io.ReadAll(rErr); errC <- string(b) }()
	defer func() {
		os.Stdout, os.Stderr = oldOut, oldErr
	}()
	err = f()
	wOut.Close()
	wErr.Close()
	return <-outC, <-errC, err
}

func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return capture(t, func() error { return run(context.Background(), args) })
}

func TestDatabaseUnreachableIsAClearError(t *testing.T) {
	env(t, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/aula?sslmode=disable", closedPort(t)))
	for _, cmd := range [][]string{{"migrate"}, {"seed"}, {"user", "list"}} {
		_, _, err := runCLI(t, cmd...)
		if err == nil {
			t.Fatalf("%v with the database down: no error", cmd)
		}
		msg := err.Error()
		if !strings.Contains(msg, "connect") || !strings.Contains(msg, "database") || !strings.Contains(msg, "DATABASE_URL") {
			t.Errorf("%v: message %q should say it cannot connect to the database and mention DATABASE_URL", cmd, msg)
		}
	}
}

func TestInvalidConfigurationNamesTheVariable(t *testing.T) {
	down := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/aula?sslmode=disable", closedPort(t))
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{"unknown provider", []string{"AULA_LLM_PROVIDER", "bogus"}, []string{"AULA_LLM_PROVIDER", "bogus", "offline"}},
		{"address without port", []string{"AULA_ADDR", "nonsense"}, []string{"AULA_ADDR", "nonsense", "host:port"}},
		{"short session secret", []string{"AULA_SESSION_SECRET", "too-short"}, []string{"AULA_SESSION_SECRET", "32"}},
		{"database URL of another kind", []string{"DATABASE_URL", "mysql://x"}, []string{"DATABASE_URL", "postgres://"}},
		{"log format", []string{"AULA_LOG_FORMAT", "xml"}, []string{"AULA_LOG_FORMAT"}},
		{"several at once", []string{"AULA_LLM_PROVIDER", "bogus", "AULA_ADDR", "nonsense", "AULA_SESSION_SECRET", "short"},
			[]string{"AULA_LLM_PROVIDER", "AULA_ADDR", "AULA_SESSION_SECRET"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env(t, down, tt.env...)
			for _, cmd := range [][]string{{"migrate"}, {"serve"}} {
				_, _, err := runCLI(t, cmd...)
				if err == nil {
					t.Fatalf("%v: no error", cmd)
				}
				msg := err.Error()
				for _, w := range tt.want {
					if !strings.Contains(msg, w) {
						t.Errorf("%v: message %q does not mention %q", cmd, msg, w)
					}
				}
				if strings.Contains(msg, "connect") {
					t.Errorf("%v: configuration must be checked before connecting: %q", cmd, msg)
				}
			}
		})
	}
}

func TestMigrateIsIdempotent(t *testing.T) {
	db := pgtest.New(t)
	env(t, db.URL)
	for i := 0; i < 2; i++ {
		if _, stderr, err := runCLI(t, "migrate"); err != nil {
			t.Fatalf("migrate #%d: %v\n%s", i+1, err, stderr)
		}
	}
	var n int64
	db.Raw("SELECT count(*) FROM information_schema.tables WHERE table_name IN ('users', 'sessions', 'lessons', 'lesson_chunks', 'plan_usage')").Scan(&n)
	if n != 5 {
		t.Errorf("%d of the foundation tables exist", n)
	}
}

func TestUserCommands(t *testing.T) {
	db := pgtest.New(t)
	env(t, db.URL)

	out, _, err := runCLI(t, "user", "create", "--email", "Ana@Example.com", "--name", "Ana Admin", "--password", "pass-phrase-123", "--plan", "CONTENT_ADMIN")
	if err != nil || !strings.Contains(out, "created ana@example.com (CONTENT_ADMIN") {
		t.Fatalf("user create: %v, printed %q", err, out)
	}
	var plan, hash string
	db.Raw("SELECT plan, password_hash FROM users WHERE email = 'ana@example.com'").Row().Scan(&plan, &hash)
	if plan != "CONTENT_ADMIN" || hash == "" || strings.Contains(hash, "pass-phrase-123") {
		t.Errorf("row: plan %q, hash %q", plan, hash)
	}
	if _, _, err := runCLI(t, "user", "create", "--email", "bo@example.com", "--name", "Bo", "--password", "pass-phrase-456"); err != nil {
		t.Fatalf("user create with the default plan: %v", err)
	}

	failures := []struct {
		name string
		args []string
		want string
	}{
		{"existing email", []string{"user", "create", "--email", "ANA@example.com", "--name", "X", "--password", "pass-phrase-123"}, "exists"},
		{"short password", []string{"user", "create", "--email", "cy@example.com", "--name", "Cy", "--password", "short"}, "10"},
		{"unknown plan on create", []string{"user", "create", "--email", "cy@example.com", "--name", "Cy", "--password", "pass-phrase-1", "--plan", "GOLD"}, "unknown plan"},
		{"set-plan of nobody", []string{"user", "set-plan", "nobody@example.com", "PRO"}, "nobody@example.com"},
		{"set-plan to an unknown plan", []string{"user", "set-plan", "bo@example.com", "GOLD"}, "unknown plan"},
		{"set-plan without a plan", []string{"user", "set-plan", "bo@example.com"}, "usage"},
		{"create with a corporate plan", []string{"user", "create", "--email", "cy@example.com", "--name", "Cy", "--password", "pass-phrase-1", "--plan", "CORPORATE_ADMIN"}, "organization"},
		{"set-plan corporate outside an organization", []string{"user", "set-plan", "bo@example.com", "CORPORATE_USER"}, "organization"},
		{"unknown user command", []string{"user", "delete"}, "delete"},
	}
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			_, _, err := runCLI(t, f.args...)
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(f.want)) {
				t.Errorf("%v: error %v, want one mentioning %q", f.args, err, f.want)
			}
		})
	}
	var users int64
	db.Raw("SELECT count(*) FROM users").Scan(&users)
	if users != 2 {
		t.Errorf("%d users after the failed commands, want 2", users)
	}

	out, _, err = runCLI(t, "user", "set-plan", "BO@example.com", "PRO")
	if err != nil || !strings.Contains(out, "bo@example.com is now on PRO") {
		t.Fatalf("set-plan: %v, printed %q", err, out)
	}
	db.Raw("SELECT plan FROM users WHERE email = 'bo@example.com'").Scan(&plan)
	if plan != "PRO" {
		t.Errorf("plan after set-plan: %q", plan)
	}

	out, _, err = runCLI(t, "user", "list")
	if err != nil {
		t.Fatalf("user list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "EMAIL") {
		t.Fatalf("user list printed %q, want a header and two users", out)
	}
	for _, want := range [][]string{{"ana@example.com", "Ana Admin", "CONTENT_ADMIN"}, {"bo@example.com", "Bo", "PRO"}} {
		if !slices.ContainsFunc(lines, func(l string) bool {
			f := strings.Fields(l)
			return len(f) >= 3 && f[0] == want[0] && strings.Contains(l, want[1]) && slices.Contains(f, want[2])
		}) {
			t.Errorf("user list has no line for %v:\n%s", want, out)
		}
	}
}

func TestSeedTwiceIsIdempotent(t *testing.T) {
	db := pgtest.New(t)
	env(t, db.URL)
	state := func() []string {
		t.Helper()
		var rows []string
		db.Raw(`SELECT 'user ' || id || ' ' || email || ' ' || plan FROM users
			UNION ALL SELECT 'lesson ' || id || ' ' || updated_at FROM lessons
			UNION ALL SELECT 'chunk ' || id FROM lesson_chunks
			UNION ALL SELECT 'suggestion ' || id || ' ' || text FROM lesson_suggestions
			UNION ALL SELECT 'help ' || id || ' ' || updated_at FROM help_articles`).Scan(&rows)
		slices.Sort(rows)
		return rows
	}
	if _, stderr, err := runCLI(t, "seed"); err != nil {
		t.Fatalf("seed: %v\n%s", err, stderr)
	}
	first := state()
	var lessons, users int64
	db.Raw("SELECT count(*) FROM lessons").Scan(&lessons)
	db.Raw("SELECT count(*) FROM users").Scan(&users)
	if lessons < 8 || users < 5 {
		t.Fatalf("after seed: %d lessons, %d users; want ≥ 8 and the 5 demo users", lessons, users)
	}
	for _, plan := range []string{"FREE", "STARTER", "PRO", "CONTENT_ADMIN", "SUPER_ADMIN"} {
		var n int64
		db.Raw("SELECT count(*) FROM users WHERE plan = ?", plan).Scan(&n)
		if n != 1 {
			t.Errorf("%d demo users on %s, want 1", n, plan)
		}
	}
	if _, stderr, err := runCLI(t, "seed"); err != nil {
		t.Fatalf("second seed: %v\n%s", err, stderr)
	}
	if second := state(); !slices.Equal(first, second) {
		t.Errorf("the second seed changed rows: %d rows before, %d after", len(first), len(second))
	}
}

func TestContentImportDir(t *testing.T) {
	db := pgtest.New(t)
	env(t, db.URL)
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lesson := func(id, lang string) string {
		return "---\nkind: lesson\nid: " + id + "\npath: cli-path\npath_title: CLI path\nmodule: m\nmodule_title: M\n" +
			"title: Lesson " + id + "\nposition: 1\nlanguage: " + lang + "\n---\n\nIntro.\n\n## Section\n\nText.\n"
	}
	write("course/good.md", lesson("cli-good", "en"))
	write("course/bad.md", lesson("cli-bad", "de")) // language on line 10

	out, stderr, err := runCLI(t, "content", "import", dir)
	if err == nil {
		t.Fatal("content import with a bad file: no error (the exit status must be non-zero)")
	}
	wantLoc := filepath.Join(dir, "course/bad.md") + ":10:"
	if !strings.Contains(stderr, wantLoc) || !strings.Contains(stderr, `"de"`) {
		t.Errorf("stderr %q does not name %s and the bad value", stderr, wantLoc)
	}
	if !strings.Contains(out, "imported 1 lessons") || !strings.Contains(out, "1 files with errors") {
		t.Errorf("summary %q", out)
	}
	var n int64
	db.Raw("SELECT count(*) FROM lessons WHERE id = 'cli-good'").Scan(&n)
	if n != 1 {
		t.Error("the good lesson was not imported next to the bad file")
	}

	// Fixed, the folder imports cleanly, and the good file is unchanged.
	write("course/bad.md", lesson("cli-bad", "es"))
	out, stderr, err = runCLI(t, "content", "import", dir)
	if err != nil || !strings.Contains(out, "imported 1 lessons") || !strings.Contains(out, "1 unchanged") {
		t.Errorf("second import: %v, %q %q", err, out, stderr)
	}
	if _, _, err := runCLI(t, "content", "import"); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("content import without DIR: %v", err)
	}
	if _, _, err := runCLI(t, "content", "import", filepath.Join(dir, "missing")); err == nil {
		t.Error("content import of a missing folder: no error")
	}
}

func TestUnknownCommand(t *testing.T) {
	env(t, "")
	_, stderr, err := runCLI(t, "frobnicate")
	if err == nil || !strings.Contains(err.Error(), "frobnicate") || !strings.Contains(stderr, "Usage") {
		t.Errorf("unknown command: %v, stderr %q", err, stderr)
	}
}

func TestMailSettings(t *testing.T) {
	down := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/aula?sslmode=disable", closedPort(t))
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{"SMTP of another kind", []string{"AULA_SMTP_URL", "http://mail", "AULA_MAIL_FROM", "a@b.example", "AULA_BASE_URL", "https://a.example"},
			[]string{"AULA_SMTP_URL", "smtp://"}},
		{"sender missing", []string{"AULA_SMTP_URL", "smtp://mail:587", "AULA_BASE_URL", "https://a.example"}, []string{"AULA_MAIL_FROM"}},
		{"base URL missing", []string{"AULA_SMTP_URL", "smtp://mail:587", "AULA_MAIL_FROM", "a@b.example"}, []string{"AULA_BASE_URL"}},
		{"base URL not absolute", []string{"AULA_BASE_URL", "aula.example"}, []string{"AULA_BASE_URL", "https://"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env(t, down, tt.env...)
			_, _, err := runCLI(t, "migrate")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestMailTestCommand(t *testing.T) {
	srv := smtptest.StartPlain(t)
	env(t, "postgres://unused@127.0.0.1:1/x", "AULA_SMTP_URL", srv.URL, "AULA_MAIL_FROM", "aula@school.example",
		"AULA_BASE_URL", "https://aula.school.example")
	out, _, err := runCLI(t, "mail", "test", "ops@school.example", "--lang", "es")
	if err != nil || !strings.Contains(out, "ops@school.example") {
		t.Fatalf("mail test: %v, printed %q", err, out)
	}
	if got := srv.Next(t); got.To != "ops@school.example" || got.Subject != "Prueba de correo de aula" {
		t.Fatalf("received %q for %q", got.Subject, got.To)
	}
	env(t, "postgres://unused@127.0.0.1:1/x")
	if _, _, err := runCLI(t, "mail", "test", "ops@school.example"); err == nil || !strings.Contains(err.Error(), "AULA_SMTP_URL") {
		t.Fatalf("without SMTP: %v", err)
	}
}

func TestSetPasswordReadsStandardInput(t *testing.T) {
	db := pgtest.New(t)
	env(t, db.URL)
	if _, _, err := runCLI(t, "user", "create", "--email", "ana@example.com", "--name", "Ana", "--password", "old password 1"); err != nil {
		t.Fatal(err)
	}
	db.Exec(`INSERT INTO sessions (id, user_id, data, expires_at) SELECT 's1', id, '', now() + interval '1 day' FROM users`)
	withStdin(t, "a brand new password\n")
	out, _, err := runCLI(t, "user", "set-password", "ANA@example.com")
	if err != nil || !strings.Contains(out, "ana@example.com") {
		t.Fatalf("set-password: %v, printed %q", err, out)
	}
	var sessions int64
	db.Raw(`SELECT count(*) FROM sessions`).Scan(&sessions)
	if sessions != 0 {
		t.Errorf("%d sessions survive set-password", sessions)
	}
	if _, err := models.NewUsers(db.DB).Authenticate(context.Background(), "ana@example.com", "a brand new password"); err != nil {
		t.Errorf("the new password does not sign in: %v", err)
	}
	withStdin(t, "short\n")
	if _, _, err := runCLI(t, "user", "set-password", "ana@example.com"); err == nil {
		t.Error("a short password was accepted")
	}
	if _, _, err := runCLI(t, "user", "set-password", "ana@example.com", "inline-password"); err == nil || !strings.Contains(err.Error(), "standard input") {
		t.Errorf("a password as an argument: %v", err)
	}
}

// withStdin makes os.Stdin read text for the rest of the test.
func withStdin(t *testing.T, text string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString(text)
	w.Close()
	old := os.Stdin
	os.Stdin = r
	t.Cleanup(func() { os.Stdin = old; r.Close() })
}
