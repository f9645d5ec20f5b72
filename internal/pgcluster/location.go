package pgcluster

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// SharedDir is where the cluster for dir lives when dir is out of reach of
// the unprivileged server user: a folder of its own under /var/lib/aula,
// named after dir so that every command run from that project finds it.
func SharedDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join("/var/lib/aula", "pg-"+hex.EncodeToString(sum[:6]))
}

// clusterDir decides where the cluster lives: opts.Dir, or opts.Fallback
// when we run as root and the server user cannot enter opts.Dir.
func clusterDir(opts Options) (string, error) {
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return "", err
	}
	if os.Geteuid() != 0 || opts.Fallback == "" {
		return dir, nil
	}
	if blocked := closedParent(dir); blocked == "" {
		return dir, nil
	}
	return filepath.Abs(opts.Fallback)
}

// closedParent returns the first existing parent of dir that others cannot
// enter (no x bit for others, like a 0700 home), or "".
func closedParent(dir string) string {
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o001 == 0 {
			return p
		}
		if p == filepath.Dir(p) {
			return ""
		}
	}
}

// checkTraversable reports a folder the unprivileged user cannot reach.
func checkTraversable(dir string) error {
	p := closedParent(dir)
	if p == "" {
		return nil
	}
	st, err := os.Stat(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return fmt.Errorf("PostgreSQL runs as an unprivileged user who cannot enter %s (mode %v): "+
		"run `chmod o+x %s`, or set DATABASE_URL to an existing database", p, st.Mode().Perm(), p)
}
