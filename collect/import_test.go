package collect_test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/parse/psql"
	"github.com/pgstudy/pgstudy/samples"
)

// handMadeStudy does what users did before pgstudy: for each round and
// configuration, copy /proc/diskstats, run a psql script with \timing on,
// SETs and a shell escape around the timed statement, copy /proc/diskstats
// again; dump pg_settings once per round. It returns the folder.
func handMadeStudy(t *testing.T) (dir string, manifest []string) {
	t.Helper()
	servers := map[string]*pgtest.Cluster{"pg17": pgtest.Start(t, 17), "pg18": pgtest.Start(t, 18)}
	for _, c := range servers {
		loadData(t, c)
	}
	dir = t.TempDir()
	tests := map[string]string{
		"seqscan": "set enable_indexscan = off;\nset enable_bitmapscan = off;\nselect count(*), sum(bid) from accounts;",
		"vacuum":  "update accounts set bid = bid + 1 where aid <= 5000;\n\\! echo updated\nvacuum (verbose) accounts;",
	}
	run := func(name string, args ...string) []byte {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return out
	}
	write := func(rel string, b []byte) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest = []string{"round,position,config,test,kind,path"}
	for round := 1; round <= 2; round++ {
		order := []string{"pg17", "pg18"}
		if round == 2 {
			order = []string{"pg18", "pg17"}
		}
		for pos, cfg := range order {
			c := servers[cfg]
			settings := run(c.Psql(), "-X", "-A", "-t", "-F", "\t", "-d", c.DSN(), "-c", "select name, setting, unit, source from pg_settings")
			rel := fmt.Sprintf("round%d/%s/settings/settings.out", round, cfg)
			write(rel, settings)
			manifest = append(manifest, fmt.Sprintf("%d,%d,%s,,settings,%s", round, pos+1, cfg, rel))
			for _, test := range []string{"seqscan", "vacuum"} {
				base := fmt.Sprintf("round%d/%s/%s/", round, cfg, test)
				write(base+"diskstats-before.out", run("cat", "/proc/diskstats"))
				script := filepath.Join(dir, "script.sql")
				os.WriteFile(script, []byte("\\timing on\n-- the timed statement\n"+tests[test]+"\n"), 0o644)
				out := run("sh", "-c", fmt.Sprintf("%s -X -e -d '%s' -f %s 2>&1", c.Psql(), c.DSN(), script))
				write(base+"diskstats-after.out", run("cat", "/proc/diskstats"))
				kind := map[string]string{"seqscan": "psql", "vacuum": "vacuum"}[test]
				write(base+kind+".out", out)
				if test == "seqscan" {
					plan := run(c.Psql(), "-X", "-A", "-t", "-d", c.DSN(), "-c", "explain (format json) select count(*), sum(bid) from accounts")
					write(base+"explain-json.out", plan)
					manifest = append(manifest, fmt.Sprintf("%d,%d,%s,%s,explain-json,%sexplain-json.out", round, pos+1, cfg, test, base))
				}
				for _, k := range []string{"diskstats-before", kind, "diskstats-after"} {
					manifest = append(manifest, fmt.Sprintf("%d,%d,%s,%s,%s,%s%s.out", round, pos+1, cfg, test, k, base, k))
				}
			}
		}
	}
	os.Remove(filepath.Join(dir, "script.sql"))
	write("notes/console.txt", []byte("burst balance 99% at start\n"))
	manifest = append(manifest, "1,1,pg17,seqscan,attachment,notes/console.txt")
	write("manifest.csv", []byte(strings.Join(manifest, "\n")+"\n"))
	return dir, manifest
}

func TestImportHandMadeStudy(t *testing.T) {
	dir, _ := handMadeStudy(t)
	out := filepath.Join(t.TempDir(), "capture")
	sum, err := collect.ImportManifest(filepath.Join(dir, "manifest.csv"), collect.ImportOptions{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Runs != 8 {
		t.Fatalf("imported %d runs, want 2 rounds x 2 configs x 2 tests = 8", sum.Runs)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	runs := read[samples.Run](t, r)
	var order []string
	for _, run := range runs {
		order = append(order, fmt.Sprintf("%d:%d:%s:%s", run.Round, run.Position, run.Config, run.Test))
	}
	want := "1:1:pg17:seqscan 1:1:pg17:vacuum 1:2:pg18:seqscan 1:2:pg18:vacuum 2:1:pg18:seqscan 2:1:pg18:vacuum 2:2:pg17:seqscan 2:2:pg17:vacuum"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("runs:\n got %s\nwant %s", got, want)
	}
	outputs := read[samples.Output](t, r)
	checkHandMadeTimes(t, runs, outputs)
	checkHandMadeTables(t, r)
	analyzeHandMade(t, out, runs, outputs)

	// The same folder by pattern gives the same runs.
	out2 := filepath.Join(t.TempDir(), "capture")
	os.Remove(filepath.Join(dir, "manifest.csv"))
	os.RemoveAll(filepath.Join(dir, "notes"))
	sum, err = collect.ImportPattern(dir, "round{round}/{config}/{test}/{kind}.out", collect.ImportOptions{Out: out2})
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := samples.Open(out2)
	if runs2 := read[samples.Run](t, r2); len(runs2) != 8 {
		t.Errorf("pattern import: %d runs", len(runs2))
	}
	if got := len(read[samples.Diskstats](t, r2)); got != 16 {
		t.Errorf("pattern import: %d snapshots", got)
	}
}

// checkHandMadeTimes: each run's output holds its statement and a Time:
// line, and the SETs, the shell escape and the update around the timed
// statement do not hide it from the parser: it has its own time.
func checkHandMadeTimes(t *testing.T, runs []samples.Run, outputs []samples.Output) {
	t.Helper()
	for _, run := range runs {
		text := outputText(outputs, run.RunID, "stdout")
		wantIn := map[string]string{"seqscan": "select count(*), sum(bid) from accounts;", "vacuum": "WAL usage:"}[run.Test]
		if !strings.Contains(text, wantIn) || !strings.Contains(text, "Time: ") {
			t.Errorf("run %d (%s): output lacks %q or a Time: line:\n%s", run.RunID, run.Test, wantIn, text)
		}
		// The SETs, the shell escape and the update around the timed
		// statement do not hide it from the parser: it has its own time.
		out, _, err := psql.Parse(strings.NewReader(text), "run")
		if err != nil {
			t.Fatalf("run %d: %v", run.RunID, err)
		}
		timedSQL := map[string]string{"seqscan": "select count(*)", "vacuum": "vacuum (verbose)"}[run.Test]
		found := false
		for _, st := range out.Statements {
			if strings.HasPrefix(st.SQL, timedSQL) {
				found = st.TimeMs != nil && *st.TimeMs > 0
			}
		}
		if !found {
			t.Errorf("run %d (%s): the parser finds no time for %q", run.RunID, run.Test, timedSQL)
		}
	}
}

// checkHandMadeTables: the diskstats snapshots, servers, plans and
// attachments the manifest names.
func checkHandMadeTables(t *testing.T, r *samples.Reader) {
	t.Helper()
	disk := read[samples.Diskstats](t, r)
	if len(disk) != 16 {
		t.Errorf("%d diskstats snapshots, want before and after for 8 runs", len(disk))
	}
	for i, d := range disk {
		if want := []string{"before", "after"}[i%2]; d.Phase != want || !strings.Contains(d.Text, " sda ") && !strings.Contains(d.Text, " vda ") && !strings.Contains(d.Text, "nvme") {
			t.Errorf("snapshot %d: phase %s, want %s; text %.80q", i, d.Phase, want, d.Text)
		}
	}
	servers := read[samples.Server](t, r)
	if len(servers) != 4 {
		t.Errorf("%d server rows, want one per configuration and round", len(servers))
	}
	for _, s := range servers {
		if s.ServerVersionNum/10000 != map[string]int32{"pg17": 17, "pg18": 18}[s.Config] {
			t.Errorf("%s round %d: server_version_num %d", s.Config, s.Round, s.ServerVersionNum)
		}
	}
	plans := read[samples.Plan](t, r)
	if len(plans) != 4 || !strings.Contains(plans[0].Text, `"Node Type": "Aggregate"`) {
		t.Errorf("%d plans; first %.100q", len(plans), plans[0].Text)
	}
	att := read[samples.Attachment](t, r)
	if len(att) != 5 { // the note and four settings files
		t.Errorf("%d attachments, want 5", len(att))
	}

}

// analyzeHandMade: the analysis reads an imported capture like a
// collected one: times from psql's Time: lines, the vacuum's figures, disk
// figures of the busiest disk, plans and settings.
func analyzeHandMade(t *testing.T, dir string, runs []samples.Run, outputs []samples.Output) {
	t.Helper()
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, err := analyze.Analyze([]analyze.Input{{Name: dir, Reader: r}}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Baseline != "pg17" || len(a.Timings) != 4 {
		t.Fatalf("baseline %s, %d timings", a.Baseline, len(a.Timings))
	}
	// Each run's time is the Time: line after its timed statement.
	for _, run := range a.Runs {
		out, _, err := psql.Parse(strings.NewReader(outputText(outputs, run.RunID, "stdout")), "run")
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		for _, st := range out.Statements {
			if strings.HasPrefix(st.SQL, "select count(*)") || strings.HasPrefix(st.SQL, "vacuum (verbose)") {
				want = *st.TimeMs
			}
		}
		if !run.HasTime || run.TimeSource != "psql" || run.TimeMs != want || want == 0 {
			t.Errorf("run %d (%s): time %v from %q, want %v from psql", run.RunID, run.Test, run.TimeMs, run.TimeSource, want)
		}
		if run.Disk == nil || run.Device == "" {
			t.Errorf("run %d: no disk figures", run.RunID)
			continue
		}
		// The snapshots' times are unknown: the rates are over the
		// statement's own time, and said so; never 0 for unknown.
		if d := run.Disk; run.DiskRatesOver != "statement" || d.Seconds != want/1000 ||
			math.IsNaN(d.RPerS) || math.IsNaN(d.UtilPct) || (d.Reads > 0 && d.RPerS != d.Reads/d.Seconds) {
			t.Errorf("run %d: disk rates over %q, %v s: %+v", run.RunID, run.DiskRatesOver, d.Seconds, d)
		}
		if run.Test == "vacuum" && (run.Vacuum == nil || run.Vacuum.WALBytes == nil || *run.Vacuum.WALBytes == 0) {
			t.Errorf("run %d: vacuum figures %+v", run.RunID, run.Vacuum)
		}
	}
	if len(a.Vacuums) != 4 || len(a.Plans) != 2 || a.Plans[0].Shape != a.Plans[1].Shape {
		t.Errorf("%d vacuum rows, plans %+v", len(a.Vacuums), a.Plans)
	}
	// 18 raised effective_io_concurrency's default: a setting that differs
	// and that no study declared (an import has none).
	found := false
	for _, s := range a.Settings {
		if s.Name == "effective_io_concurrency" {
			found = s.Values["pg17"] == "1" && s.Values["pg18"] == "16" && !s.Declared
		}
	}
	if !found {
		t.Errorf("effective_io_concurrency not among the settings that differ: %+v", a.Settings)
	}
	if len(runs) != len(a.Runs) {
		t.Errorf("analysed %d runs of %d", len(a.Runs), len(runs))
	}
}

// TestImportErrors: every mistake of a manifest is reported at once, with
// its line, and no capture is left behind.
func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.out"), []byte("Time: 1.000 ms\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad-settings.tsv"), []byte("work_mem\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	for _, tc := range []struct{ manifest, want string }{
		{"", "manifest.csv: the manifest is empty; expected the header round,position,config,test,kind,path"},
		{"round,config,path\n", "manifest.csv:1: expected the header round,position,config,test,kind,path[,started_at], found round,config,path"},
		{"round,position,config,test,kind,path\n" +
			"1,1,pg17,seq,psql,a.out\n" +
			"1,1,pg17,seq,psq,a.out\n" +
			"1,1,pg17,seq,psql,a.out\n" +
			"x,1,pg17,seq,psql,a.out\n" +
			"2,1,pg17,seq,psql,../a.out\n" +
			"3,1,pg17,seq,psql,missing.out\n" +
			"4,1,pg17,seq,diskstats-before,a.out\n" +
			"3000000000,1,pg17,seq,psql,a.out\n" +
			"5,99999999999999999999,pg17,seq,psql,a.out\n",
			"manifest.csv:3: unknown kind \"psq\"; expected one of psql, vacuum, explain-json, explain-text, diskstats-before, diskstats-after, settings, attachment\n" +
				"manifest.csv:4: round 1, config pg17, test \"seq\", kind psql is already given by manifest.csv:2\n" +
				"manifest.csv:5: round: expected a whole number from 1 to 10000, found \"x\"\n" +
				"manifest.csv:6: path \"../a.out\" leaves the manifest's folder; paths are relative to it\n" +
				"manifest.csv:7: missing.out: no such file or directory\n" +
				"manifest.csv:8: round 4, config pg17, test seq has no psql or vacuum output, so no timed statement\n" +
				"manifest.csv:9: round: expected a whole number from 1 to 10000, found \"3000000000\"\n" +
				"manifest.csv:10: position: expected a whole number from 1 to 10000 or nothing, found \"99999999999999999999\""},
		// Runs whose files are spread over the manifest, as the grouping
		// by sorting must find them: the messages are those of the
		// grouping by maps it replaced, word for word.
		{"round,position,config,test,kind,path\n" +
			"1,1,pg17,seq,psql,a.out\n" +
			"2,1,pg17,seq,psql,a.out\n" +
			"1,2,pg17,seq,attachment,a.out\n" +
			"1,,pg17,seq,attachment,a.out\n" +
			"1,1,pg18,seq,psql,a.out\n" +
			"1,1,pg17,idx,psql,a.out\n" +
			"1,1,pg17,seq,explain-text,a.out\n" +
			"1,3,pg17,idx,explain-json,a.out\n" +
			"1,1,pg17,,settings,bad-settings.tsv\n" +
			"1,1,pg17,other,settings,bad-settings.tsv\n" +
			"2,1,pg17,seq,psql,a.out\n" +
			"2,1,pg17,seq,vacuum,missing.out\n" +
			"2,1,pg17,seq,attachment,sub\n" +
			"3,1,pg17,seq,explain-text,a.out\n" +
			"3,1,pg17,seq,explain-text,a.out\n" +
			"1,1,pg18,,settings,bad-settings.tsv\n" +
			"4,1,pg19,,settings,bad-settings.tsv\n",
			"manifest.csv:4: position 2, but an earlier file of this run says 1\n" +
				"manifest.csv:5: round 1, config pg17, test \"seq\", kind attachment is already given by manifest.csv:4\n" +
				"manifest.csv:8: position 1, but an earlier file of this run says 2\n" +
				"manifest.csv:9: position 3, but an earlier file of this run says 1\n" +
				"manifest.csv:11: round 1, config pg17, test \"\", kind settings is already given by manifest.csv:10\n" +
				"manifest.csv:12: round 2, config pg17, test \"seq\", kind psql is already given by manifest.csv:3\n" +
				"manifest.csv:13: missing.out: no such file or directory\n" +
				"manifest.csv:14: sub is a folder, not a regular file; only files are imported\n" +
				"manifest.csv:15: round 3, config pg17, test seq has no psql or vacuum output, so no timed statement\n" +
				"manifest.csv:16: round 3, config pg17, test \"seq\", kind explain-text is already given by manifest.csv:15\n" +
				"manifest.csv:18: settings of config pg19 in round 4, which has no run"},
		{"round,position,config,test,kind,path\n1,1,pg17,seq,psql,a.out\n1,1,pg17,,settings,bad-settings.tsv\n",
			"import: bad-settings.tsv (manifest line 3):1: expected name, setting, unit and source separated by tabs or |, found \"work_mem\""},
	} {
		m := filepath.Join(dir, "manifest.csv")
		os.WriteFile(m, []byte(tc.manifest), 0o644)
		out := filepath.Join(t.TempDir(), "capture")
		_, err := collect.ImportManifest(m, collect.ImportOptions{Out: out})
		got := ""
		if err != nil {
			got = strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
		}
		if got != tc.want {
			t.Errorf("manifest %q:\n got %s\nwant %s", tc.manifest, got, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("manifest %q: a capture was left at %s", tc.manifest, out)
		}
		// Nor the temporary folder it was being written in (a settings
		// file is read, and found wrong, once the capture is begun).
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
			t.Errorf("manifest %q: left %v beside the capture", tc.manifest, entries)
		}
	}
	if _, err := collect.ImportPattern(dir, "{config}/{kind}.out", collect.ImportOptions{Out: t.TempDir()}); err == nil ||
		!strings.Contains(err.Error(), "must name {round}") {
		t.Errorf("pattern without round: %v", err)
	}
}

// TestImportManifestForms: a manifest saved by Excel ("CSV UTF-8" with a
// byte order mark and CRLF, "Unicode text" in UTF-16) imports as the plain
// one does, its text stored decoded; a quoted field cannot hold a record
// past 64 KiB, however many lines it spans.
func TestImportManifestForms(t *testing.T) {
	dir := t.TempDir()
	psql, err := os.ReadFile("../parse/psql/testdata/pg18-session.txt")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a.psql"), psql, 0o644)
	plain := "round,position,config,test,kind,path\r\n1,1,pg18,t,psql,a.psql\r\n"
	u16 := []byte{0xFF, 0xFE}
	for _, r := range plain {
		u16 = append(u16, byte(r), 0)
	}
	for name, text := range map[string][]byte{"bom.csv": append([]byte{0xEF, 0xBB, 0xBF}, plain...), "utf16.csv": u16} {
		m := filepath.Join(dir, name)
		os.WriteFile(m, text, 0o644)
		out := filepath.Join(dir, name+".capture")
		sum, err := collect.ImportManifest(m, collect.ImportOptions{Out: out})
		if err != nil || sum.Runs != 1 {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := samples.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		if caps := r.Captures(); caps[0].StudyYAML != plain {
			t.Errorf("%s: the manifest stored as %q", name, caps[0].StudyYAML)
		}
	}
	quoted := filepath.Join(dir, "quoted.csv")
	os.WriteFile(quoted, []byte("round,position,config,test,kind,path\n1,1,pg18,t,psql,\"a"+strings.Repeat("\nx", 40<<10)+"\"\n"), 0o644)
	_, err = collect.ImportManifest(quoted, collect.ImportOptions{Out: filepath.Join(dir, "q")})
	if err == nil || !strings.Contains(err.Error(), "quoted.csv:2: a record longer than 64 KiB") {
		t.Errorf("a quoted field of 80 KiB over 40,000 lines: %v", err)
	}
}
