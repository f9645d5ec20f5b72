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
	// owned is false for a cluster another live process started: Stop
	// leaves it running for that process.
	owned bool
}

// Start initialises the cluster in opts.Dir when it does not exist yet and
// starts it on a free port, listening on 127.0.0.1 and a socket in Dir.
// When a live postmaster already serves that folder, Start connects to it
// instead; the cluster is then this process's own (stopped by Stop) only if
// the process that started it is gone.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	bin, err := findBinaries()
	if err != nil {
		return nil, err
	}
	dir, err := clusterDir(opts)
	if err != nil {
		return nil, err
	}
	if c, ok := findRunning(ctx, dir, bin); ok {
		return c, nil
	}
	c, err := initCluster(ctx, dir, bin, opts.Throwaway)
	if err != nil {
		return nil, err
	}
	if err := c.start(ctx, opts.Throwaway); err != nil {
		// Another process may have started it between our look and our start.
		if running, ok := findRunning(ctx, dir, bin); ok {
			return running, nil
		}
		return nil, err
	}
	if err := c.claim(); err != nil {
		return nil, err
	}
	return c, nil
}

// initCluster creates dir (private to the server user, its parents
// enterable) and initialises a cluster in it unless one is there.
func initCluster(ctx context.Context, dir, bin string, throwaway bool) (*Cluster, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(dir), err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	c := &Cluster{dir: dir, bin: bin, owned: true}
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
// is gone (a live one was found by findRunning and is used, never stopped).
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

// Owned reports whether Stop stops the server: false when another live
// process started it (a server beside an admin command).
func (c *Cluster) Owned() bool { return c.owned }

// Stop shuts the server down (fast mode: open sessions are closed), unless
// another live process started it: that process still needs it.
func (c *Cluster) Stop() error {
	if !c.owned {
		return nil
	}
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
