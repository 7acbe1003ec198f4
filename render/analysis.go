package render

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/samples/outdir"
)

// Formats are the formats an analysis is written in.
var Formats = []string{"md", "csv", "json"}

// Analysis writes an analysis to w: Markdown as one document, CSV as each
// table after a "# name" line and before a blank line, JSON as one
// document.
func Analysis(w io.Writer, format string, a *analyze.Analysis, detail bool) error {
	tables := a.Tables()
	if detail {
		tables = append(tables, a.DetailTables()...)
	}
	switch format {
	case "md":
		bw := &errWriter{w: w}
		bw.printf("# Analysis\n\n%s\n\n", markdownText(about(a)))
		if bw.err != nil {
			return bw.err
		}
		return markdownTables(w, tables, 2)
	case "csv":
		for i, t := range tables {
			if i > 0 {
				if _, err := io.WriteString(w, "\n"); err != nil {
					return err
				}
			}
			if _, err := fmt.Fprintf(w, "# %s\n", t.Name); err != nil {
				return err
			}
			if err := csvTable(w, t); err != nil {
				return err
			}
		}
		return nil
	case "json":
		return jsonTables(w, tables, map[string]any{"captures": a.Captures, "setups": a.Setups, "baseline": a.Baseline,
			"confidence": a.Confidence, "alpha": a.Alpha, "tolerance": a.Tolerance, "excluded_runs": a.Excluded})
	}
	return fmt.Errorf("unknown format %q; expected one of %s", format, strings.Join(Formats, ", "))
}

// about is the sentence that opens an analysis: what was read.
func about(a *analyze.Analysis) string {
	var caps []string
	for _, c := range a.Captures {
		caps = append(caps, fmt.Sprintf("%s (host %s, %d runs)", c.Name, c.Host, c.Runs))
	}
	s := fmt.Sprintf("Captures: %s. Baseline: %s. %d runs analysed", strings.Join(caps, ", "), a.Baseline, len(a.Runs))
	if a.Excluded > 0 {
		s += fmt.Sprintf(", %d excluded", a.Excluded)
	}
	return s + "."
}

// AnalysisDir writes an analysis into dir: analysis.md, one NAME.csv per
// table, or analysis.json. The folder is replaced whole, as Report's is.
func AnalysisDir(dir string, inputs []string, format string, a *analyze.Analysis, detail bool) (files, notes []string, err error) {
	return writeFolder(dir, outdir.Analysis, inputs, func(tmp string) error {
		if format == "csv" {
			tables := a.Tables()
			if detail {
				tables = append(tables, a.DetailTables()...)
			}
			for _, t := range tables {
				if err := writeFile(filepath.Join(tmp, t.Name+".csv"), func(w io.Writer) error { return csvTable(w, t) }); err != nil {
					return err
				}
			}
			return nil
		}
		return writeFile(filepath.Join(tmp, "analysis."+format), func(w io.Writer) error { return Analysis(w, format, a, detail) })
	})
}

// FiguresDir writes figs into dir, each as SVG and PNG; the folder is
// replaced whole, as Report's is.
func FiguresDir(dir string, inputs []string, figs []Figure, progress func(string)) (files, notes []string, err error) {
	return writeFolder(dir, outdir.Figures, inputs, func(tmp string) error {
		for i, fig := range figs {
			if progress != nil {
				progress(fmt.Sprintf("figure %d/%d: %s", i+1, len(figs), fig.Name))
			}
			if err := writeFigure(tmp, fig); err != nil {
				return fmt.Errorf("figure %s: %w", fig.Name, err)
			}
		}
		return nil
	})
}

// writeFile writes a file through a temporary file in the same folder,
// synced and renamed into place, so that a reader never sees half of it.
func writeFile(path string, write func(io.Writer) error) (err error) {
	// Not os.CreateTemp: its 0600 would stay on a report made to be
	// shared; 0644 leaves the umask its say.
	var tmp *os.File
	for range 1000 {
		name := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		if tmp, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err = write(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}
