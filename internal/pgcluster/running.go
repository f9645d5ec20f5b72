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

// Every aula process that uses the cluster in a folder holds a shared
// flock on usersFile for as long as it runs; the last one to leave stops
// the cluster. The kernel drops a process's locks when it ends, kill -9
// included, so no pid is ever trusted: a zombie, a killed process or a
// reused pid holds nothing. Starting, joining and leaving happen one
// process at a time, under an exclusive flock on guardFile.
const (
	usersFile = "aula.users"
	guardFile = "aula.lock"
)

// lockFile opens name in dir and takes how (syscall.LOCK_EX or LOCK_SH)
// on it, waiting while another process holds a conflicting lock.
func lockFile(ctx context.Context, dir, name string, how int) (*os.File, error) {
	// Opened close-on-exec (as Go opens every file): pg_ctl and the
	// postmaster never inherit the lock and keep it past our death.
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open the cluster's lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// join makes this process a user of the cluster in dir (the caller holds
// the guard) and reports whether other live processes use it too.
func join(dir string) (users *os.File, shared bool, err error) {
	users, err = os.OpenFile(filepath.Join(dir, usersFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("open the cluster's users lock: %w", err)
	}
	fd := int(users.Fd())
	// Only a process that took the guard ever asks for the exclusive lock,
	// so a shared one is refused only while others hold it: they use the
	// cluster.
	shared = syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB) != nil
	if err := syscall.Flock(fd, syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		users.Close()
		return nil, false, fmt.Errorf("join the cluster's users: %w", err)
	}
	return users, shared, nil
}

// lastUser reports whether this process is the only one using the
// cluster (the caller holds the guard).
func (c *Cluster) lastUser() bool {
	return syscall.Flock(int(c.users.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// findRunning returns the cluster a live postmaster serves from dir (its
// postmaster.pid names a live postgres process that accepts connections):
// left by a process that ended, or used by others that still run.
func findRunning(ctx context.Context, dir, bin string) (*Cluster, bool) {
	pid, port, ok := readPostmasterPID(filepath.Join(dir, "data", "postmaster.pid"))
	if !ok || !alive(pid) {
		return nil, false
	}
	// A postmaster that is still starting (its starter was killed meanwhile)
	// has written its pid file but may not accept connections yet: wait
	// while it lives.
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
	return c, true
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

// alive reports whether pid runs a postmaster. Where /proc tells, a zombie
// or a pid reused by another program is not one.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) || !procMounted()
	}
	// "PID (COMM) STATE …": the command name may hold spaces and parentheses.
	s := string(b)
	open, shut := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || shut < open || len(s) < shut+3 {
		return true
	}
	comm, state := s[open+1:shut], s[shut+2]
	return state != 'Z' && state != 'X' && (strings.HasPrefix(comm, "postgres") || strings.HasPrefix(comm, "postmaster"))
}

func procMounted() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

func accepts(port int) bool {
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}
