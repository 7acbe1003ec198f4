package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// badInputDir holds the malformed inputs that are small text files.
const badInputDir = "testdata/badinput"

// badCase is one malformed input given to pgstudy.
type badCase struct {
	name string
	// args, with {in} for testdata/badinput, {cap} for the capture that
	// setup makes and {out} for an output folder that must be left empty
	// or absent.
	args  []string
	setup func(t *testing.T, dir string) string // makes {cap}; nil: none
	code  int
	want  []string // substrings of stderr: file, line:col, what was expected
}

// badCases is the catalogue of malformed inputs pgstudy refuses cleanly.
func badCases() []badCase {
	in := func(s string) string { return "{in}/" + s }
	cases := []badCase{
		// Study files.
		{name: "study/empty", args: []string{"collect", in("empty.yaml"), "--dry-run"}, code: exitUsage,
			want: []string{"empty.yaml: the study file is empty"}},
		{name: "study/binary", args: []string{"collect", in("garbage.bin"), "--dry-run"}, code: exitUsage,
			want: []string{"garbage.bin:1:1: not valid YAML: expected text, found the control character U+0000 (is it a binary file?)"}},
		{name: "study/not-yaml", args: []string{"collect", in("not-yaml.yaml"), "--dry-run"}, code: exitUsage,
			want: []string{"not-yaml.yaml:1:1: not valid YAML"}},
		{name: "study/list", args: []string{"collect", in("list.yaml"), "--dry-run"}, code: exitUsage,
			want: []string{"list.yaml:1:1: expected a mapping with configs:", "found a list"}},
		{name: "study/unknown-key", args: []string{"collect", in("unknown-key.yaml"), "--dry-run"}, code: exitUsage,
			want: []string{`unknown-key.yaml:4:5: unknown key "colour"; expected one of: name, dsn`}},
		{name: "study/bad-duration", args: []string{"collect", in("bad-duration.yaml"), "--dry-run"}, code: exitUsage,
			want: []string{`bad-duration.yaml:8:15: expected a positive duration such as 500ms, 30s or 2m, found "five minutes"`}},
		{name: "study/sql-and-pgbench", args: []string{"collect", in("sql-and-pgbench.yaml"), "--dry-run"}, code: exitUsage,
			want: []string{"sql-and-pgbench.yaml:5:5: test t: expected one of sql:, pgbench: or sysbench:, found more than one"}},
		{name: "study/matrix-not-list", args: []string{"collect", in("matrix-not-list.yaml"), "--dry-run"}, code: exitUsage,
			want: []string{"matrix-not-list.yaml:4:25: matrix: io_method needs a list of values"}},
		{name: "study/duplicate-names", args: []string{"collect", in("duplicate-names.yaml"), "--dry-run"}, code: exitUsage,
			want: []string{`duplicate-names.yaml:4:5: configuration name "a" is used twice (first at line 2)`}},
		{name: "study/missing", args: []string{"collect", in("no-such-study.yaml"), "--dry-run"}, code: exitError,
			want: []string{"no-such-study.yaml"}},

		// Import manifests and patterns.
		{name: "import/empty", args: []string{"import", in("empty.csv"), "-o", "{out}"}, code: exitUsage,
			want: []string{"empty.csv: the manifest is empty; expected the header round,position,config,test,kind,path"}},
		{name: "import/wrong-header", args: []string{"import", in("wrong-header.csv"), "-o", "{out}"}, code: exitUsage,
			want: []string{"wrong-header.csv:1: expected the header round,position,config,test,kind,path", "found round,config,test,file"}},
		{name: "import/missing-file", args: []string{"import", in("missing-file.csv"), "-o", "{out}"}, code: exitUsage,
			want: []string{"missing-file.csv:2: missing.out: no such file or directory"}},
		{name: "import/path-leaves-folder", args: []string{"import", in("escape.csv"), "-o", "{out}"}, code: exitUsage,
			want: []string{`escape.csv:2: path "../escape.out" leaves the manifest's folder`}},
		{name: "import/bad-round", args: []string{"import", in("bad-round.csv"), "-o", "{out}"}, code: exitUsage,
			want: []string{`bad-round.csv:3: round: expected a whole number from 1 to 10000, found "x"`}},
		{name: "import/missing-manifest", args: []string{"import", in("no-such-manifest.csv"), "-o", "{out}"}, code: exitError,
			want: []string{"no-such-manifest.csv"}},
		{name: "import/pattern-without-kind", args: []string{"import", "--pattern", "round{round}/{config}/{test}.out", "{in}", "-o", "{out}"},
			code: exitUsage, want: []string{`pattern "round{round}/{config}/{test}.out" must name {kind}`}},
		{name: "import/pattern-not-utf8", args: []string{"import", "--pattern", "{round}{config}{test}\xe9{kind}", "{in}", "-o", "{out}"},
			code: exitUsage, want: []string{`pattern "{round}{config}{test}\xe9{kind}": expected UTF-8 text`}},
		{name: "import/unclosed-quote", args: []string{"import", in("unclosed-quote.csv"), "-o", "{out}"}, code: exitUsage,
			want: []string{`unclosed-quote.csv:2:20: not valid CSV: extraneous or missing " in quoted-field`}},
		{name: "import/path-is-folder", args: []string{"import", in("path-is-folder.csv"), "-o", "{out}"}, code: exitUsage,
			want: []string{`path-is-folder.csv:2: path "." names the manifest's folder; expected a file in it`}},
		{name: "import/symlink-leaves-folder", args: []string{"import", "{cap}", "-o", "{out}"}, setup: symlinkOut("manifest"), code: exitUsage,
			want: []string{"m.csv:2: link.out is a symbolic link that leads outside", "only files in the folder are read"}},
		{name: "import/pattern-symlink", args: []string{"import", "--pattern", "{round}/{config}/{test}/{kind}", "{cap}", "-o", "{out}"},
			setup: symlinkOut("pattern"), code: exitError,
			want: []string{`no file matches "{round}/{config}/{test}/{kind}"`, "1/a/t/psql (a symbolic link, not followed)"}},
	}

	cases = append(cases, notRegularCases()...)
	cases = append(cases, badCase{name: "import/pattern-fifo", args: []string{"import", "--pattern", "{round}/{config}/{test}/{kind}", "{cap}", "-o", "{out}"},
		setup: fifoFolder, code: exitError, want: []string{"fifo (a FIFO (named pipe), not read)"}})

	// An exclusion that names nothing (a typo would leave in what was
	// meant to be left out).
	cases = append(cases,
		badCase{name: "analyze/exclude-typo", args: []string{"analyze", "{sample}", "--exclude", "config=pg71"}, code: exitUsage,
			want: []string{"--exclude config=pg71: the captures have no config pg71 (they have pg17, pg18)"}},
		badCase{name: "check/exclude-round", args: []string{"check", "{sample}", "--exclude", "round=99"}, code: exitUsage,
			want: []string{"--exclude round=99: the captures have no round 99 (they have 1-6)"}},
		badCase{name: "study/bounds", args: []string{"collect", "../../collect/testdata/study/too-many-runs.yaml", "--dry-run"}, code: exitUsage,
			want: []string{"too-many-runs.yaml:1:1: the study schedules 2000000 runs (100 configurations x 2 tests x 10000 rounds); a study has at most 1000000"}},
	)

	// Options that leave nothing to analyse.
	for _, args := range [][]string{
		{"analyze", "{sample}", "--exclude", "config=pg17", "--exclude", "config=pg18"},
		{"report", "{sample}", "--rounds", "7-9", "-o", "{out}"},
	} {
		cases = append(cases, badCase{name: args[0] + "/nothing-left", args: args, code: exitUsage,
			want: []string{"the exclusions and rounds asked for leave no run to analyse (36 excluded)"}})
	}

	// Every parser: an empty file, a binary file, another kind's output.
	other := map[string][]string{
		"psql":           {"pgbench.out", "pgbench.out:1: no psql output: expected a command tag"},
		"vacuum":         {"pgbench.out", "pgbench.out:1: expected psql's output of VACUUM (VERBOSE)"},
		"vacuum-notices": {"pgbench.out", "pgbench.out:1: expected a JSON object (a notice)"},
		"autovacuum-log": {"pgbench.out", "pgbench.out:1: expected a PostgreSQL server log"},
		"explain":        {"pgbench.out", "pgbench.out:1: expected the first line of an EXPLAIN plan"},
		"diskstats":      {"pgbench.out", "pgbench.out:1: not /proc/diskstats", "want 14, 18 or 20"},
		"pgbench":        {"sysbench.out", "sysbench.out:1: not pgbench output"},
		"sysbench":       {"pgbench.out", "pgbench.out:1: not sysbench output"},
	}
	for _, kind := range []string{"psql", "vacuum", "vacuum-notices", "autovacuum-log", "explain", "diskstats", "pgbench", "sysbench"} {
		if kind != "autovacuum-log" { // an empty log is one just rotated: a warning (TestParseLogError)
			cases = append(cases, badCase{name: "parse/" + kind + "/empty", args: []string{"parse", kind, in("empty.txt")}, code: exitError,
				want: []string{"empty.txt: empty input; expected "}})
		}
		cases = append(cases,
			badCase{name: "parse/" + kind + "/binary", args: []string{"parse", kind, in("garbage.bin")}, code: exitError,
				want: []string{"garbage.bin:1: binary data (a NUL byte); expected text"}},
			badCase{name: "parse/" + kind + "/other-kind", args: []string{"parse", kind, in(other[kind][0])}, code: exitError,
				want: other[kind][1:]},
		)
	}

	// Captures: analyze, check and report on broken parts and folders.
	part := filepath.Join("runs", "r000005.parquet")
	captures := []struct {
		name  string
		setup func(t *testing.T, dir string) string
		want  []string
	}{
		{"truncated-part", brokenCapture(part, truncateHalf), []string{part, "damaged part: parquet: file is smaller than indicated metadata size; expected a Parquet part"}},
		{"corrupt-part", brokenCapture(part, flipByte(2000)), []string{part, "damaged part: ", "CRC check failed; expected a Parquet part as pgstudy writes it"}},
		{"newer-format", brokenCapture(part, newerFormat), []string{part, "capture format version 9 is newer than this pgstudy reads (1); use a newer pgstudy"}},
		{"empty-folder", emptyFolder, []string{"is not a pgstudy capture: it has no capture/*.parquet"}},
		{"not-a-capture", func(*testing.T, string) string { return badInputDir }, []string{"badinput is not a pgstudy capture: it has no capture/*.parquet"}},
		{"missing-folder", func(_ *testing.T, dir string) string { return filepath.Join(dir, "no-such-capture") },
			[]string{"no-such-capture: no such folder (expected the folder pgstudy collect or import wrote)"}},
		{"fifo-part", brokenCapture(part, nil), []string{part + " is a FIFO (named pipe); a capture's parts are regular files"}},
		{"missing-table", alteredCapture(func(t *testing.T, c string) { os.RemoveAll(filepath.Join(c, "stats")) }),
			[]string{"is not a whole capture: it has no stats folder, which every collected run writes to"}},
		{"duplicate-part", alteredCapture(func(t *testing.T, c string) {
			copyFile(t, filepath.Join(c, part), filepath.Join(c, "runs", "r000005 (1).parquet"))
		}), []string{"r000005 (1).parquet is not a part pgstudy writes (they are named r000001.parquet)"}},
		{"renamed-part", alteredCapture(func(t *testing.T, c string) {
			os.Rename(filepath.Join(c, part), filepath.Join(c, "runs", "r000099.parquet"))
		}), []string{"r000099.parquet holds a row of run 5: a part of another run, renamed?"}},
		{"symlinked-folder", alteredCapture(func(t *testing.T, c string) {
			outside := filepath.Join(t.TempDir(), "steps")
			os.Rename(filepath.Join(c, "steps"), outside)
			os.Symlink(outside, filepath.Join(c, "steps"))
		}), []string{"steps is a symbolic link, not a folder of the capture"}},
		{"two-captures", alteredCapture(func(t *testing.T, c string) {
			other := filepath.Join(t.TempDir(), "other")
			if code, _, stderr := runInProcess("import", importFolder(t, 1, 64), "-o", other); code != exitOK {
				t.Fatal(stderr)
			}
			copyFile(t, filepath.Join(other, "capture", "s001.parquet"), filepath.Join(c, "capture", "s002.parquet"))
		}), []string{"holds 2 captures (ids ", "were two captures copied into one folder?"}},
	}
	// A part the Parquet reader once looped on (found by fuzzing): an error,
	// at once (arrow-go v18) or at the read's deadline (30 s), never a hang.
	disk := filepath.Join("diskstats", "r000005.parquet")
	cases = append(cases, badCase{name: "check/looping-part", args: []string{"check", "{cap}"},
		setup: brokenCapture(disk, fuzzInput("../../samples/testdata/fuzz/FuzzReadPart/c36251fb97404dc2")), code: exitError,
		want: []string{disk, "damaged part: "}})
	for _, c := range captures {
		for _, args := range [][]string{{"analyze", "{cap}"}, {"analyze", "{cap}", "-o", "{out}"}, {"check", "{cap}"}, {"report", "{cap}", "-o", "{out}"}} {
			name := args[0]
			if len(args) > 2 {
				name += "-o"
			}
			cases = append(cases, badCase{name: name + "/" + c.name, args: args, setup: c.setup, code: exitError, want: c.want})
		}
	}
	return cases
}

// TestBadInput gives pgstudy, as a process of its own, each malformed
// input of the catalogue and checks that it refuses it cleanly: a non-zero
// exit, a message naming the file, the line and what was expected, no
// panic, and no output folder left behind.
func TestBadInput(t *testing.T) {
	cases := badCases()
	if len(cases) < 30 {
		t.Fatalf("%d cases; the catalogue should hold at least 30", len(cases))
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.name] {
			t.Fatalf("case %s twice", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, p := range runBadCase(t, tc) {
				t.Error(p)
			}
		})
	}
}

// runBadCase runs one case and returns what went wrong.
func runBadCase(t *testing.T, tc badCase) []string {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	capDir := ""
	if tc.setup != nil {
		capDir = tc.setup(t, dir)
	}
	r := strings.NewReplacer("{in}", badInputDir, "{out}", out, "{cap}", capDir, "{sample}", "../../samples/example/capture")
	args := make([]string, len(tc.args))
	for i, a := range tc.args {
		args[i] = r.Replace(a)
	}
	var stdout, stderr bytes.Buffer
	cmd := pgstudy(args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("pgstudy %v: %v", args, err)
		}
		code = ee.ExitCode()
	}

	var problems []string
	all := stdout.String() + stderr.String()
	if code == 0 || code != tc.code {
		problems = append(problems, "pgstudy "+strings.Join(args, " ")+": exit "+strconv.Itoa(code)+", want "+strconv.Itoa(tc.code))
	}
	if strings.Contains(all, "panic:") || strings.Contains(all, "goroutine ") {
		problems = append(problems, "a panic:\n"+all)
	}
	for _, w := range tc.want {
		if !strings.Contains(stderr.String(), w) {
			problems = append(problems, "stderr "+quote(stderr.String())+" lacks "+quote(w))
		}
	}
	// Nothing left half-written: the output folder is absent or empty.
	if err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == out {
			return err
		}
		problems = append(problems, "left behind: "+path)
		return nil
	}); err != nil && !errors.Is(err, fs.ErrNotExist) {
		problems = append(problems, err.Error())
	}
	// Nor in the capture read: a refused read writes nothing into it.
	if capDir != "" && capDir != badInputDir {
		filepath.WalkDir(capDir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasPrefix(d.Name(), ".") && strings.HasSuffix(d.Name(), ".tmp") {
				problems = append(problems, "temp file left in the capture: "+path)
			}
			return nil
		})
	}
	return problems
}

func quote(s string) string { return "\"" + strings.TrimRight(s, "\n") + "\"" }

// symlinkOut makes a folder whose one file is a symbolic link to a file
// outside it, with a manifest listing it ("manifest": {cap} is the
// manifest) or laid out for a pattern ("pattern": {cap} is the folder).
func symlinkOut(kind string) func(*testing.T, string) string {
	return func(t *testing.T, dir string) string {
		secret := filepath.Join(dir, "outside.txt")
		os.WriteFile(secret, []byte("not to be read\n"), 0o644)
		in := filepath.Join(dir, "in")
		link := filepath.Join(in, "link.out")
		if kind == "pattern" {
			link = filepath.Join(in, "1", "a", "t", "psql")
		}
		os.MkdirAll(filepath.Dir(link), 0o755)
		if err := os.Symlink(secret, link); err != nil {
			t.Fatal(err)
		}
		if kind == "pattern" {
			return in
		}
		m := filepath.Join(in, "m.csv")
		os.WriteFile(m, []byte("round,position,config,test,kind,path\n1,,a,t,psql,link.out\n"), 0o644)
		return m
	}
}

// brokenCapture returns a setup that copies the sample capture and breaks
// one of its parts with breakPart.
func brokenCapture(part string, breakPart func(t *testing.T, b []byte) []byte) func(*testing.T, string) string {
	return alteredCapture(func(t *testing.T, dst string) {
		p := filepath.Join(dst, part)
		if breakPart == nil { // a FIFO in the part's place
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, breakPart(t, b), 0o644); err != nil {
			t.Fatal(err)
		}
	})
}

// fuzzInput replaces a part with the input of a fuzz regression file.
func fuzzInput(file string) func(*testing.T, []byte) []byte {
	return func(t *testing.T, _ []byte) []byte {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		lit, ok := strings.CutPrefix(strings.TrimSuffix(lines[1], ")"), "[]byte(")
		data, err := strconv.Unquote(lit)
		if !ok || err != nil {
			t.Fatalf("%s: not a fuzz input of one []byte: %v", file, err)
		}
		return []byte(data)
	}
}

func truncateHalf(_ *testing.T, b []byte) []byte { return b[:len(b)/2] }

// flipByte inverts the byte at offset off (chosen for the sample's part:
// 2000 is in a data page, whose CRC then fails).
func flipByte(off int) func(*testing.T, []byte) []byte {
	return func(t *testing.T, b []byte) []byte {
		if off >= len(b) {
			t.Fatalf("part of %d bytes: no byte at %d", len(b), off)
		}
		b[off] ^= 0xff
		return b
	}
}

// newerFormat makes the part's key-value metadata claim format version 9:
// the value "1" of pgstudy.format_version, a one-byte Thrift string, is
// overwritten in place, so the footer keeps its length.
func newerFormat(t *testing.T, b []byte) []byte {
	key := []byte("pgstudy.format_version")
	i := bytes.Index(b, key)
	if i < 0 || i+len(key)+2 >= len(b) || b[i+len(key)+1] != 1 || b[i+len(key)+2] != '1' {
		t.Fatal("the part's footer has no pgstudy.format_version of 1 where expected")
	}
	b[i+len(key)+2] = '9'
	return b
}

func emptyFolder(t *testing.T, dir string) string {
	p := filepath.Join(dir, "empty")
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// fifo makes a FIFO named fifo, with no writer.
func fifo(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fifoFolder is a folder of logs, one of them a FIFO, for --pattern.
func fifoFolder(t *testing.T, dir string) string {
	t.Helper()
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo(t, logs)
	return logs
}

// replaceArg returns args with every from replaced by to.
func replaceArg(args []string, from, to string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, from, to)
	}
	return out
}

// alteredCapture copies the sample capture and changes it with alter.
func alteredCapture(alter func(t *testing.T, capture string)) func(*testing.T, string) string {
	return func(t *testing.T, dir string) string {
		t.Helper()
		dst := filepath.Join(dir, "capture")
		if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "..", "samples", "example", "capture"))); err != nil {
			t.Fatal(err)
		}
		alter(t, dst)
		return dst
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// notRegularCases are inputs that are not regular files: a FIFO with no
// writer (it would block a plain open for ever) and endless devices (out
// of memory).
func notRegularCases() []badCase {
	var cases []badCase
	fifoIs := "is a FIFO (named pipe), not a regular file"
	devIs := "is a character device, not a regular file"
	for _, c := range []struct {
		name string
		args []string
		code int
	}{
		{"study", []string{"collect", "{cap}", "--dry-run"}, exitError},
		{"import", []string{"import", "{cap}", "-o", "{out}"}, exitError},
		{"parse", []string{"parse", "psql", "{cap}"}, exitError},
	} {
		if c.name != "parse" { // parse reads a FIFO as it reads a pipe: TestParseNamedPipe
			cases = append(cases, badCase{name: c.name + "/fifo", args: c.args, setup: fifo, code: c.code, want: []string{"fifo " + fifoIs}})
		}
		cases = append(cases,
			badCase{name: c.name + "/dev-zero", args: replaceArg(c.args, "{cap}", "/dev/zero"), code: c.code, want: []string{"/dev/zero " + devIs}},
			badCase{name: c.name + "/dev-urandom", args: replaceArg(c.args, "{cap}", "/dev/urandom"), code: c.code, want: []string{"/dev/urandom " + devIs}},
		)
	}
	return cases
}
