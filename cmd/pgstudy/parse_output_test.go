package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseOutputAppendJSON: the records that write themselves
// (vacuum.Record, diskstats.Counters, psql.Record, pgbench.Record and
// sysbench.Record, through AppendJSON) give the bytes encoding/json gave,
// in both formats, on every fixture of the kinds that stream them, two
// files at a time (the second file's name starts its lines).
func TestParseOutputAppendJSON(t *testing.T) {
	glob := func(pattern string) []string {
		all, err := filepath.Glob(filepath.Join("../../parse", pattern))
		var files []string
		for _, f := range all {
			if !strings.HasSuffix(f, ".golden.json") && !strings.HasSuffix(f, ".sh") && !strings.HasSuffix(f, ".md") {
				files = append(files, f)
			}
		}
		if err != nil || len(files) == 0 {
			t.Fatalf("no fixture %s: %v", pattern, err)
		}
		return files
	}
	kinds := map[string][]string{
		"vacuum":         glob("vacuum/testdata/verbose/*.psql.txt"),
		"vacuum-notices": glob("vacuum/testdata/verbose/*.notices.jsonl"),
		"autovacuum-log": append(glob("vacuum/testdata/autovacuum/*.log"), glob("vacuum/testdata/logformats/*")...),
		"diskstats":      glob("diskstats/testdata/*.txt"),
		"psql":           glob("psql/testdata/*.txt"),
		"pgbench":        glob("pgbench/testdata/*.txt"),
		"sysbench":       glob("sysbench/testdata/*.txt"),
	}
	records, devices, statements, rows := 0, 0, 0, 0
	for kind, files := range kinds {
		for i, f := range files {
			pair := []string{f, files[(i+1)%len(files)]}
			for _, format := range []string{"json", "jsonl"} {
				want := writeParsed(t, kind, format, pair, true)
				records += strings.Count(want, `"operation":`)
				devices += strings.Count(want, `"major":`)
				statements += strings.Count(want, `"statement":{`) + strings.Count(want, `"statement": {`)
				rows += strings.Count(want, `"time_s":`) // pgbench's progress lines, sysbench's intervals
				if got := writeParsed(t, kind, format, pair, false); got != want {
					t.Errorf("%s --format %s %s: AppendJSON differs from encoding/json:\n%.600s\nwant\n%.600s", kind, format, pair, got, want)
				}
			}
		}
	}
	if records < 1000 || devices < 100 || statements < 100 || rows < 100 {
		t.Errorf("%d vacuum records, %d device lines, %d psql statements and %d pgbench and sysbench rows compared; want the fixtures' (over 1000, 100, 100 and 100)",
			records, devices, statements, rows)
	}
}

// writeParsed is the output of pgstudy parse kind --format format files,
// its records written by encoding/json or by their AppendJSON.
func writeParsed(t *testing.T, kind, format string, files []string, encodingJSON bool) string {
	t.Helper()
	var out, errs bytes.Buffer
	o := newParseOutput(streams{out: &out, err: &errs}, format, nil)
	o.encodingJSON = encodingJSON
	p := parsers[kind]
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		r, _, done, err := openParsed("-", input{r: f}, p.compressed, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, werr := o.stream(name, p.stream(r.r, name, o.warn))
		done()
		f.Close()
		if werr != nil {
			t.Fatal(werr)
		}
	}
	if err := o.close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}
