package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
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

// TestParseOutputUnwritable: a result JSON cannot hold (a NaN a parser let
// through) is that file's error, in both formats, and the files after it
// are written: it was a write error, which ended parse with no file named
// and lost every file's output. A NaN in a parse.Opt (b's) is told as one
// in a float64 is.
func TestParseOutputUnwritable(t *testing.T) {
	nan := map[string]float64{"rows": math.NaN()}
	optNaN := map[string]parse.Opt[float64]{"rows": parse.Some(math.NaN())}
	good := map[string]float64{"rows": 1}
	for _, format := range []string{"json", "jsonl"} {
		var out, errs bytes.Buffer
		o := newParseOutput(streams{out: &out, err: &errs}, format, nil)
		var fileErrs []error
		for _, f := range []struct {
			name string
			v    any
		}{{"a", good}, {"nan", nan}, {"b", []any{good, optNaN}}, {"c", good}} {
			readErr, writeErr := o.whole(f.name, f.v, nil, nil)
			if writeErr != nil {
				t.Fatalf("%s %s: write error %v", format, f.name, writeErr)
			}
			fileErrs = append(fileErrs, readErr)
		}
		if err := o.close(); err != nil {
			t.Fatal(err)
		}
		want := []string{"", "nan: its result holds a value JSON cannot hold (json: unsupported value: NaN); nothing of it is written", "", ""}
		if format == "jsonl" {
			want[2] = "b: record 2 holds a value JSON cannot hold (json: unsupported value: NaN); the records before it are written"
		} else {
			want[2] = "b: its result holds a value JSON cannot hold (json: unsupported value: NaN); nothing of it is written"
		}
		for i, err := range fileErrs {
			if got := fmt.Sprint(err); err == nil && want[i] != "" || err != nil && got != want[i] {
				t.Errorf("%s: file %d: error %v; want %q", format, i+1, err, want[i])
			}
		}
		var files []string
		if format == "json" {
			var doc []parsed
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatalf("json: %v: %s", err, out.String())
			}
			for _, p := range doc {
				files = append(files, p.File+":"+p.Error)
			}
			if len(doc) != 4 || doc[1].Error != want[1] || doc[2].Error != want[2] || doc[3].File != "c" {
				t.Errorf("json: results %q", files)
			}
		} else if got := out.String(); got != "{\"file\":\"a\",\"record\":{\"rows\":1}}\n{\"file\":\"b\",\"record\":{\"rows\":1}}\n{\"file\":\"c\",\"record\":{\"rows\":1}}\n" {
			t.Errorf("jsonl: %q", got)
		}
	}
}
