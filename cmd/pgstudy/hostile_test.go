package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/samples"
)

// A capture comes from elsewhere: anything in it may have been written to
// hurt whoever reads it. hostile is text that would break a Markdown
// document (a new heading, a table row, raw HTML, a link, a code fence),
// run a command if any part of pgstudy handed it to a shell, and walk out
// of the output folder if used in a file name.
const hostile = "x|y\n# Injected heading\n| injected | row |\n<script>alert(1)</script> [click](javascript:alert(1)) " +
	"```\n$(touch {mark}) `touch {mark}`; touch {mark} ../../../escape \x1b[2J\x1b]0;owned\x07"

// TestHostileCapture rewrites the sample capture with hostile text in the
// configuration and test names, a statement, a run's error, a setting's
// value, host facts and the commands the study ran, then runs every
// command that reads captures on it. Nothing it holds is run, nothing is
// written outside the output folders, and the Markdown, CSV and JSON
// written keep their structure.
func TestHostileCapture(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	text := strings.ReplaceAll(hostile, "{mark}", mark)
	capDir := filepath.Join(dir, "capture")
	writeHostileCapture(t, capDir, text)

	outs := map[string][]string{
		"report":   {"report", capDir, "-o", filepath.Join(dir, "report")},
		"plot":     {"plot", capDir, "-o", filepath.Join(dir, "plot")},
		"analyze":  {"analyze", capDir, "--detail", "-o", filepath.Join(dir, "analysis")},
		"csv":      {"analyze", capDir, "--format", "csv", "-o", filepath.Join(dir, "csv")},
		"json":     {"analyze", capDir, "--format", "json", "-o", filepath.Join(dir, "json")},
		"check":    {"check", capDir},
		"stdout":   {"analyze", capDir},
		"baseline": {"analyze", capDir, "--baseline", "pg18" + text},
	}
	stdouts := map[string]string{}
	for name, args := range outs {
		code, out, stderr := runInProcess(args...)
		if code != exitOK && !(name == "check" && code == exitError) {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
		}
		if strings.Contains(stderr, "panic") {
			t.Errorf("%s panicked: %s", name, stderr)
		}
		stdouts[name] = out
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("a command from the capture ran")
	}

	// Only the folders asked for were written.
	want := []string{"analysis", "capture", "csv", "json", "plot", "report"}
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s holds %v after the commands, want %v", dir, got, want)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape")); err == nil {
		t.Error("a file was written outside the output folder")
	}

	checkMarkdown(t, filepath.Join(dir, "report", "report.md"))
	checkMarkdown(t, filepath.Join(dir, "analysis", "analysis.md"))
	for _, folder := range []string{"report/tables", "csv"} {
		files, _ := filepath.Glob(filepath.Join(dir, folder, "*.csv"))
		if len(files) == 0 {
			t.Errorf("no CSV in %s", folder)
		}
		for _, f := range files {
			checkCSV(t, f)
		}
	}
	svgs, _ := filepath.Glob(filepath.Join(dir, "report", "figures", "*.svg"))
	if len(svgs) == 0 {
		t.Error("no figure in the report")
	}
	for _, f := range svgs {
		checkSVG(t, f)
	}
	b, err := os.ReadFile(filepath.Join(dir, "json", "analysis.json"))
	if err != nil || !json.Valid(b) {
		t.Errorf("analysis.json is not valid JSON (%v)", err)
	}
	if !strings.Contains(string(b), `"x|y\n# Injected heading`) {
		t.Errorf("analysis.json does not keep the hostile name as data")
	}
	checkMarkdownText(t, "analyze's output", stdouts["stdout"])
	// check's output is for a terminal: one line a finding, no escape.
	lines := strings.Split(strings.TrimSuffix(stdouts["check"], "\n"), "\n")
	for i, line := range lines {
		if !regexp.MustCompile(`^(error|warning|info) +[a-z-]+( \[|:)|^\d+ runs checked: `).MatchString(line) {
			t.Errorf("check's output, line %d, is not a finding: %.200q", i+1, line)
		}
		if strings.ContainsAny(line, "\x1b\x07") {
			t.Errorf("check's output, line %d, holds a terminal escape: %.200q", i+1, line)
		}
	}
	if len(lines) < 5 {
		t.Errorf("check printed %d lines; the hostile capture should give several findings", len(lines))
	}
}

// writeHostileCapture copies the sample capture to dir with text planted
// in the places a reader shows.
func writeHostileCapture(t *testing.T, dir, text string) {
	t.Helper()
	r, err := samples.Example()
	if err != nil {
		t.Fatal(err)
	}
	c, hosts := hostileSession(t, r, text)
	writeCapture(t, dir, c, hosts, hostileRuns(t, r, text))
}

// writeCapture writes a capture of one session from rows.
func writeCapture(t *testing.T, dir string, c samples.Capture, hosts []samples.Host, batches map[int64]*samples.Batch) {
	t.Helper()
	w, err := samples.Create(dir, samples.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSession(c, hosts); err != nil {
		t.Fatal(err)
	}
	var bs []*samples.Batch
	for _, id := range slices.Sorted(mapsKeys(batches)) {
		bs = append(bs, batches[id])
	}
	if err := w.CommitMany(bs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// hostileRuns are the sample's runs with text in every name and free
// text field a run holds, one batch per run.
func hostileRuns(t *testing.T, r *samples.Reader, text string) map[int64]*samples.Batch {
	t.Helper()
	configs := map[string]string{"pg17": "pg17" + text, "pg18": "pg18" + text}
	tests := map[string]string{"seqscan": "seqscan" + text}
	rename := func(m map[string]string, s string) string {
		if v, ok := m[s]; ok {
			return v
		}
		return s
	}
	return sampleBatches(t, r, rowEdits{
		run: func(run *samples.Run) {
			run.Config, run.Test = rename(configs, run.Config), rename(tests, run.Test)
			if run.RunID == 5 {
				run.Status, run.Error = "failed", text
			}
		},
		server: func(x *samples.Server) { x.Config = rename(configs, x.Config) },
		setting: func(x *samples.Setting) {
			x.Config = rename(configs, x.Config)
			if x.Name == "shared_buffers" && strings.HasPrefix(x.Config, "pg18") {
				x.Setting = text
			}
		},
		step: func(x *samples.Step) { x.Detail, x.Output = text, text },
		statement: func(x *samples.Statement) {
			if x.Phase == "timed" {
				x.SQL += text
			}
		},
	})
}

// rowEdits change rows of the sample as they are copied; nil leaves a
// table's rows as they are.
type rowEdits struct {
	run       func(*samples.Run)
	server    func(*samples.Server)
	setting   func(*samples.Setting)
	step      func(*samples.Step)
	statement func(*samples.Statement)
}

// sampleBatches reads every run's rows of the sample, edited, one batch
// per run.
func sampleBatches(t *testing.T, r *samples.Reader, e rowEdits) map[int64]*samples.Batch {
	t.Helper()
	batches := map[int64]*samples.Batch{}
	batch := func(id int64) *samples.Batch {
		if batches[id] == nil {
			batches[id] = &samples.Batch{}
		}
		return batches[id]
	}
	for _, run := range mustRead[samples.Run](t, r) {
		if e.run != nil {
			e.run(&run)
		}
		batch(run.RunID).Run = run
	}
	into(t, r, batch, func(b *samples.Batch) *[]samples.Server { return &b.Servers }, edited(e.server, func(x *samples.Server) int64 { return x.RunID }))
	into(t, r, batch, func(b *samples.Batch) *[]samples.Setting { return &b.Settings }, edited(e.setting, func(x *samples.Setting) int64 { return x.RunID }))
	into(t, r, batch, func(b *samples.Batch) *[]samples.Step { return &b.Steps }, edited(e.step, func(x *samples.Step) int64 { return x.RunID }))
	into(t, r, batch, func(b *samples.Batch) *[]samples.Statement { return &b.Statements }, edited(e.statement, func(x *samples.Statement) int64 { return x.RunID }))
	into(t, r, batch, func(b *samples.Batch) *[]samples.Output { return &b.Outputs }, func(x *samples.Output) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Notice { return &b.Notices }, func(x *samples.Notice) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Plan { return &b.Plans }, func(x *samples.Plan) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Diskstats { return &b.Diskstats }, func(x *samples.Diskstats) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Stat { return &b.Stats }, func(x *samples.Stat) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Probe { return &b.Probes }, func(x *samples.Probe) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Attachment { return &b.Attachments }, func(x *samples.Attachment) int64 { return x.RunID })
	return batches
}

// edited applies edit, when there is one, before run reads the row's run.
func edited[T any](edit func(*T), run func(*T) int64) func(*T) int64 {
	return func(x *T) int64 {
		if edit != nil {
			edit(x)
		}
		return run(x)
	}
}

// hostileSession is the sample's capture and host rows with text in the
// study's names, statement and command, and in the host's facts.
func hostileSession(t *testing.T, r *samples.Reader, text string) (samples.Capture, []samples.Host) {
	t.Helper()
	caps := mustRead[samples.Capture](t, r)
	c := caps[0]
	q := strconv.Quote(text)
	yaml := c.StudyYAML
	for _, old := range []string{"name: pg17", "name: pg18", "name: seqscan"} {
		yaml = strings.Replace(yaml, old, old[:len(old)-len(strings.TrimPrefix(old, "name: "))]+strconv.Quote(strings.TrimPrefix(old, "name: ")+text), 1)
	}
	yaml = strings.Replace(yaml, "sql: select count(*), sum(bid) from accounts\n", "sql: "+strconv.Quote("select count(*), sum(bid) from accounts"+text)+"\n", 1)
	yaml = strings.Replace(yaml, "name: sample-pg17-vs-pg18-cold", "name: "+q, 1)
	c.StudyYAML, c.Command = yaml, "pgstudy collect "+text
	hosts := mustRead[samples.Host](t, r)
	for i := range hosts {
		if strings.HasPrefix(hosts[i].Name, "cpu.") || strings.HasPrefix(hosts[i].Name, "kernel.") {
			hosts[i].Value = text
		}
	}

	return c, hosts
}

// into reads a table's rows, lets edit change each (it returns the row's
// run), and appends each to its run's batch.
func into[T any](t *testing.T, r *samples.Reader, batch func(int64) *samples.Batch, field func(*samples.Batch) *[]T, edit func(*T) int64) {
	t.Helper()
	for _, x := range mustRead[T](t, r) {
		rows := field(batch(edit(&x)))
		*rows = append(*rows, x)
	}
}

func mapsKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkMarkdown reads a Markdown file that pgstudy wrote from a hostile
// capture; see checkMarkdownText.
func checkMarkdown(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkMarkdownText(t, path, string(b))
}

// checkMarkdownText: the hostile text made no heading, no table row, no
// HTML, no link, no code fence and no terminal escape; every row of a
// table has its header's number of cells; and the text is there, escaped.
// Code spans are taken out first: what is in them is shown as it is.
func checkMarkdownText(t *testing.T, name, doc string) {
	t.Helper()
	if !strings.Contains(doc, `x\|y`) {
		t.Errorf("%s: the hostile text is not there, escaped", name)
	}
	if strings.ContainsRune(doc, 0x1b) || strings.ContainsRune(doc, 0x07) {
		t.Errorf("%s: a terminal escape got through", name)
	}
	cells := -1
	sc := bufio.NewScanner(strings.NewReader(doc))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := codeSpanRE.ReplaceAllString(sc.Text(), "${1}CODE")
		switch {
		case strings.HasPrefix(strings.TrimLeft(line, "# "), "Injected heading"),
			strings.HasPrefix(line, "| injected"),
			unescaped(line, "<"),
			unescaped(line, "[click]("),
			strings.Contains(line, "```"):
			t.Errorf("%s:%d: hostile text broke out: %.300q", name, n, line)
		}
		if !strings.HasPrefix(line, "|") {
			cells = -1
			continue
		}
		k := strings.Count(line, "|") - strings.Count(line, `\|`)
		if cells < 0 {
			cells = k
		} else if k != cells {
			t.Errorf("%s:%d: a table row of %d cells under a header of %d: %.200q", name, n, k-1, cells-1, line)
		}
	}
}

// codeSpanRE is a code span that no backslash escapes.
var codeSpanRE = regexp.MustCompile("(^|[^\\\\])`[^`]*`")

// unescaped reports whether s occurs in line without a backslash before it.
func unescaped(line, s string) bool {
	for i := strings.Index(line, s); i >= 0; {
		if i == 0 || line[i-1] != '\\' {
			return true
		}
		j := strings.Index(line[i+1:], s)
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// checkSVG: a figure is well-formed XML whose only elements are drawing
// ones: text from the capture made no script, link or foreign object.
func checkSVG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := xml.NewDecoder(f)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Errorf("%s: not well-formed XML: %v", path, err)
			return
		}
		if el, ok := tok.(xml.StartElement); ok {
			switch el.Name.Local {
			case "svg", "g", "path", "text", "tspan", "defs", "clipPath", "rect", "use", "symbol", "image", "title", "desc", "style":
			default:
				t.Errorf("%s: element <%s> in a figure", path, el.Name.Local)
			}
		}
	}
}

// checkCSV: every record has the header's number of fields.
func checkCSV(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := csv.NewReader(f).ReadAll(); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}
