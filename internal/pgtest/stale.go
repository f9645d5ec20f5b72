package pgtest

import (
	"os"
	"path/filepath"

	"aula/internal/pgcluster"
)

// clusterPattern names the test clusters' folders in the temporary folder.
const clusterPattern = "aulapg*"

// sweepStale stops and removes the test clusters under tmp that no live
// test binary uses. A binary that is killed (go test's -timeout, Ctrl-C
// twice, a signal) never runs its deferred Stop, so its server kept
// running, holding shared memory and a port, and its folder stayed, until
// the machine restarted. The kernel drops the killed binary's lock on its
// cluster, which is how pgcluster tells the cluster is abandoned.
func sweepStale(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, clusterPattern))
	for _, dir := range dirs {
		if pgcluster.StopAbandoned(dir) {
			_ = os.RemoveAll(dir)
		}
	}
}
