package pgtest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ownerFile, in a test cluster's folder, holds the process id of the
// test binary that started the cluster.
const ownerFile = "owner.pid"

// clusterPattern names the test clusters' folders in the temporary folder.
const clusterPattern = "aulapg*"

// sweepStale stops and removes the test clusters under tmp whose test
// binary is gone. A binary that is killed (go test's -timeout, Ctrl-C
// twice, a signal) never runs its deferred Stop, so its server kept
// running, holding shared memory and a port, and its folder stayed, until
// the machine restarted. A folder without an owner file (a binary still
// starting, or not ours) and one whose owner lives are left alone.
func sweepStale(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, clusterPattern))
	for _, dir := range dirs {
		owner, ok := pidIn(filepath.Join(dir, ownerFile))
		if !ok || alive(owner) {
			continue
		}
		if pm, ok := pidIn(filepath.Join(dir, "data", "postmaster.pid")); ok && alive(pm) {
			// SIGQUIT is PostgreSQL's immediate shutdown: nothing of a
			// throwaway cluster is worth a checkpoint.
			_ = syscall.Kill(pm, syscall.SIGQUIT)
			waitGone(pm, 5*time.Second)
		}
		_ = os.RemoveAll(dir)
	}
}

// pidIn reads the process id on the first line of file.
func pidIn(file string) (int, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	return pid, err == nil && pid > 0
}

// alive says whether process pid exists (EPERM: it does, another user's).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// waitGone waits up to d for process pid to exit.
func waitGone(pid int, d time.Duration) {
	for end := time.Now().Add(d); alive(pid) && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
}
