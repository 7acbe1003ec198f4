package render

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/table"
	"github.com/pgstudy/pgstudy/samples/outdir"
)

// Formats are the formats an analysis is written in.
var Formats = []string{"md", "csv", "json", "benchfmt"}

// Tables says which tables an analysis is written with.
type Tables struct {
	Detail bool     // the tables of every run and every sampled interval too
	Only   []string // these tables only, in this order, even if empty; none is all
}

// TableNames are the names of every table analyze can write, for --table.
func TableNames() []string {
	var names []string
	for _, t := range analyze.EveryTable() {
		names = append(names, t.Name)
	}
	return names
}

// CheckTables says what is wrong with a selection before any analysis: a
// name that is no table, or CSV on standard output (toStdout) with other
// than one table, which would glue tables of different columns into one
// stream that no CSV reader reads.
func CheckTables(sel Tables, format string, toStdout bool) error {
	names := TableNames()
	for _, n := range sel.Only {
		if !slices.Contains(names, n) {
			return fmt.Errorf("--table %q: no such table; expected one of %s", n, strings.Join(names, ", "))
		}
	}
	if format == "csv" && toStdout && len(sel.Only) != 1 {
		return fmt.Errorf("CSV on standard output holds one table: add --table NAME (one of %s), or write one file per table with -o DIR", strings.Join(names, ", "))
	}
	return nil
}

// tablesOf are the analysis's tables as selected: a selected table the
// analysis does not have is written empty, with its columns, so that a
// script that asks for it always gets the same columns.
func tablesOf(a *analyze.Analysis, sel Tables) []table.Table {
	tables := a.Tables()
	if sel.Detail || len(sel.Only) > 0 {
		tables = append(tables, a.DetailTables()...)
	}
	if len(sel.Only) == 0 {
		return tables
	}
	var out []table.Table
	for _, n := range sel.Only {
		i := slices.IndexFunc(tables, func(t table.Table) bool { return t.Name == n })
		if i >= 0 {
			out = append(out, tables[i])
			continue
		}
		for _, t := range analyze.EveryTable() {
			if t.Name == n {
				out = append(out, t)
			}
		}
	}
	return out
}

// Analysis writes an analysis to w: Markdown as one document, CSV as one
// table (CheckTables), JSON as one document with the metadata of the
// export contract (ExportSchema).
func Analysis(w io.Writer, format string, a *analyze.Analysis, sel Tables) error {
	tables := tablesOf(a, sel)
	switch format {
	case "md":
		d := doc{heading{1, words("Analysis")}, paragraph{words("%s", about(a))}}
		if err := d.tables(tables, 2); err != nil {
			return err
		}
		return d.markdown(w)
	case "csv":
		if len(tables) != 1 {
			return fmt.Errorf("CSV holds one table, and %d are selected", len(tables))
		}
		return csvTable(w, tables[0])
	case "benchfmt":
		return benchfmt(w, a)
	case "json":
		meta, err := metaFields(metaOf(a))
		if err != nil {
			return err
		}
		return jsonTables(w, tables, meta)
	}
	return fmt.Errorf("unknown format %q; expected one of %s", format, strings.Join(Formats, ", "))
}

// metaFields are the metadata's fields as the JSON export writes them.
func metaFields(m any) (map[string]any, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	out := make(map[string]any, len(raw))
	for k, v := range raw {
		out[k] = v
	}
	return out, nil
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
func AnalysisDir(dir string, inputs []string, format string, a *analyze.Analysis, sel Tables) (files, notes []string, err error) {
	return writeFolder(dir, outdir.Analysis, inputs, func(tmp string) error {
		if format == "csv" {
			for _, t := range tablesOf(a, sel) {
				if err := writeFile(filepath.Join(tmp, t.Name+".csv"), func(w io.Writer) error { return csvTable(w, t) }); err != nil {
					return err
				}
			}
			return nil
		}
		name := "analysis." + format
		if format == "benchfmt" {
			name = "analysis.txt"
		}
		return writeFile(filepath.Join(tmp, name), func(w io.Writer) error { return Analysis(w, format, a, sel) })
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
