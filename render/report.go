package render

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/table"
	"github.com/pgstudy/pgstudy/samples/outdir"
	"golang.org/x/sync/errgroup"
)

// ReportOptions are what Report writes besides report.md, figures/ and
// tables/, and whom it tells of its progress.
type ReportOptions struct {
	HTML     bool         // report.html too: the same report in one file that needs nothing else
	Progress func(string) // told of each figure drawn; nil tells nothing
}

// Report writes a report folder: report.md, figures/ (each figure as SVG
// and PNG), tables/ (each table as CSV) and, with opt.HTML, report.html.
// The same analysis gives the same bytes in every file: nothing in it
// depends on when or where it was written. The folder is replaced whole,
// and only if pgstudy wrote it (outdir.Replace); inputs are the captures
// read, which it may not be, hold or lie inside. It returns the files
// written and notes for the user.
func Report(dir string, inputs []string, a *analyze.Analysis, opt ReportOptions) (files, notes []string, err error) {
	if opt.Progress == nil {
		opt.Progress = func(string) {}
	}
	return writeFolder(dir, outdir.Report, inputs, func(tmp string) error {
		_, err := writeReport(tmp, a, opt)
		return err
	})
}

// writeReport writes a report into dir, a new folder, and returns the
// files written relative to it.
func writeReport(dir string, a *analyze.Analysis, opt ReportOptions) ([]string, error) {
	for _, sub := range []string{"figures", "tables"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	figs := Figures(a)
	if err := writeFigures(filepath.Join(dir, "figures"), figs, opt.Progress); err != nil {
		return nil, err
	}
	var files []string
	for _, f := range figs {
		files = append(files, filepath.Join("figures", f.Name+".svg"), filepath.Join("figures", f.Name+".png"))
	}
	for _, t := range append(a.Tables(), a.DetailTables()...) {
		rel := filepath.Join("tables", t.Name+".csv")
		if err := writeFile(filepath.Join(dir, rel), func(w io.Writer) error { return csvTable(w, t) }); err != nil {
			return nil, err
		}
		files = append(files, rel)
	}
	d, err := reportDoc(a, figs)
	if err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(dir, "report.md"), d.markdown); err != nil {
		return nil, err
	}
	files = append(files, "report.md")
	if !opt.HTML {
		return files, nil
	}
	// The figures inside report.html are the files just written, byte for
	// byte.
	svg := func(f Figure) ([]byte, error) { return os.ReadFile(filepath.Join(dir, "figures", f.Name+".svg")) }
	if err := writeFile(filepath.Join(dir, "report.html"), func(w io.Writer) error { return d.html(w, svg) }); err != nil {
		return nil, err
	}
	return append(files, "report.html"), nil
}

// writeFigures draws figs into dir side by side, one per core: PNG
// encoding is most of a report's time. The files do not depend on the
// order.
func writeFigures(dir string, figs []Figure, progress func(string)) error {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	var mu sync.Mutex
	done := 0
	for _, f := range figs {
		g.Go(func() error {
			if err := writeFigure(dir, f); err != nil {
				return fmt.Errorf("figure %s: %w", f.Name, err)
			}
			mu.Lock()
			done++
			progress(fmt.Sprintf("figure %d/%d: %s", done, len(figs), f.Name))
			mu.Unlock()
			return nil
		})
	}
	return g.Wait()
}

// reportDoc is the report, for report.md and report.html alike: how the
// numbers were measured, what the guards found, the results with their
// figures, then every table.
func reportDoc(a *analyze.Analysis, figs []Figure) (doc, error) {
	var d doc
	tables := map[string]table.Table{}
	for _, t := range a.Tables() {
		tables[t.Name] = t
	}
	name := ""
	if len(a.Setups) > 0 {
		name = a.Setups[0].Study
	}
	if name == "" {
		name = "Study"
	}
	d.heading(1, words("%s", name).text(": ").text("%s", strings.Join(a.Configs, " vs ")))
	d.para(words("%s", resultsText(a)).text(" Every figure and table below is regenerated from the capture with ").code("pgstudy report").text("."))

	measuredDoc(&d, a)
	findingsDoc(&d, a)
	d.heading(2, words("Results"))
	if err := d.tables(namedTables(tables, "relative", "relative_qps", "noise"), 3); err != nil {
		return nil, err
	}
	var text []line
	for _, c := range append(slices.Clone(a.Contrast), a.ReadAmpText()...) {
		text = append(text, words("%s", c))
	}
	d.lines(text)
	figuresDoc(&d, a, figs)

	d.heading(2, words("Tables"))
	d.para(words("Each is also in tables/ as CSV."))
	order := namedTables(tables, "timings", "throughput", "relative_qps", "disk", "read_amplification", "io", "aios", "wal", "vacuum", "plans", "explain_analyze", "settings")
	if err := d.tables(order, 3); err != nil {
		return nil, err
	}
	return d, nil
}

// namedTables are the tables of these names that have rows, in this
// order.
func namedTables(tables map[string]table.Table, names ...string) []table.Table {
	var out []table.Table
	for _, n := range names {
		if t, ok := tables[n]; ok && len(t.Rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// resultsText is the sentence that opens the report: what its results
// are and which way is faster, following the metric of the tests it has
// (a time's ratio below 1.00 is faster, a QPS ratio above 1.00).
func resultsText(a *analyze.Analysis) string {
	timed, qps := len(a.Timings) > 0 || len(a.Throughputs) == 0, len(a.Throughputs) > 0
	switch {
	case timed && qps:
		return fmt.Sprintf("Times and QPS are medians over rounds; ratios are against %s: a time's below 1.00 is faster, a QPS ratio above 1.00 is faster.", a.Baseline)
	case qps:
		return fmt.Sprintf("QPS are medians over rounds; ratios are QPS against %s's (above 1.00 is faster).", a.Baseline)
	}
	return fmt.Sprintf("Times are medians over rounds; ratios are against %s (below 1.00 is faster).", a.Baseline)
}

// findingsDoc is the report's "What the guards found".
func findingsDoc(d *doc, a *analyze.Analysis) {
	d.heading(2, words("What the guards found"))
	if len(a.Findings) == 0 {
		d.para(words("Nothing: no guard fired."))
	}
	var items []line
	for _, f := range a.Findings {
		items = append(items, line{}.strong(string(f.Severity)).text(" (%s): %s", f.Guard, f.Message))
	}
	d.lines(items)
}

// figuresDoc shows the figures of the whole study first, then each test's
// under its name, then any other.
func figuresDoc(d *doc, a *analyze.Analysis, figs []Figure) {
	used := map[string]bool{}
	for _, f := range figs {
		if !strings.Contains(f.Name, "-") {
			*d = append(*d, figureBlock{f})
			used[f.Name] = true
		}
	}
	for _, test := range a.Tests {
		var mine []Figure
		for _, f := range figs {
			if !used[f.Name] && strings.HasSuffix(f.Name, "-"+test) {
				mine = append(mine, f)
			}
		}
		if len(mine) == 0 {
			continue
		}
		d.heading(3, words("%s", test))
		for _, f := range mine {
			*d = append(*d, figureBlock{f})
			used[f.Name] = true
		}
	}
	var rest []Figure
	for _, f := range figs {
		if !used[f.Name] {
			rest = append(rest, f)
		}
	}
	if len(rest) > 0 {
		d.heading(3, words("Other figures"))
		for _, f := range rest {
			*d = append(*d, figureBlock{f})
		}
	}
}

// codeText makes text safe inside a Markdown code span: one line, no
// backtick that would end it.
func codeText(s string) string {
	s = strings.Join(strings.Fields(PlainText(s)), " ")
	return strings.ReplaceAll(s, "`", "'")
}
