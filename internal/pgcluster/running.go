package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ownerFile names the process that started the cluster: "PID STARTTIME".
// The start time tells that process from a later one given the same PID.
const ownerFile = "aula.pid"

// findRunning returns the cluster a live postmaster serves from dir (its
// postmaster.pid names a live process that accepts connections), so that an
// admin command beside `aula serve` uses the server's cluster instead of
// stopping it. The cluster is ours to stop only when its starter is gone.
func findRunning(ctx context.Context, dir, bin string) (*Cluster, bool) {
	pid, port, ok := readPostmasterPID(filepath.Join(dir, "data", "postmaster.pid"))
	if !ok || !alive(pid) {
		return nil, false
	}
	// A postmaster that is still starting has written its pid file but may
	// not accept connections yet: wait while it lives.
	for !accepts(port) {
		if !alive(pid) {
			return nil, false
		}
		select {
		case <-ctx.Done():
			return nil, false
		case <-time.After(100 * time.Millisecond):
		}
	}
	c := &Cluster{dir: dir, bin: bin, port: port}
	if os.Geteuid() == 0 {
		if cred, err := unprivileged(); err == nil {
			c.cred = cred
		}
	}
	if starterAlive(dir) {
		return c, true
	}
	// Left running by a process that was killed: adopt it, so that it is
	// stopped when we are done, as if we had started it.
	c.owned = true
	_ = c.claim()
	return c, true
}

// claim records this process as the cluster's starter.
func (c *Cluster) claim() error {
	me := os.Getpid()
	line := fmt.Sprintf("%d %s\n", me, processStart(me))
	if err := os.WriteFile(filepath.Join(c.dir, ownerFile), []byte(line), 0o644); err != nil {
		return fmt.Errorf("record the cluster's owner: %w", err)
	}
	return nil
}

// starterAlive reports whether the process that started the cluster in dir
// is another process that still runs.
func starterAlive(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid == os.Getpid() || !alive(pid) {
		return false
	}
	// The same PID given to a later process is not the starter.
	return len(f) < 2 || f[1] == processStart(pid)
}

// readPostmasterPID reads the postmaster's PID (line 1) and port (line 4).
func readPostmasterPID(path string) (pid, port int, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(strings.TrimSpace(lines[0]))
	port, err2 := strconv.Atoi(strings.TrimSpace(lines[3]))
	return pid, port, err1 == nil && err2 == nil && pid > 0 && port > 0
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func accepts(port int) bool {
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// processStart is the start time of pid in clock ticks since boot (field
// 22 of /proc/PID/stat), or "" where /proc does not say.
func processStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces; fields after it follow ")".
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19]
}
