package pgtest_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
)

func TestStart(t *testing.T) {
	cases := []struct {
		major     int
		version   string
		opts      []pgtest.Option
		checksums string
	}{
		{15, "15.", nil, "off"},
		{17, "17.10", nil, "off"},
		{17, "17.10", []pgtest.Option{pgtest.WithDataChecksums(true)}, "on"},
		{18, "18.4", nil, "on"}, // initdb turns checksums on by default from 18
		{18, "18.4", []pgtest.Option{pgtest.WithDataChecksums(false)}, "off"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("pg%d-checksums-%s", tc.major, tc.checksums), func(t *testing.T) {
			t.Parallel()
			c := pgtest.Start(t, tc.major, tc.opts...)
			if v := c.SQL(t, "select version()"); !strings.Contains(v, "PostgreSQL "+tc.version) {
				t.Errorf("version() = %q, want it to contain %q", v, "PostgreSQL "+tc.version)
			}
			if got := c.SQL(t, "show data_checksums"); got != tc.checksums {
				t.Errorf("data_checksums = %q, want %q", got, tc.checksums)
			}
			if got := c.SQL(t, "show listen_addresses"); got != "127.0.0.1" {
				t.Errorf("listen_addresses = %q, want 127.0.0.1", got)
			}
			if got := c.SQL(t, "show unix_socket_directories"); got != c.Dir {
				t.Errorf("unix_socket_directories = %q, want %q", got, c.Dir)
			}
			if _, err := os.Stat(fmt.Sprintf("%s/.s.PGSQL.%d", c.Dir, c.Port)); err != nil {
				t.Errorf("no Unix-domain socket in the cluster folder: %v", err)
			}
			if got := c.SQL(t, "select current_user"); got != "postgres" {
				t.Errorf("current_user = %q, want postgres", got)
			}

			c.Stop(t)
			assertPortFree(t, c.Port)
			c.Stop(t) // a second Stop is a no-op
		})
	}
}

// TestStartOptionalVersions starts the majors that only
// scripts/install-deps --all-versions installs (13, 14, 16 and the npm build
// of 15). They are not part of what CI installs, so missing binaries skip
// these cases even with CI=true.
func TestStartOptionalVersions(t *testing.T) {
	cases := []struct {
		major   int
		version string
		opts    []pgtest.Option
	}{
		{13, "13.23", nil},
		{14, "14.23", nil},
		{15, "15.18", []pgtest.Option{pgtest.WithNpmBuild()}},
		{16, "16.14", nil},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("pg%d", tc.major), func(t *testing.T) {
			t.Parallel()
			if _, err := os.Stat(pgtest.NpmBinDir(tc.major) + "/postgres"); err != nil {
				t.Skipf("PostgreSQL %d from npm is not installed (scripts/install-deps --all-versions installs it)", tc.major)
			}
			c := pgtest.Start(t, tc.major, tc.opts...)
			if v := c.SQL(t, "select version()"); !strings.Contains(v, "PostgreSQL "+tc.version) {
				t.Errorf("version() = %q, want it to contain %q", v, "PostgreSQL "+tc.version)
			}
			if strings.Contains(c.SQL(t, "select version()"), "Debian") {
				t.Errorf("PostgreSQL %d runs Debian's build, want the npm package's", tc.major)
			}
		})
	}
}

func TestSettingsAndSQL(t *testing.T) {
	c := pgtest.Start(t, 17, pgtest.WithSettings(map[string]string{
		"work_mem":         "7MB",
		"application_name": "it's pgtest",
	}), pgtest.WithSetting("shared_preload_libraries", "pg_stat_statements"))
	if got := c.SQL(t, "show work_mem"); got != "7MB" {
		t.Errorf("work_mem = %q, want 7MB", got)
	}
	if got := c.SQL(t, "show shared_preload_libraries"); got != "pg_stat_statements" {
		t.Errorf("shared_preload_libraries = %q", got)
	}
	c.SQL(t, "create extension pg_stat_statements")
	c.SQL(t, "create table t(i int); insert into t select generate_series(1, 42)")
	if got := c.SQL(t, "select count(*) from t"); got != "42" {
		t.Errorf("count = %q, want 42", got)
	}
	if want := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.Port); c.DSN() != want {
		t.Errorf("DSN() = %q, want %q", c.DSN(), want)
	}
}

// TestStartStopCmd drives the cluster through the shell command lines that
// study files would use.
func TestStartStopCmd(t *testing.T) {
	c := pgtest.Start(t, 18)
	c.SQL(t, "create table kept(i int); insert into kept values (1), (2)")

	sh(t, c.StopCmd())
	assertPortFree(t, c.Port)
	if out, err := exec.Command("sh", "-c", c.StopCmd()).CombinedOutput(); err == nil {
		t.Errorf("StopCmd on a stopped cluster succeeded; documented to fail:\n%s", out)
	}

	sh(t, c.StartCmd())
	if got := c.SQL(t, "select sum(i) from kept"); got != "3" {
		t.Errorf("sum = %q after restart, want 3", got)
	}
	if os.Geteuid() == 0 && !strings.HasPrefix(c.StartCmd(), "runuser -u postgres -- ") {
		t.Errorf("StartCmd() = %q, want it to run as postgres", c.StartCmd())
	}
	// Cleanup stops the server started by StartCmd.
}

func TestBinMissing(t *testing.T) {
	t.Setenv("PGSTUDY_CACHE", t.TempDir())
	t.Setenv("CI", "false")
	var skipped bool
	ft := &fakeTB{TB: t, skip: func() { skipped = true }}
	func() {
		defer func() { recover() }()
		pgtest.Bin(ft, 17)
	}()
	if !skipped || !strings.Contains(ft.msg, "scripts/install-deps") {
		t.Errorf("Bin with no binaries: skipped=%v msg=%q; want a skip naming scripts/install-deps", skipped, ft.msg)
	}
}

// fakeTB records a Skip instead of skipping the real test.
type fakeTB struct {
	testing.TB
	skip func()
	msg  string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skip(args ...any) {
	f.msg = fmt.Sprint(args...)
	f.skip()
	panic("skip")
}
func (f *fakeTB) Skipf(format string, args ...any) { f.Skip(fmt.Sprintf(format, args...)) }
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("fatal")
}

func sh(t *testing.T, cmd string) {
	t.Helper()
	if out, err := exec.Command("sh", "-c", cmd).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
}

func assertPortFree(t *testing.T, port int) {
	t.Helper()
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("port %d still in use after stop: %v", port, err)
	}
	l.Close()
}
