package handlers_test

// Helpers of the proof suite (benchmarks, faults, load, attacks): a
// signed-in student usable from many goroutines, and aula's real binary
// run against a test database.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"aula/internal/webtest"
)

// student is a signed-in browser session that many goroutines may use:
// it reports errors instead of failing a test, since only the test's own
// goroutine may do that.
type student struct {
	base string
	http *http.Client
	csrf string
	web  *webtest.Client // the same session, for the test's own goroutine
}

// sharedTransport keeps connections to aula open for many simultaneous students.
func sharedTransport() *http.Transport {
	return &http.Transport{MaxIdleConns: 4000, MaxIdleConnsPerHost: 4000, IdleConnTimeout: time.Minute,
		DialContext: (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext}
}

// signInStudent signs in through the form at base and keeps the session's CSRF token.
func signInStudent(tb testing.TB, base, email, password string, tr http.RoundTripper) *student {
	tb.Helper()
	c := webtest.New(tb, base)
	if tr != nil {
		c.HTTP.Transport = tr
	}
	p := c.Submit(c.Get("/login"), `form[action="/login"]`, map[string]string{"email": email, "password": password})
	if p.Status != http.StatusOK || p.URL.Path != "/learn" {
		tb.Fatalf("sign in as %s at %s: status %d at %s", email, base, p.Status, p.URL)
	}
	tok := c.Get("/chat").CSRF()
	if tok == "" {
		tb.Fatal("no CSRF token on /chat")
	}
	return &student{base: base, http: c.HTTP, csrf: tok, web: c}
}

// do sends a request as the student, HTMX-style when hx is set; the body is read whole.
func (s *student) do(ctx context.Context, method, path string, form url.Values, hx bool) (int, string, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, body)
	if err != nil {
		return 0, "", err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method != http.MethodGet {
		req.Header.Set("X-CSRF-Token", s.csrf)
	}
	if hx {
		req.Header.Set("HX-Request", "true")
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

var streamingBubble = regexp.MustCompile(`id="m-([0-9a-f-]{36})"[^>]*data-role="assistant"`)

// ask posts a question into the thread the way HTMX does and returns the
// id of the answer bubble it got back.
func (s *student) ask(ctx context.Context, cid, question string) (mid string, status int, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/chat/"+cid+"/messages",
		strings.NewReader(url.Values{"content": {question}}.Encode()))
	if err != nil {
		return "", 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-CSRF-Token", s.csrf)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Target", "messages")
	resp, err := s.http.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", resp.StatusCode, nil
	}
	m := streamingBubble.FindSubmatch(b)
	if m == nil {
		return "", resp.StatusCode, fmt.Errorf("no answer bubble in %.300s", b)
	}
	return string(m[1]), resp.StatusCode, nil
}

// stream reads the answer's SSE stream to its final event, calling on for
// every event with the time it was read; it returns the final event.
func (s *student) stream(ctx context.Context, mid string, on func(ev webtest.SSEEvent, at time.Time) bool) (webtest.SSEEvent, error) {
	return s.streamAt(ctx, mid, "", on)
}

// streamAt is stream with a query ("?render=1": the site bubble's stream).
func (s *student) streamAt(ctx context.Context, mid, query string, on func(ev webtest.SSEEvent, at time.Time) bool) (webtest.SSEEvent, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/messages/"+mid+"/stream"+query, nil)
	if err != nil {
		return webtest.SSEEvent{}, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := s.http.Do(req)
	if err != nil {
		return webtest.SSEEvent{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return webtest.SSEEvent{}, fmt.Errorf("stream: status %d", resp.StatusCode)
	}
	r := webtest.NewSSEReader(resp.Body)
	for {
		ev, err := r.Next()
		if err != nil {
			return ev, fmt.Errorf("stream ended before its final event: %w", err)
		}
		if on != nil && !on(ev, time.Now()) {
			return ev, nil
		}
		if ev.Type == "done" || ev.Type == "error" {
			return ev, nil
		}
	}
}

var aulaBin struct {
	once sync.Once
	path string
	err  error
}

// aulaBinary builds cmd/aula once per test binary (the build cache makes
// later runs quick) and returns its path.
func aulaBinary(tb testing.TB) string {
	tb.Helper()
	aulaBin.once.Do(func() {
		// One folder per checkout: tests of other worktrees run at the same
		// time must not swap their binary in under this one's restart.
		wd, _ := os.Getwd()
		dir := filepath.Join(os.TempDir(), "aula-proof-bin", fmt.Sprintf("%x", sha256.Sum256([]byte(wd)))[:12])
		if aulaBin.err = os.MkdirAll(dir, 0o755); aulaBin.err != nil {
			return
		}
		tmp := filepath.Join(dir, fmt.Sprintf("aula.%d", os.Getpid()))
		out, err := exec.Command("go", "build", "-o", tmp, "aula/cmd/aula").CombinedOutput()
		if err != nil {
			aulaBin.err = fmt.Errorf("go build ./cmd/aula: %v\n%s", err, out)
			return
		}
		aulaBin.path = filepath.Join(dir, "aula")
		aulaBin.err = os.Rename(tmp, aulaBin.path)
	})
	if aulaBin.err != nil {
		tb.Fatal(aulaBin.err)
	}
	return aulaBin.path
}

// lockedBuffer collects a process's log safely.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// aulaProc is aula's binary serving on a free port.
type aulaProc struct {
	URL  string
	cmd  *exec.Cmd
	log  *lockedBuffer
	done chan struct{}
	err  error // set when done is closed
}

func freeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startAula runs `aula serve` against databaseURL with env on top of a
// test configuration, and waits until /readyz answers 200. The process is
// killed at the end of the test if it is still running.
func startAula(tb testing.TB, databaseURL string, env ...string) *aulaProc {
	tb.Helper()
	bin := aulaBinary(tb)
	addr := freeAddr(tb)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+databaseURL, "AULA_ADDR="+addr,
		"AULA_SESSION_SECRET=proof-session-secret-0123456789abcdef", "AULA_DATA_DIR="+tb.TempDir(),
		"AULA_LOG_FORMAT=text")
	cmd.Env = append(cmd.Env, env...)
	p := &aulaProc{URL: "http://" + addr, cmd: cmd, log: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	tb.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	// Bounded polling for readiness; nothing is timed.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		select {
		case <-p.done:
			tb.Fatalf("aula exited before it was ready: %v\n%s", p.err, p.log.String())
		default:
		}
		if resp, err := http.Get(p.URL + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("aula not ready at %s:\n%s", p.URL, p.log.String())
		}
	}
}

// signal sends sig to the process.
func (p *aulaProc) signal(tb testing.TB, sig os.Signal) {
	tb.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		tb.Fatal(err)
	}
}

// wait waits (bounded, so a hung process fails the test) for the process to exit.
func (p *aulaProc) wait(tb testing.TB, bound time.Duration) error {
	tb.Helper()
	select {
	case <-p.done:
		return p.err
	case <-time.After(bound):
		_ = p.cmd.Process.Kill()
		<-p.done
		tb.Fatalf("aula did not exit within %s:\n%s", bound, p.log.String())
		return nil
	}
}

// cpu is the CPU time the process has used so far (user and system).
func (p *aulaProc) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses: utime
	// and stime are the 12th and 13th of them, in clock ticks (USER_HZ, 100).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc stat: %q", b)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(u+s) * 10 * time.Millisecond, nil
}

// rss reads the process's resident set now and its peak (VmRSS, VmHWM), in bytes.
func (p *aulaProc) rss() (now, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0, 0, err
		}
		if k == "VmRSS" {
			now = n << 10
		} else {
			peak = n << 10
		}
	}
	if now == 0 || peak == 0 {
		return 0, 0, errors.New("no VmRSS/VmHWM in /proc status")
	}
	return now, peak, nil
}

// percentile is the nearest-rank p-th percentile (0 < p <= 100) of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// ms is d in milliseconds, for b.ReportMetric.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
