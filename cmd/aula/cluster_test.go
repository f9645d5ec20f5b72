package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"aula/internal/pgcluster"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// aulaBinary builds the real binary once for the tests that run it.
func aulaBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "aulabin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "aula")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("build aula: %w\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// project is a folder the unprivileged PostgreSQL user can enter (t.TempDir
// makes 0700 folders).
func project(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// binaryEnv is the environment of an aula process managing its own cluster under dir.
func binaryEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "AULA_") {
			env = append(env, kv)
		}
	}
	return append(env, "AULA_DATA_DIR="+filepath.Join(dir, ".data"), "AULA_ADDR=127.0.0.1:0",
		"AULA_LLM_PROVIDER=offline", "AULA_LOG_FORMAT=text")
}

// cli runs one admin command of the binary in dir and fails the test if it fails.
func cli(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(aulaBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = binaryEnv(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("aula %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

var readyLine = regexp.MustCompile(`msg="aula is ready" url=(http://\S+)`)

// startServer runs `aula serve` in dir, with extra environment variables
// (KEY=VALUE), until the test ends and returns its URL.
func startServer(t testing.TB, dir string, env ...string) (*exec.Cmd, string, *bytes.Buffer) {
	t.Helper()
	return startBinary(t, aulaBinary(t), dir, []string{"serve"}, env...)
}

// startBinary runs bin with args (a serve command) in dir like startServer.
func startBinary(t testing.TB, bin, dir string, args []string, env ...string) (*exec.Cmd, string, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(binaryEnv(dir), env...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	var logBuf bytes.Buffer
	urlC := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logBuf.WriteString(sc.Text() + "\n")
			if m := readyLine.FindStringSubmatch(sc.Text()); m != nil {
				urlC <- m[1]
			}
		}
		close(urlC)
	}()
	url, ok := <-urlC
	if !ok {
		t.Fatalf("aula serve exited before it was ready:\n%s", logBuf.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	return cmd, url, &logBuf
}

func ready(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url + "/readyz")
	if err != nil {
		t.Fatalf("GET /readyz: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func postmasterRunning(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "data", "postmaster.pid"))
	return err == nil
}

func TestAdminCommandBesideServerKeepsItsDatabase(t *testing.T) {
	dir := project(t)
	pgDir := filepath.Join(dir, ".data", "postgres")
	server, url, _ := startServer(t, dir)
	out := cli(t, dir, "user", "create", "--email", "ops@example.com", "--name", "Ops", "--password", "ops-password-1")
	if !strings.Contains(out, "another aula process") {
		t.Errorf("the command did not say it used the server's PostgreSQL:\n%s", out)
	}
	for _, args := range [][]string{{"migrate"}, {"user", "set-plan", "ops@example.com", "PRO"}, {"content", "import", t.TempDir()}} {
		cli(t, dir, args...)
		if code := ready(t, url); code != http.StatusOK {
			t.Fatalf("after `aula %s` beside the server: /readyz %d, want 200", strings.Join(args, " "), code)
		}
	}
	if !postmasterRunning(pgDir) {
		t.Fatal("the server's cluster is not running after the admin commands")
	}
	// The server started the cluster: it stops it when it stops.
	_ = server.Process.Signal(syscall.SIGTERM)
	_ = server.Wait()
	if postmasterRunning(pgDir) {
		t.Error("the cluster still runs after the server that started it stopped")
	}
	// Alone, a command starts the cluster and stops it again.
	cli(t, dir, "user", "list")
	if postmasterRunning(pgDir) {
		t.Error("the cluster still runs after `aula user list` started it alone")
	}
}

func TestClusterOfAKilledServerIsAdopted(t *testing.T) {
	dir := project(t)
	pgDir := filepath.Join(dir, ".data", "postgres")
	server, _, _ := startServer(t, dir)
	_ = server.Process.Kill()
	_ = server.Wait()
	if !postmasterRunning(pgDir) {
		t.Fatal("PostgreSQL stopped with its killed server; the case is not reproduced")
	}
	cli(t, dir, "migrate")
	if postmasterRunning(pgDir) {
		t.Error("the cluster left by the killed server still runs after `aula migrate` adopted it")
	}
}

// A server killed with kill -9 and not yet reaped (a zombie, as under a
// parent that has not waited) holds nothing: a server started at once uses
// the cluster as its own, and an admin command run beside it later leaves
// that cluster running for it.
func TestKilledServerIsReplacedAtOnce(t *testing.T) {
	dir := project(t)
	pgDir := filepath.Join(dir, ".data", "postgres")
	killed, _, _ := startServer(t, dir)
	if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, url, logs := startServer(t, dir)
	if strings.Contains(logs.String(), "another aula process") {
		t.Errorf("the new server took the killed one for a live user of the cluster:\n%s", logs)
	}
	_ = killed.Wait()
	out := cli(t, dir, "user", "list")
	if !strings.Contains(out, "another aula process") || !strings.Contains(out, "left running") {
		t.Errorf("the command did not say it used the running server's PostgreSQL and left it running:\n%s", out)
	}
	if code := ready(t, url); code != http.StatusOK {
		t.Fatalf("after `aula user list` beside the new server: /readyz %d, want 200", code)
	}
	if !postmasterRunning(pgDir) {
		t.Fatal("the cluster is not running after the admin command")
	}
}

// Two servers on one folder: the one that stops leaves the cluster to the
// other, which keeps serving; the last one to stop stops it.
func TestServerStoppingBesideAnotherLeavesTheCluster(t *testing.T) {
	dir := project(t)
	pgDir := filepath.Join(dir, ".data", "postgres")
	first, _, _ := startServer(t, dir)
	second, url, _ := startServer(t, dir)
	_ = first.Process.Signal(syscall.SIGTERM)
	_ = first.Wait()
	if code := ready(t, url); code != http.StatusOK {
		t.Fatalf("after the first server stopped: /readyz of the second %d, want 200", code)
	}
	_ = second.Process.Signal(syscall.SIGTERM)
	_ = second.Wait()
	if postmasterRunning(pgDir) {
		t.Error("the cluster still runs after the last server stopped")
	}
}

func TestRootInAPrivateHome(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the case needs root: PostgreSQL then runs as an unprivileged user")
	}
	home := t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil { // like /root
		t.Fatal(err)
	}
	dir := filepath.Join(home, "aula")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shared := pgcluster.SharedDir(filepath.Join(dir, ".data", "postgres"))
	t.Cleanup(func() { os.RemoveAll(shared) })
	_, url, logs := startServer(t, dir)
	if code := ready(t, url); code != http.StatusOK {
		t.Fatalf("/readyz %d", code)
	}
	if !strings.Contains(logs.String(), shared) {
		t.Errorf("the log does not say where PostgreSQL's files are (%s):\n%s", shared, logs)
	}
	out := cli(t, dir, "user", "list")
	if !strings.Contains(out, "another aula process") {
		t.Errorf("the command beside the server did not find its cluster:\n%s", out)
	}
	if st, _ := os.Stat(home); st.Mode().Perm() != 0o700 {
		t.Errorf("the home's mode changed to %v", st.Mode().Perm())
	}
}
