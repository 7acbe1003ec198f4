package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
	"github.com/spf13/cobra"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestMain lets a test run pgstudy as a process of its own (to kill it):
// the test binary runs main when PGSTUDY_RUN_MAIN is set.
func TestMain(m *testing.M) {
	if os.Getenv("PGSTUDY_RUN_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	if gencaptureBin != "" {
		os.RemoveAll(filepath.Dir(gencaptureBin)) // built by a test (compact_test.go)
	}
	os.Exit(code)
}

// pgstudy is a command that runs pgstudy in a process of its own.
func pgstudy(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "PGSTUDY_RUN_MAIN=1")
	return cmd
}

// runInProcess runs pgstudy and returns its exit code and outputs.
func runInProcess(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestEveryCommandHasHelpWithExamples(t *testing.T) {
	root := newRootCmd(&stopper{})
	root.SetOut(io.Discard)
	addCompletion(root)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		// cobra's completion scripts (bash, zsh, ...) explain their use in
		// their own words; completion itself has examples.
		if c.Name() != "help" && c.Parent() != nil && c.Parent().Name() != "completion" && c.Example == "" {
			t.Errorf("%s has no examples in its --help", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	code, out, _ := runInProcess("--version")
	if code != 0 || !strings.HasPrefix(out, "pgstudy version ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
	code, out, _ = runInProcess("completion", "bash")
	if code != 0 || !strings.Contains(out, "bash completion") {
		t.Errorf("completion bash: exit %d", code)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("configs:\n  - name: a\n    dsn: postgres://x@localhost/db\n    colour: blue\ntests:\n  - name: t\n    sql: select 1\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"collect"}, exitUsage, "collect takes one study file"},
		{[]string{"collect", "--bogus", "x"}, exitUsage, "unknown flag: --bogus"},
		{[]string{"collect", filepath.Join(dir, "missing.yaml")}, exitError, "no such file"},
		{[]string{"collect", bad, "--dry-run"}, exitUsage, bad + `:4:5: unknown key "colour"`},
		{[]string{"init", bad}, exitUsage, "exists; use --force"},
		{[]string{"init", "-", "--template", "bogus"}, exitUsage, `--template "bogus": expected one of cold, throughput, sweep`},
	} {
		code, _, stderr := runInProcess(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.err) {
			t.Errorf("pgstudy %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.err)
		}
	}
}

// TestInitDryRun checks that the example study is valid and that its
// schedule is the seed study's: 60 runs, configurations rotating.
func TestInitDryRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "study.yaml")
	if code, _, stderr := runInProcess("init", path); code != 0 {
		t.Fatalf("init: %d %s", code, stderr)
	}
	code, out, stderr := runInProcess("collect", path, "--dry-run")
	if code != 0 {
		t.Fatalf("dry-run: %d %s", code, stderr)
	}
	golden(t, "testdata/init-dry-run.stdout", out)
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to accept):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// quickStudy is a study of short statements on one server under two names.
func quickStudy(t *testing.T, c *pgtest.Cluster, rounds int, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "study.yaml")
	text := fmt.Sprintf(`
configs:
  - name: a
    dsn: %[1]s
  - name: b
    dsn: %[1]s
tests:
  - name: sleep
    sql: select pg_sleep(0.02)
protocol:
  rounds: %[2]d
disk:
  sample: 10ms
%[3]s`, c.DSN(), rounds, extra)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkCapture asserts that the capture holds runs 1..complete exactly
// once each (any runs when complete is 0), diskstats before and after
// every run that went well, and no row of a run that is not there.
func checkCapture(t *testing.T, dir string, complete int) []int64 {
	t.Helper()
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatalf("open capture after a kill: %v", err)
	}
	runs, err := samples.Read[samples.Run](r)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]int{}
	var ids []int64
	for _, run := range runs {
		seen[run.RunID]++
		ids = append(ids, run.RunID)
		if seen[run.RunID] > 1 {
			t.Errorf("run %d is in the capture twice", run.RunID)
		}
	}
	disk, err := samples.Read[samples.Diskstats](r)
	if err != nil {
		t.Fatal(err)
	}
	perRun := map[int64]map[string]int{}
	for _, d := range disk {
		if seen[d.RunID] == 0 {
			t.Errorf("diskstats row of run %d, which is not in the capture", d.RunID)
			continue
		}
		if perRun[d.RunID] == nil {
			perRun[d.RunID] = map[string]int{}
		}
		perRun[d.RunID][d.Phase]++
	}
	for _, run := range runs {
		id := run.RunID
		if run.Status == "ok" && (perRun[id]["before"] != 1 || perRun[id]["after"] != 1) {
			t.Errorf("run %d: diskstats %v, want one before and one after", id, perRun[id])
		}
	}
	if complete > 0 {
		for id := int64(1); id <= int64(complete); id++ {
			if seen[id] != 1 {
				t.Errorf("run %d: in the capture %d times, want once", id, seen[id])
			}
		}
		if len(runs) != complete {
			t.Errorf("%d runs, want %d", len(runs), complete)
		}
	}
	return ids
}

// start starts cmd; the channel gives its Wait's result.
func start(t *testing.T, cmd *exec.Cmd) chan error {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return exited
}

// waitForRuns waits until the capture in dir holds n runs.
func waitForRuns(t *testing.T, dir string, n int, exited chan error, stderr fmt.Stringer) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		parts, _ := filepath.Glob(filepath.Join(dir, "runs", "*.parquet"))
		if len(parts) >= n {
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("the collector exited (%v) before %d runs were in %s; it said:\n%s", err, n, dir, stderr)
		case <-deadline:
			t.Fatalf("no %d runs in %s after a minute; the collector said:\n%s", n, dir, stderr)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestSecretsNeverRecorded plants passwords where users put them and
// searches every byte pgstudy wrote, compressed and not, for them.
func TestSecretsNeverRecorded(t *testing.T) {
	pg := pgtest.Start(t, 17)
	const (
		dsnPassword  = "Planted-dsn-pw-7x1"
		envPassword  = "Planted-pgpassword-3z"
		stepSecret   = "Planted-step-token-9q"
		downPassword = "Planted-down-pw-4k"
	)
	dsn := strings.Replace(pg.DSN(), "postgres@", "postgres:"+dsnPassword+"@", 1)
	// A server that is down: its runs fail, and their errors are written.
	downDSN := fmt.Sprintf("host=127.0.0.1 port=%d user=u password=%s connect_timeout=1", freePort(t), downPassword)
	study := filepath.Join(t.TempDir(), "study.yaml")
	os.WriteFile(study, []byte(fmt.Sprintf(`
configs:
  - name: pgx
    dsn: %[1]s
  - name: psql
    dsn: %[1]s
    client: psql
    psql: %[2]s -X
  - name: down
    dsn: %[4]s
tests:
  - name: one
    sql: select 1
protocol:
  rounds: 1
  ready_timeout: 1s
  cold:
    - sh: echo "token=$API_TOKEN pw=$PGPASSWORD"; echo "dsn %[1]s" >&2
      env: {API_TOKEN: %[3]s}
probes:
  - name: leak
    sh: echo "$DEPLOY_SECRET"; exit 3
    env: {DEPLOY_SECRET: %[3]s}
`, dsn, pg.Psql(), stepSecret, downDSN)), 0o644)
	out := filepath.Join(t.TempDir(), "capture")
	cmd := pgstudy("collect", study, "-o", out)
	cmd.Env = append(cmd.Env, "PGPASSWORD="+envPassword)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != exitRunsFailed {
		t.Fatalf("collect: %v, want exit %d (the runs on the server that is down fail)\n%s", err, exitRunsFailed, logs.String())
	}
	if !strings.Contains(logs.String(), "down: the server did not accept a connection") {
		t.Errorf("the runs on the server that is down did not fail as planned:\n%s", logs.String())
	}
	// What reads the capture writes nothing secret either.
	reports := t.TempDir()
	for _, args := range [][]string{
		{"report", out, "-o", filepath.Join(reports, "report")},
		{"analyze", out, "--detail", "-o", filepath.Join(reports, "analysis")},
		{"analyze", out, "--format", "json"},
		{"check", out},
	} {
		_, stdout, stderr := runInProcess(args...)
		logs.WriteString(stdout + stderr)
	}
	logs.WriteString(maskedDSNError(t, dsnPassword))
	secrets := []string{dsnPassword, envPassword, stepSecret, downPassword}
	for _, s := range secrets {
		if strings.Contains(logs.String(), s) {
			t.Errorf("the log holds %q:\n%s", s, logs.String())
		}
	}
	for _, dir := range []string{out, reports} {
		noSecretInFiles(t, dir, secrets)
	}
	checkModes(t, out)
	checkModes(t, reports)
	masked := maskedInRows(t, out, secrets)
	// The secrets were there to mask: the study's DSNs, the step's and the
	// probe's echoes.
	if masked < 5 {
		t.Errorf("only %d masked secrets in the capture; the test did not plant what it meant to", masked)
	}
}

// maskedDSNError is the error of a study whose DSN holding password does
// not parse: it quotes the DSN masked (the caller checks).
func maskedDSNError(t *testing.T, password string) string {
	t.Helper()
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("configs:\n  - name: a\n    dsn: postgres://u:"+password+"@h:notaport/db\ntests:\n  - {name: t, sql: select 1}\n"), 0o644)
	code, _, stderr := runInProcess("collect", bad, "--dry-run")
	if code != exitUsage || !strings.Contains(stderr, "invalid port") {
		t.Errorf("a study with a bad DSN: exit %d: %s", code, stderr)
	}
	return stderr
}

// noSecretInFiles checks every byte of every file under dir, as stored.
func noSecretInFiles(t *testing.T, dir string, secrets []string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds %q", path, s)
			}
		}
		return nil
	})
}

// maskedInRows checks every string of every row of the capture,
// decompressed, and counts the masks in them.
func maskedInRows(t *testing.T, out string, secrets []string) int {
	t.Helper()
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	var masked int
	for _, tb := range []func() (any, error){
		func() (any, error) { return samples.Read[samples.Capture](r) },
		func() (any, error) { return samples.Read[samples.Host](r) },
		func() (any, error) { return samples.Read[samples.Run](r) },
		func() (any, error) { return samples.Read[samples.Step](r) },
		func() (any, error) { return samples.Read[samples.Statement](r) },
		func() (any, error) { return samples.Read[samples.Output](r) },
		func() (any, error) { return samples.Read[samples.Notice](r) },
		func() (any, error) { return samples.Read[samples.Plan](r) },
		func() (any, error) { return samples.Read[samples.Diskstats](r) },
		func() (any, error) { return samples.Read[samples.Stat](r) },
		func() (any, error) { return samples.Read[samples.Server](r) },
		func() (any, error) { return samples.Read[samples.Setting](r) },
		func() (any, error) { return samples.Read[samples.Probe](r) },
	} {
		rows, err := tb()
		if err != nil {
			t.Fatal(err)
		}
		forEachString(reflect.ValueOf(rows), func(s string) {
			for _, sec := range secrets {
				if strings.Contains(s, sec) {
					t.Errorf("a row holds %q: %.200s", sec, s)
				}
			}
			masked += strings.Count(s, "********")
		})
	}
	return masked
}

// TestCommonPasswordKeepsRawOutput: with the password "postgres" (most
// container images' default) and a one-character one, the recorded output
// keeps every byte (data_directory=/.../postgresql..., diskstats lines),
// the study copy loses both passwords where they stand, and the collector
// warns once that they are not searched for in output.
func TestCommonPasswordKeepsRawOutput(t *testing.T) {
	pg := pgtest.Start(t, 17) // trust: any password is accepted
	dsn := strings.Replace(pg.DSN(), "postgres@", "postgres:postgres@", 1)
	study := filepath.Join(t.TempDir(), "study.yaml")
	os.WriteFile(study, []byte(fmt.Sprintf(`configs:
  - name: a
    dsn: %s
  - name: b
    dsn: "%s password=1"
tests:
  - name: one
    sql: select current_setting('data_directory')
protocol:
  rounds: 1
  cold: [{sh: "echo data_directory=/var/lib/postgresql/17/main 1 2 3"}]
`, dsn, fmt.Sprintf("host=%s port=%d user=postgres dbname=postgres sslmode=disable", pg.Host, pg.Port))), 0o644)
	out := filepath.Join(t.TempDir(), "capture")
	code, _, stderr := runInProcess("collect", study, "-o", out, "--quiet")
	if code != exitOK {
		t.Fatalf("collect: exit %d: %s", code, stderr)
	}
	if strings.Count(stderr, "secret(s) of the study are short, ordinary words") != 1 {
		t.Errorf("the warning about the passwords, once: %s", stderr)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	var dataDir bool
	for _, st := range mustRead[samples.Setting](t, r) {
		if st.Name == "data_directory" {
			dataDir = true
			if st.Setting != pg.DataDir {
				t.Errorf("data_directory recorded as %q, want %q", st.Setting, pg.DataDir)
			}
		}
	}
	if !dataDir {
		t.Error("no data_directory setting recorded")
	}
	steps := 0
	for _, st := range mustRead[samples.Step](t, r) {
		if st.Name == "sh" {
			steps++
			if st.Output != "data_directory=/var/lib/postgresql/17/main 1 2 3\n" {
				t.Errorf("a step's output recorded as %q", st.Output)
			}
		}
	}
	if steps != 2 {
		t.Errorf("%d sh steps recorded, want 2", steps)
	}
	for _, d := range mustRead[samples.Diskstats](t, r) {
		if strings.Contains(d.Text, "********") {
			t.Fatalf("a diskstats snapshot was masked: %.200s", d.Text)
		}
	}
	caps := mustRead[samples.Capture](t, r)
	copyText := caps[0].StudyYAML
	if strings.Contains(copyText, "postgres:postgres@") || strings.Contains(copyText, "password=1") ||
		!strings.Contains(copyText, "postgres:********@") || !strings.Contains(copyText, "password=********") {
		t.Errorf("the study copy:\n%s", copyText)
	}
}

func forEachString(v reflect.Value, f func(string)) {
	switch v.Kind() {
	case reflect.Slice:
		for i := range v.Len() {
			forEachString(v.Index(i), f)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			forEachString(v.Field(i), f)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			forEachString(v.Elem(), f)
		}
	case reflect.String:
		f(v.String())
	}
}

// checkModes: what pgstudy writes others may read, as the umask allows,
// and no one else may change: folders 0755 and files 0644 under a umask of
// 022. A lock or temporary file left behind would show here too.
func checkModes(t *testing.T, dir string) {
	t.Helper()
	umask := syscall.Umask(0o022)
	syscall.Umask(umask)
	if umask != 0o022 {
		t.Logf("umask is %03o; modes are checked against 022's", umask)
	}
	n := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o644)
		if d.IsDir() {
			want = fs.ModeDir | 0o755
		}
		if info.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, info.Mode(), want)
		}
		n++
		return nil
	})
	if n < 3 {
		t.Errorf("%s: %d files and folders; nothing to check", dir, n)
	}
}
