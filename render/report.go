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

// Report writes a report folder: report.md, figures/ (each figure as SVG
// and PNG) and tables/ (each table as CSV). The same analysis gives the
// same bytes in every file: nothing in it depends on when or where it was
// written. The folder is replaced whole, and only if pgstudy wrote it
// (outdir.Replace); inputs are the captures read, which it may not be,
// hold or lie inside. It returns the files written and notes for the user.
func Report(dir string, inputs []string, a *analyze.Analysis, progress func(string)) (files, notes []string, err error) {
	if progress == nil {
		progress = func(string) {}
	}
	return writeFolder(dir, outdir.Report, inputs, func(tmp string) error {
		_, err := writeReport(tmp, a, progress)
		return err
	})
}

// writeReport writes a report into dir, a new folder, and returns the
// files written relative to it.
func writeReport(dir string, a *analyze.Analysis, progress func(string)) ([]string, error) {
	for _, sub := range []string{"figures", "tables"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	var files []string
	figs := Figures(a)
	// Figures are drawn side by side, one per core: PNG encoding is most
	// of a report's time. The files do not depend on the order.
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	var mu sync.Mutex
	done := 0
	for _, f := range figs {
		g.Go(func() error {
			if err := writeFigure(filepath.Join(dir, "figures"), f); err != nil {
				return fmt.Errorf("figure %s: %w", f.Name, err)
			}
			mu.Lock()
			done++
			progress(fmt.Sprintf("figure %d/%d: %s", done, len(figs), f.Name))
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
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
	if err := writeFile(filepath.Join(dir, "report.md"), func(w io.Writer) error { return reportMarkdown(w, a, figs) }); err != nil {
		return nil, err
	}
	return append(files, "report.md"), nil
}

// reportMarkdown writes report.md: how the numbers were measured, what
// the guards found, the results with their figures, then every table.
func reportMarkdown(w io.Writer, a *analyze.Analysis, figs []Figure) error {
	bw := &errWriter{w: w}
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
	bw.printf("# %s: %s\n\n", markdownText(name), markdownText(strings.Join(a.Configs, " vs ")))
	bw.printf("%s Every figure and table below is regenerated from the capture with `pgstudy report`.\n\n", markdownText(resultsText(a)))

	writeMeasured(bw, a)
	writeFindings(bw, a)
	bw.printf("## Results\n\n")
	var results []table.Table
	for _, n := range []string{"relative", "relative_qps", "noise"} {
		if t, ok := tables[n]; ok && len(t.Rows) > 0 {
			results = append(results, t)
		}
	}
	if bw.err == nil && len(results) > 0 {
		bw.err = markdownTables(w, results, 3)
	}
	bw.printf("\n")
	text := append(slices.Clone(a.Contrast), a.ReadAmpText()...)
	for _, c := range text {
		bw.printf("- %s\n", markdownText(c))
	}
	if len(text) > 0 {
		bw.printf("\n")
	}
	writeFigures(bw, a, figs)

	bw.printf("## Tables\n\nEach is also in tables/ as CSV.\n\n")
	var order []table.Table
	for _, n := range []string{"timings", "throughput", "relative_qps", "disk", "read_amplification", "io", "aios", "wal", "vacuum", "plans", "explain_analyze", "settings"} {
		if t, ok := tables[n]; ok && len(t.Rows) > 0 {
			order = append(order, t)
		}
	}
	if bw.err == nil {
		bw.err = markdownTables(w, order, 3)
	}
	return bw.err
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

// writeFindings is the report's "What the guards found".
func writeFindings(bw *errWriter, a *analyze.Analysis) {
	bw.printf("## What the guards found\n\n")
	if len(a.Findings) == 0 {
		bw.printf("Nothing: no guard fired.\n\n")
	}
	for _, f := range a.Findings {
		bw.printf("- **%s** (%s): %s\n", f.Severity, markdownText(f.Guard), markdownText(f.Message))
	}
	if len(a.Findings) > 0 {
		bw.printf("\n")
	}
}

// writeFigures shows the figures of the whole study first, then each
// test's under its name, then any other.
func writeFigures(bw *errWriter, a *analyze.Analysis, figs []Figure) {
	figure := func(f Figure) {
		bw.printf("![%s](figures/%s.svg)\n\n*%s*\n\n", markdownText(f.Title), f.Name, markdownText(f.Caption))
	}
	used := map[string]bool{}
	for _, f := range figs {
		if !strings.Contains(f.Name, "-") {
			figure(f)
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
		bw.printf("### %s\n\n", markdownText(test))
		for _, f := range mine {
			figure(f)
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
		bw.printf("### Other figures\n\n")
		for _, f := range rest {
			figure(f)
		}
	}
}

// codeText makes text safe inside a Markdown code span: one line, no
// backtick that would end it.
func codeText(s string) string {
	s = strings.Join(strings.Fields(PlainText(s)), " ")
	return strings.ReplaceAll(s, "`", "'")
}
