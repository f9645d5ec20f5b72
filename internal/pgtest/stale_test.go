package pgtest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A test binary killed before its deferred Stop left its cluster behind:
// the next one removes the folder of a cluster nobody holds, and leaves
// alone the clusters of binaries still running and folders nobody has
// joined yet. (pgcluster's tests stop a real abandoned server.)
func TestSweepStaleRemovesOnlyAbandonedClusters(t *testing.T) {
	tmp := t.TempDir()
	touch := func(dir, file string) *os.File {
		t.Helper()
		path := filepath.Join(tmp, dir, file)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, dir := range []string{"aulapg1", "aulapg2"} {
		touch(dir, "aula.lock")
		touch(dir, "aula.users")
	}
	held := touch("aulapg2", "aula.users")
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	touch("aulapg3", "aula.lock")

	sweepStale(tmp)

	for dir, want := range map[string]bool{"aulapg1": false, "aulapg2": true, "aulapg3": true} {
		if _, err := os.Stat(filepath.Join(tmp, dir)); (err == nil) != want {
			t.Errorf("%s exists %v, want %v", dir, err == nil, want)
		}
	}
}
