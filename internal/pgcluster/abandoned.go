package pgcluster

import (
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// StopAbandoned stops the server of the cluster in dir when every process
// that used it has ended without leaving (killed: go test's -timeout, a
// signal), and reports whether the cluster in dir is abandoned, so that
// its folder may go. It relies on the users lock (running.go), not on a
// pid: a cluster nobody has joined yet (its starter is still on its way)
// or one a live process holds is not abandoned.
func StopAbandoned(dir string) bool {
	guard, ok := tryLock(dir, guardFile)
	if !ok {
		return false // someone is starting, joining or leaving it
	}
	defer guard.Close()
	users, ok := tryLock(dir, usersFile)
	if !ok {
		return false
	}
	users.Close()
	if pid, _, ok := readPostmasterPID(filepath.Join(dir, "data", "postmaster.pid")); ok && alive(pid) {
		// SIGQUIT is PostgreSQL's immediate shutdown: nothing of an
		// abandoned cluster is worth a checkpoint.
		_ = syscall.Kill(pid, syscall.SIGQUIT)
		for end := time.Now().Add(5 * time.Second); alive(pid) && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return true
}

// tryLock takes an exclusive lock on the existing file name in dir
// without waiting; it fails when the file is missing or locked.
func tryLock(dir, name string) (*os.File, bool) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR, 0)
	if err != nil {
		return nil, false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return f, true
}
