package pgcluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startAs runs `sleep 60` under the program name name and returns it.
func startAs(t *testing.T, name string) *exec.Cmd {
	t.Helper()
	src, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep program")
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// zombie waits until pid has died and is not reaped yet.
func zombie(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 500; i++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Skipf("no /proc: %v", err)
		}
		if s := string(b); strings.Contains(s[strings.LastIndexByte(s, ')'):], ") Z") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d never became a zombie", pid)
}

// A pid in postmaster.pid names a postmaster only while a postgres
// process runs under it: not once it is a zombie (kill -9, not reaped),
// nor when the pid belongs to another program.
func TestAliveIsOnlyARunningPostmaster(t *testing.T) {
	if other := startAs(t, "sleep"); alive(other.Process.Pid) {
		t.Error("a running sleep was taken for a postmaster")
	}
	pg := startAs(t, "postgres")
	if !alive(pg.Process.Pid) {
		t.Fatal("a running postgres was not taken for a postmaster")
	}
	if err := pg.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	zombie(t, pg.Process.Pid)
	if alive(pg.Process.Pid) {
		t.Error("a killed, unreaped postgres was taken for a live postmaster")
	}
}
