package pgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// A test binary killed before its deferred Stop left its cluster running:
// the next one stops it and removes its folder, and leaves alone the
// clusters of binaries still running and folders without an owner.
func TestSweepStaleStopsOrphanedClusters(t *testing.T) {
	tmp := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	server := exec.Command("sleep", "60") // stands for the orphaned postmaster
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- server.Wait() }()
	t.Cleanup(func() { server.Process.Kill() })

	write := func(dir, file string, pid int) {
		t.Helper()
		path := filepath.Join(tmp, dir, file)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strconv.Itoa(pid)+"\n/tmp/x/data\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("aulapg1", ownerFile, gone.Process.Pid)
	write("aulapg1", "data/postmaster.pid", server.Process.Pid)
	write("aulapg2", ownerFile, os.Getpid())
	write("aulapg2", "data/postmaster.pid", server.Process.Pid)
	write("aulapg3", "data/postmaster.pid", server.Process.Pid)

	sweepStale(tmp)

	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the orphaned cluster's server was not stopped")
	}
	for dir, want := range map[string]bool{"aulapg1": false, "aulapg2": true, "aulapg3": true} {
		if _, err := os.Stat(filepath.Join(tmp, dir)); (err == nil) != want {
			t.Errorf("%s exists %v, want %v", dir, err == nil, want)
		}
	}
}
