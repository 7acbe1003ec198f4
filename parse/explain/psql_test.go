package explain

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// psqlAligned renders output as psql's default aligned format
// prints a one-column result named "QUERY PLAN": a JSON document is one row
// whose continued lines end in "+", text is one row per line.
func psqlAligned(out string, oneRow bool) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	width := len("QUERY PLAN")
	for _, l := range lines {
		width = max(width, utf8.RuneCountInString(l))
	}
	var b strings.Builder
	pad := width - len("QUERY PLAN")
	fmt.Fprintf(&b, " %s%s%s \n", strings.Repeat(" ", pad/2), "QUERY PLAN", strings.Repeat(" ", pad-pad/2))
	b.WriteString(strings.Repeat("-", width+2) + "\n")
	for i, l := range lines {
		if oneRow && i < len(lines)-1 {
			fmt.Fprintf(&b, " %s%s+\n", l, strings.Repeat(" ", width-utf8.RuneCountInString(l)))
		} else {
			fmt.Fprintf(&b, " %s\n", l)
		}
	}
	rows := len(lines)
	if oneRow {
		rows = 1
	}
	if rows == 1 {
		b.WriteString("(1 row)\n\n")
	} else {
		fmt.Fprintf(&b, "(%d rows)\n\n", rows)
	}
	return b.String()
}

// TestPsqlFormats checks that psql's aligned and unaligned output
// (with header and footer) parse as the raw output does.
func TestPsqlFormats(t *testing.T) {
	files := append(golden.Files(t, "", "pg*.json"), golden.Files(t, "", "pg*.txt")...)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		raw := string(data)
		want, _, err := parseString(f, raw)
		if err != nil {
			t.Fatal(err)
		}
		isJSON := strings.HasSuffix(f, ".json")
		lines := strings.Count(strings.TrimRight(raw, "\n"), "\n") + 1
		footer := fmt.Sprintf("(%d rows)", lines)
		if isJSON {
			footer = "(1 row)"
		}
		for name, in := range map[string]string{
			"aligned":   psqlAligned(raw, isJSON),
			"unaligned": "QUERY PLAN\n" + strings.TrimRight(raw, "\n") + "\n" + footer + "\n",
			"CRLF":      strings.ReplaceAll(psqlAligned(raw, isJSON), "\n", "\r\n"),
		} {
			got, warns, err := parseString(f, in)
			if err != nil || len(warns) > 0 {
				t.Errorf("%s %s: %v %v\n%s", f, name, err, warns, in)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: differs from the raw output's plan", f, name)
			}
		}
	}
}

// TestPsqlAlignedReal parses psql 15's aligned output of a
// PostgreSQL 18 server, as a user would paste it.
func TestPsqlAlignedReal(t *testing.T) {
	const aligned = `                                                                       QUERY PLAN                                                                       
--------------------------------------------------------------------------------------------------------------------------------------------------------
 Finalize Aggregate  (cost=23644.22..23644.23 rows=1 width=16) (actual time=250.548..262.949 rows=1.00 loops=1)
   Buffers: shared hit=3938 read=12456
   I/O Timings: shared read=205.064
   ->  Gather  (cost=23644.00..23644.21 rows=2 width=16) (actual time=238.751..262.932 rows=3.00 loops=1)
         Workers Planned: 2
         Workers Launched: 2
         Buffers: shared hit=3938 read=12456
         I/O Timings: shared read=205.064
         ->  Partial Aggregate  (cost=22644.00..22644.01 rows=1 width=16) (actual time=202.995..202.997 rows=1.00 loops=3)
               Buffers: shared hit=3938 read=12456
               I/O Timings: shared read=205.064
               ->  Parallel Seq Scan on pgbench_accounts  (cost=0.00..20560.67 rows=416667 width=4) (actual time=2.720..155.920 rows=333333.33 loops=3)
                     Buffers: shared hit=3938 read=12456
                     I/O Timings: shared read=205.064
 Settings: enable_indexscan = 'off', enable_indexonlyscan = 'off', enable_bitmapscan = 'off'
 Planning:
   Buffers: shared hit=60
 Planning Time: 1.457 ms
 Execution Time: 263.241 ms
(19 rows)

`
	p, warns, err := Text(strings.NewReader(aligned), "pasted")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %v", err, warns)
	}
	if got, want := p.Shape(), "Finalize Aggregate > Gather > Partial Aggregate > Parallel Seq Scan on pgbench_accounts"; got != want {
		t.Errorf("shape %q, want %q", got, want)
	}
	scan := collectNodes(p.Root)[3]
	if scan.ActualRows != parse.Some(333333.33) || scan.SharedReadBlocks != parse.Some[int64](12456) || scan.SharedIOReadTimeMs != parse.Some(205.064) || p.ExecutionTimeMs != parse.Some(263.241) || len(p.Settings) != 3 {
		t.Errorf("plan %s", jsonString(p))
	}

	const alignedJSON = `                       QUERY PLAN                       
--------------------------------------------------------
 [                                                     +
   {                                                   +
     "Plan": {                                         +
       "Node Type": "Seq Scan",                        +
       "Parallel Aware": false,                        +
       "Relation Name": "t",                           +
       "Alias": "t",                                   +
       "Actual Rows": 2.00,                            +
       "Actual Loops": 1                               +
     },                                                +
     "Execution Time": 0.5                             +
   }                                                   +
 ]
(1 row)

`
	p, warns, err = JSON(strings.NewReader(alignedJSON), "pasted.json")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %v", err, warns)
	}
	if p.Shape() != "Seq Scan on t" || p.Root.ActualRows != parse.Some(2.0) || p.ExecutionTimeMs != parse.Some(0.5) {
		t.Errorf("plan %s", jsonString(p))
	}
	// An error names the line of the pasted text.
	broken := strings.Replace(alignedJSON, `"Alias": "t",`, `"Alias": "t"; `, 1)
	_, _, err = JSON(strings.NewReader(broken), "pasted.json")
	if want := "pasted.json:9: invalid character ';' after object key:value pair"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
