package pgcluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// holdEnv names the cluster folder a re-run of this test binary joins and
// then holds until it is killed.
const holdEnv = "AULA_PGCLUSTER_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		if _, err := Start(context.Background(), Options{Dir: dir, Throwaway: true}); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Stdout.WriteString("joined\n")
		select {}
	}
	os.Exit(m.Run())
}

// holder runs this test binary as a process that joins the cluster in dir
// and waits; it returns once the process has joined.
func holder(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	buf := make([]byte, 7)
	if n, err := out.Read(buf); err != nil || string(buf[:n]) != "joined\n" {
		t.Fatalf("the holder did not join: %q %v", buf[:n], err)
	}
	return cmd
}

// A cluster is abandoned once every process that joined it has been
// killed: only then is its server stopped. One nobody joined yet, or one
// a live process holds, is left running.
func TestStopAbandonedStopsOnlyClustersNobodyUses(t *testing.T) {
	if _, err := findBinaries(); err != nil {
		t.Skip(err)
	}
	tmp, err := os.MkdirTemp("", "aulapgc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "pg")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if StopAbandoned(dir) {
		t.Error("a folder nobody has joined yet was taken for abandoned")
	}
	first, second := holder(t, dir), holder(t, dir)
	pid, port, ok := readPostmasterPID(filepath.Join(dir, "data", "postmaster.pid"))
	if !ok {
		t.Fatal("no postmaster.pid")
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGQUIT) })

	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	if StopAbandoned(dir) || !accepts(port) {
		t.Fatal("a cluster a live process uses was stopped")
	}
	if err := second.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = second.Wait()
	if !StopAbandoned(dir) {
		t.Fatal("a cluster whose users were all killed was not taken for abandoned")
	}
	if alive(pid) {
		t.Error("the abandoned cluster's server still runs")
	}
}
