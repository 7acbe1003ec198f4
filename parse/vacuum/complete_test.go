package vacuum

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/parse"
)

// A record whose last line the text tells (an autovacuum or autoanalyze
// entry, 15+'s "finished vacuuming", 18's "finished analyzing table") is
// yielded as soon as that line is read: these tests feed each fixture
// through a pipe a line at a time, and wait for each such record after
// writing its last line, before writing the next; a reader that waited
// for the next line would block them for good (the timeout fails them).

// arrivalWait is how long a record may take to arrive once its last line
// is written: a reader that waits for the next line never yields it.
const arrivalWait = 10 * time.Second

// newStart matches a line that starts another record: after a record's
// first line and before its "system usage", the record does not end with
// it (13's and 14's VACUUM VERBOSE, ANALYZE VERBOSE up to 17: those wait
// for the next message, as the text cannot tell their end).
var newStart = regexp.MustCompile(`(INFO:  |"message":")(aggressively )?(vacuuming|analyzing) |automatic (aggressive )?(vacuum|analyze) |^(VACUUM|ANALYZE)$`)

// lastLines is, for each record of want read from lines, the number of the
// line that ends it (0 when the text does not tell): the first line from
// its own with "system usage: ", or for a VACUUM whose "WAL usage" comes
// after it (13's autovacuum entries), the line with that.
func lastLines(lines []string, want []Record) []int {
	ends := make([]int, len(want))
	for k, r := range want {
		wal, sys := false, false
		for n := r.Line; n <= len(lines); n++ {
			s := lines[n-1]
			if n > r.Line && newStart.MatchString(s) {
				break
			}
			wal = wal || strings.Contains(s, "WAL usage: ")
			sys = sys || strings.Contains(s, "system usage: ")
			if sys && (wal || r.Operation == "analyze") {
				ends[k] = n
				break
			}
		}
	}
	return ends
}

// checkArrivals feeds file to seq through a pipe a line at a time and
// checks that each record that lastLines says ends at line n is yielded
// before line n+1 is written, and that all are whole's.
func checkArrivals(t *testing.T, seq seqReader, whole wholeReader, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := whole(bytes.NewReader(data), file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	ends := lastLines(lines, want)
	pr, pw := io.Pipe()
	got := make(chan Record, len(want)+1)
	var readErr error
	go func() {
		defer close(got)
		for r, err := range seq(pr, file, nil) {
			if err != nil {
				readErr = err
				return
			}
			got <- r
		}
	}()
	defer func() {
		pr.Close()
		for range got {
		}
		if readErr != nil && !t.Failed() {
			t.Errorf("%s: %v", file, readErr)
		}
	}()
	next, early := 0, 0 // the next record expected; those whose end was tested
	for n, l := range lines {
		if _, err := io.WriteString(pw, l); err != nil {
			t.Fatal(err)
		}
		for k := next; k < len(want); k++ {
			if ends[k] != n+1 {
				continue
			}
			for ; next <= k; next++ {
				select {
				case r, ok := <-got:
					if !ok || !reflect.DeepEqual(r, want[next]) {
						t.Fatalf("%s: record %d (line %d) is not the one read whole: %+v", file, next, want[next].Line, r)
					}
				case <-time.After(arrivalWait):
					t.Fatalf("%s: record %d (line %d) not yielded after its last line %d", file, next, want[next].Line, n+1)
				}
			}
			early++
		}
	}
	pw.Close()
	for ; next < len(want); next++ {
		if r, ok := <-got; !ok || !reflect.DeepEqual(r, want[next]) {
			t.Fatalf("%s: record %d at the end is not the one read whole: %+v", file, next, r)
		}
	}
	if _, ok := <-got; ok {
		t.Fatalf("%s: more records than read whole", file)
	}
	t.Logf("%s: %d records, %d yielded at their last line", file, len(want), early)
	if early == 0 {
		t.Errorf("%s: no record whose last line is known", file)
	}
}

func fixtures(t *testing.T, pattern string) []string {
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures %s: %v", pattern, err)
	}
	return files
}

func TestEntryYieldedAtItsLastLine(t *testing.T) {
	var files []string
	for _, p := range []string{"autovacuum/pg1?-autovacuum.log", "logformats/pg1?-logformats.log", "logformats/pg1?-logformats.csv",
		"logformats/pg1?-logformats.json", "logformats/pg1?-logformats.syslog", "logformats/pg1?-logformats.journal",
		"logformats/pg1?-logformats.journal-iso"} {
		files = append(files, fixtures(t, filepath.Join("testdata", p))...)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { checkArrivals(t, AutovacuumSeq, Autovacuum, f) })
	}
}

func TestVerboseYieldedAtItsLastLine(t *testing.T) {
	for _, f := range fixtures(t, "testdata/verbose/pg1[5-8]-*.psql.txt") {
		t.Run(filepath.Base(f), func(t *testing.T) { checkArrivals(t, ParseSeq, Parse, f) })
	}
	for _, f := range fixtures(t, "testdata/verbose/pg1[5-8]-*.notices.jsonl") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			checkArrivals(t, NoticesSeq, func(r io.Reader, source string) ([]Record, []parse.Warning, error) {
				ns, err := ReadNotices(r, source)
				if err != nil {
					return nil, nil, err
				}
				return Notices(ns, source)
			}, f)
		})
	}
}
