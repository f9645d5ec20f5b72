// Package pgcluster starts and stops a private PostgreSQL cluster from the
// server binaries on this machine: the one `aula serve` manages under .data
// when DATABASE_URL is empty, and the throwaway ones tests use.
package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// ErrNoBinaries means initdb/pg_ctl were found neither on PATH nor under /usr/lib/postgresql.
var ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or under /usr/lib/postgresql/*/bin: " +
	"install them with `apt-get install -y postgresql` (Debian package postgresql), or set DATABASE_URL to an existing database")

// Options describe a cluster.
type Options struct {
	// Dir holds the data folder, the log and the unix socket. Keep it short:
	// a socket path must stay under about 100 bytes.
	Dir string
	// Throwaway trades durability for speed (fsync off); for tests.
	Throwaway bool
	// Fallback is where the cluster lives instead of Dir when this process
	// runs as root and the unprivileged server user cannot enter Dir (a
	// project cloned into root's 0700 home). Empty: such a Dir is an error.
	Fallback string
}

// Cluster is a running PostgreSQL server, started by this process or found
// already running for the same folder.
type Cluster struct {
	dir  string
	bin  string
	port int
	cred *syscall.Credential
	// users holds this process's shared lock on the folder's users file
	// (running.go) until Release.
	users *os.File
	// shared: other live aula processes used the cluster when we joined.
	shared bool
}

// Start joins the cluster in opts.Dir, as one of the processes that use it:
// it connects to the postmaster already serving that folder (left by a
// process that ended, or used by others), or else initialises the cluster
// when it does not exist yet and starts it on a free port, listening on
// 127.0.0.1 and a socket in Dir. Release leaves it; the last process to
// leave stops it.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	bin, err := findBinaries()
	if err != nil {
		return nil, err
	}
	dir, err := clusterDir(opts)
	if err != nil {
		return nil, err
	}
	if err := makeDir(dir); err != nil {
		return nil, err
	}
	guard, err := lockFile(ctx, dir, guardFile, syscall.LOCK_EX)
	if err != nil {
		return nil, err
	}
	defer guard.Close()
	users, shared, err := join(dir)
	if err != nil {
		return nil, err
	}
	c, ok := findRunning(ctx, dir, bin)
	if !ok {
		c, err = initCluster(ctx, dir, bin, opts.Throwaway)
		if err == nil {
			err = c.start(ctx, opts.Throwaway)
		}
	}
	if err != nil {
		users.Close()
		return nil, err
	}
	c.users, c.shared = users, shared
	return c, nil
}

// makeDir creates dir, private to the server user, and its parents.
func makeDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(dir), err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}

// initCluster makes dir the server user's (its parents enterable) and
// initialises a cluster in it unless one is there.
func initCluster(ctx context.Context, dir, bin string, throwaway bool) (*Cluster, error) {
	c := &Cluster{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root: run it as an unprivileged user
		// that owns the folder.
		cred, err := unprivileged()
		if err != nil {
			return nil, err
		}
		c.cred = cred
		if err := chownTree(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
		if err := checkTraversable(dir); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		args := []string{"-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-instructions"}
		if throwaway {
			args = append(args, "--no-sync")
		}
		if out, err := c.run(ctx, "initdb", args...); err != nil {
			return nil, fmt.Errorf("initdb: %w: %s", err, out)
		}
	}
	return c, nil
}

// start starts the server on a free port. A postmaster.pid left by a server
// that died is no obstacle: PostgreSQL replaces a lock file whose process
// is gone (a live one was found by findRunning and is used).
func (c *Cluster) start(ctx context.Context, throwaway bool) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	c.port = port
	o := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1", port, c.dir)
	if throwaway {
		o += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
	}
	// -l is required: without it the server inherits our stdout and pg_ctl never returns.
	data, logFile := filepath.Join(c.dir, "data"), filepath.Join(c.dir, "postgres.log")
	if out, err := c.run(ctx, "pg_ctl", "-D", data, "-l", logFile, "-w", "-t", "60", "-o", o, "start"); err != nil {
		log, _ := os.ReadFile(logFile)
		return fmt.Errorf("pg_ctl start: %w: %s %s", err, out, lastLines(string(log), 10))
	}
	return nil
}

// URL returns a connection URL for database name on this cluster.
func (c *Cluster) URL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
}

// Port is the TCP port the server listens on.
func (c *Cluster) Port() int { return c.port }

// Dir is the folder holding the data, the log and the socket (Options.Fallback
// when Options.Dir was out of the server user's reach).
func (c *Cluster) Dir() string { return c.dir }

// Shared reports whether other live aula processes used the cluster when
// this one joined it (an admin command beside a server).
func (c *Cluster) Shared() bool { return c.shared }

// Release ends this process's use of the cluster and stops the server if
// no other live process uses it; stopped says whether it did.
func (c *Cluster) Release(ctx context.Context) (stopped bool, err error) {
	if c.users == nil {
		return false, nil
	}
	guard, err := lockFile(ctx, c.dir, guardFile, syscall.LOCK_EX)
	if err != nil {
		c.users.Close()
		return false, err
	}
	defer guard.Close()
	// Our lock goes before the guard does: the next process to join sees
	// the users as they are.
	defer func() { c.users.Close(); c.users = nil }()
	if !c.lastUser() {
		return false, nil
	}
	return true, c.Stop()
}

// Stop shuts the server down (fast mode: open sessions are closed), whoever
// uses it; tests stop and Resume it to take the database away. A process
// done with the cluster calls Release instead.
func (c *Cluster) Stop() error {
	if out, err := c.run(context.Background(), "pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "fast", "-w", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %w: %s", err, out)
	}
	return nil
}

// Resume starts a stopped cluster again on the same port.
func (c *Cluster) Resume(ctx context.Context) error {
	data := filepath.Join(c.dir, "data")
	o := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300", c.port, c.dir)
	if out, err := c.run(ctx, "pg_ctl", "-D", data, "-l", filepath.Join(c.dir, "postgres.log"), "-w", "-t", "60", "-o", o, "start"); err != nil {
		return fmt.Errorf("pg_ctl start: %w: %s", err, out)
	}
	return nil
}

// Restart stops and starts the server on the same port; tests use it to
// simulate a database that goes away and comes back.
func (c *Cluster) Restart(ctx context.Context) error {
	data := filepath.Join(c.dir, "data")
	o := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300", c.port, c.dir)
	if out, err := c.run(ctx, "pg_ctl", "-D", data, "-l", filepath.Join(c.dir, "postgres.log"), "-m", "fast", "-w", "-o", o, "restart"); err != nil {
		return fmt.Errorf("pg_ctl restart: %w: %s", err, out)
	}
	return nil
}

func (c *Cluster) run(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	// Its own process group: a Ctrl-C in the terminal reaches aula, which
	// stops the server after draining, instead of killing the server first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: c.cred}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func findBinaries() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Newest major version first.
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func unprivileged() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
	}
	return nil, errors.New("running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as")
}

func chownTree(dir string, uid, gid int) error {
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
