// Package multitest runs several aula processes (the real binary) on one
// throwaway PostgreSQL cluster and checks that they behave as one site.
package multitest

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"aula/internal/pgcluster"
)

// sessionSecret is shared by every process: a cookie signed by one must verify on all.
const sessionSecret = "multitest-session-secret-0123456789abcdef"

var (
	binary  string
	cluster *pgcluster.Cluster
	admin   *sql.DB
	tmpDir  string
	dbN     atomic.Int64
)

func TestMain(m *testing.M) {
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "multitest:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func setup(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "aulamt")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		return 0, err
	}
	tmpDir = dir
	// The binary is built once from this module; every process is a real `aula serve`.
	binary = filepath.Join(dir, "aula")
	build := exec.Command("go", "build", "-o", binary, "./cmd/aula")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("build aula: %w\n%s", err, out)
	}
	ctx := context.Background()
	cluster, err = pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(dir, "pg"), Throwaway: true})
	if err != nil {
		return 0, err
	}
	defer cluster.Stop()
	admin, err = sql.Open("pgx", cluster.URL("postgres"))
	if err != nil {
		return 0, err
	}
	defer admin.Close()
	return m.Run(), nil
}

// freshDB creates an empty database (no schema: the processes migrate it).
func freshDB(t testing.TB) (string, *sql.DB) {
	t.Helper()
	name := fmt.Sprintf("mt%d_%d", os.Getpid(), dbN.Add(1))
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", cluster.URL(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		_, _ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
	})
	return cluster.URL(name), db
}

// proc is one running aula process.
type proc struct {
	name string
	cmd  *exec.Cmd
	base string // http://127.0.0.1:port
	log  *syncBuffer
	done chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// env is what every process gets; the settings that must match across
// instances (DATABASE_URL, AULA_SESSION_SECRET, provider credentials) are
// the same for all.
func env(dbURL string, extra ...string) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + tmpDir,
		"DATABASE_URL=" + dbURL,
		"AULA_ADDR=127.0.0.1:0",
		"AULA_SESSION_SECRET=" + sessionSecret,
		"AULA_DATA_DIR=" + filepath.Join(tmpDir, "data"),
		"AULA_LOG_FORMAT=json",
		"AULA_OFFLINE_TOKEN_DELAY_MS=10",
		"AULA_LEASE_TTL=2s",
		"AULA_DRAIN_TIMEOUT=2s",
	}, extra...)
}

// command is an aula command with the given environment.
func command(environ []string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Env = environ
	return cmd
}

// run runs an aula command to its end.
func run(t testing.TB, environ []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = environ
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("aula %v: %v\n%s", args, err, out)
	}
	return string(out)
}

var readyURL = regexp.MustCompile(`"msg":"aula is ready","url":"(http://[^"]+)"`)

// start launches the processes at once and waits until each listens.
func start(t testing.TB, environ []string, names ...string) []*proc {
	t.Helper()
	procs := make([]*proc, len(names))
	for i, name := range names {
		p := &proc{name: name, log: &syncBuffer{}, done: make(chan struct{})}
		p.cmd = exec.Command(binary, "serve")
		p.cmd.Env = append(append([]string{}, environ...), "AULA_INSTANCE_ID=aula-"+name, "AULA_TRUSTED_PROXIES=127.0.0.1/32")
		p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			_ = p.cmd.Wait()
			close(p.done)
		}()
		procs[i] = p
		t.Cleanup(func() {
			p.stop()
			if t.Failed() {
				t.Logf("log of %s:\n%s", p.name, lastLines(p.log.String(), 40))
			}
		})
	}
	for _, p := range procs {
		deadline := time.After(60 * time.Second)
		for p.base == "" {
			if m := readyURL.FindStringSubmatch(p.log.String()); m != nil {
				p.base = m[1]
				break
			}
			select {
			case <-p.done:
				t.Fatalf("%s exited before it was ready:\n%s", p.name, p.log.String())
			case <-deadline:
				t.Fatalf("%s not ready:\n%s", p.name, p.log.String())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return procs
}

// stop ends a process with SIGTERM (its drain) and waits for it.
func (p *proc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// kill ends a process with SIGKILL: no drain, no cleanup.
func (p *proc) kill(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// browser is one student's cookies and CSRF token, used against any process.
type browser struct {
	mu      sync.Mutex
	cookies map[string]*http.Cookie
	csrf    string
	hc      *http.Client
	counter *countingRequests // optional: the load scenario's request count
	// addr, when set, is the client address the browser claims through the
	// processes' trusted proxy (the loopback): the load scenario's
	// students come from many addresses, as behind a real load balancer.
	addr string
}

// countingRequests counts the HTTP requests of many browsers.
type countingRequests struct{ n atomic.Int64 }

func newBrowser() *browser {
	return &browser{cookies: map[string]*http.Cookie{}, hc: &http.Client{
		Timeout:       60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

var (
	csrfMeta = regexp.MustCompile(`name="csrf-token" content="([^"]+)"`)
	streamRe = regexp.MustCompile(`/messages/([0-9a-f-]{36})/stream`)
)

// do sends a request with the browser's cookies and keeps the ones set.
func (b *browser) do(ctx context.Context, method, u string, form url.Values, hdr map[string]string) (*http.Response, error) {
	var body io.Reader
	if form != nil {
		b.mu.Lock()
		form.Set("_csrf", b.csrf)
		b.mu.Unlock()
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if b.addr != "" {
		req.Header.Set("X-Forwarded-For", b.addr)
	}
	b.mu.Lock()
	for _, c := range b.cookies {
		req.AddCookie(c)
	}
	b.mu.Unlock()
	if b.counter != nil {
		b.counter.n.Add(1)
	}
	res, err := b.hc.Do(req)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	for _, c := range res.Cookies() {
		b.cookies[c.Name] = c
	}
	b.mu.Unlock()
	return res, nil
}

// page GETs a page, remembering its CSRF token.
func (b *browser) page(t testing.TB, u string) (int, string) {
	t.Helper()
	res, err := b.do(context.Background(), "GET", u, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	b.keepCSRF(body)
	return res.StatusCode, string(body)
}

// keepCSRF remembers the CSRF token of a page's body and reports whether it had one.
func (b *browser) keepCSRF(body []byte) bool {
	m := csrfMeta.FindSubmatch(body)
	if m == nil {
		return false
	}
	b.mu.Lock()
	b.csrf = html.UnescapeString(string(m[1]))
	b.mu.Unlock()
	return true
}

// post sends a form and returns the status, the Location and the body.
func (b *browser) post(t testing.TB, u string, form url.Values, hdr map[string]string) (int, string, string) {
	t.Helper()
	res, err := b.do(context.Background(), "POST", u, form, hdr)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), string(body)
}

// login signs in through p.
func (b *browser) login(t testing.TB, base, email, password string) int {
	t.Helper()
	b.page(t, base+"/login")
	code, _, _ := b.post(t, base+"/login", url.Values{"email": {email}, "password": {password}}, nil)
	if code == http.StatusSeeOther || code == http.StatusOK {
		b.page(t, base+"/learn") // the session's new CSRF token
	}
	return code
}

// signup creates a FREE account through p and signs in.
func (b *browser) signup(t testing.TB, base, name, email, password string) {
	t.Helper()
	b.page(t, base+"/signup")
	code, _, body := b.post(t, base+"/signup", url.Values{"name": {name}, "email": {email}, "password": {password}}, nil)
	if code != http.StatusSeeOther {
		t.Fatalf("signup: %d %s", code, lastLines(body, 5))
	}
	b.page(t, base+"/learn")
}

// newThread creates a tutor conversation through base and returns its id.
func (b *browser) newThread(t testing.TB, base string) string {
	t.Helper()
	code, loc, body := b.post(t, base+"/chat", url.Values{"mode": {"tutor"}}, nil)
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/chat/") {
		t.Fatalf("new thread: %d %q %s", code, loc, lastLines(body, 5))
	}
	return strings.TrimPrefix(loc, "/chat/")
}

// ask posts a question as HTMX does; it returns the status and the answer's id.
func (b *browser) ask(t testing.TB, base, cid, question string) (int, string) {
	t.Helper()
	b.mu.Lock()
	tok := b.csrf
	b.mu.Unlock()
	code, _, body := b.post(t, base+"/chat/"+cid+"/messages", url.Values{"content": {question}},
		map[string]string{"HX-Request": "true", "X-CSRF-Token": tok})
	if code != http.StatusOK {
		return code, ""
	}
	m := streamRe.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no stream in the ask response: %s", lastLines(body, 10))
	}
	return code, m[1]
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name, id, data string
}

// stream opens an answer's SSE stream (from Last-Event-ID when lastID is
// not "") and calls on for each event until it returns false or the
// stream ends.
func (b *browser) stream(ctx context.Context, base, mid, lastID string, on func(sseEvent) bool) error {
	return b.streamAt(ctx, base+"/messages/"+mid+"/stream", lastID, on)
}

// streamAt is stream, reading the event stream at u.
func (b *browser) streamAt(ctx context.Context, u, lastID string, on func(sseEvent) bool) error {
	res, err := b.openStream(ctx, u, lastID)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	return readEvents(newEventScanner(res), on)
}

// openStream opens the event stream at u (from lastID when set).
func (b *browser) openStream(ctx context.Context, u, lastID string) (*http.Response, error) {
	hdr := map[string]string{"Accept": "text/event-stream"}
	if lastID != "" {
		hdr["Last-Event-ID"] = lastID
	}
	res, err := b.do(ctx, "GET", u, nil, hdr)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return nil, fmt.Errorf("stream: status %d", res.StatusCode)
	}
	return res, nil
}

// newEventScanner reads a stream's lines.
func newEventScanner(res *http.Response) *bufio.Scanner {
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return sc
}

// readEvents hands each event to on until it returns false or the stream ends.
func readEvents(sc *bufio.Scanner, on func(sseEvent) bool) error {
	var ev sseEvent
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.name != "" {
				ev.data = strings.Join(data, "\n")
				if !on(ev) {
					return nil
				}
			}
			ev, data = sseEvent{}, nil
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		}
	}
	return sc.Err()
}

// chunkText is the answer text a chunk event carries.
func chunkText(ev sseEvent) string { return html.UnescapeString(ev.data) }

// waitFor polls the database until cond holds, up to d.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
