package parse_test

import (
	"io"
	"iter"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/cgroupio"
	"github.com/pgstudy/pgstudy/parse/diskstats"
	"github.com/pgstudy/pgstudy/parse/hostfacts"
	"github.com/pgstudy/pgstudy/parse/parsetest"
	"github.com/pgstudy/pgstudy/parse/pgbench"
	"github.com/pgstudy/pgstudy/parse/procstat"
	"github.com/pgstudy/pgstudy/parse/sysbench"
	"github.com/pgstudy/pgstudy/parse/vacuum"
)

// TestLongLineWarningBounded: a line of 1 MiB that a streaming parser does
// not understand, put as line 2 of a real file of its kind, is a warning
// at line 2 whose Text is its first KiB and says how long it was: before,
// the warning held the whole line, and a file of such lines made the
// warnings cost what the file did.
func TestLongLineWarningBounded(t *testing.T) {
	const n = 1 << 20
	for _, tc := range []struct {
		name, fixture, long string
		warns               func(io.Reader) ([]parse.Warning, error)
	}{
		{"autovacuum", "vacuum/testdata/autovacuum/pg18-autovacuum.log", "\t" + strings.Repeat("x", n), nil},
		{"diskstats", "diskstats/testdata/linux-6.18.txt", strings.Repeat("x", n),
			func(r io.Reader) ([]parse.Warning, error) { _, w, err := diskstats.Parse(r, "in"); return w, err }},
		{"cgroupio v2", "cgroupio/testdata/v2/kernel-doc.txt", strings.Repeat("x", n),
			func(r io.Reader) ([]parse.Warning, error) { _, w, err := cgroupio.ParseIOStat(r, "in"); return w, err }},
		{"cgroupio v1", "cgroupio/testdata/v1/dd-io_service_bytes.txt", strings.Repeat("x", n),
			func(r io.Reader) ([]parse.Warning, error) { _, w, err := cgroupio.ParseRWStat(r, "in"); return w, err }},
		{"procstat", "procstat/testdata/linux-6.18.txt", strings.Repeat("x", n),
			func(r io.Reader) ([]parse.Warning, error) { _, w, err := procstat.Parse(r, "in"); return w, err }},
		{"meminfo", "hostfacts/testdata/meminfo/linux-6.18.txt", strings.Repeat("x", n),
			func(r io.Reader) ([]parse.Warning, error) { _, w, err := hostfacts.Meminfo(r, "in"); return w, err }},
		{"cpuinfo", "hostfacts/testdata/cpuinfo/linux-6.18.txt", strings.Repeat("x", n),
			func(r io.Reader) ([]parse.Warning, error) { _, w, err := hostfacts.CPUInfo(r, "in"); return w, err }},
		{"osrelease", "hostfacts/testdata/osrelease/debian-12.txt", strings.Repeat("x", n),
			func(r io.Reader) ([]parse.Warning, error) { _, w, err := hostfacts.OSRelease(r, "in"); return w, err }},
		{"pgbench", "pgbench/testdata/tpcb-r.stderr.txt", "progress: " + strings.Repeat("x", n),
			func(r io.Reader) ([]parse.Warning, error) { _, w, err := pgbench.Parse(r, "in"); return w, err }},
		{"sysbench", "sysbench/testdata/oltp-point-select.txt", strings.Repeat("x", n),
			func(r io.Reader) ([]parse.Warning, error) { _, w, err := sysbench.Parse(r, "in"); return w, err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := os.ReadFile(tc.fixture)
			if err != nil {
				t.Fatal(err)
			}
			first, rest, _ := strings.Cut(string(b), "\n")
			line := 2
			if tc.name == "autovacuum" {
				// Within the first autovacuum entry (line 6), after its
				// first summary line.
				lines := strings.SplitAfter(string(b), "\n")
				first, rest, line = strings.Join(lines[:7], ""), strings.Join(lines[7:], ""), 8
				first = strings.TrimSuffix(first, "\n")
				tc.warns = func(r io.Reader) ([]parse.Warning, error) {
					_, w, err := parsetest.Drain(func(warn func(parse.Warning)) iter.Seq2[vacuum.Record, error] {
						return vacuum.AutovacuumSeq(r, "in", warn)
					})
					return w, err
				}
			}
			warns, err := tc.warns(strings.NewReader(first + "\n" + tc.long + "\n" + rest))
			if err != nil {
				t.Fatal(err)
			}
			var w *parse.Warning
			for i := range warns {
				if warns[i].Line == line {
					w = &warns[i]
				}
			}
			if w == nil {
				t.Fatalf("no warning at line %d: %v", line, warns)
			}
			quoted := strings.TrimPrefix(tc.long, "\t") // a server log's continuation is quoted without its tab
			want := quoted[:parse.MaxExcerpt] + "... [cut: a line of " + strconv.Itoa(len(quoted)) + " bytes]"
			if w.Text != want {
				t.Errorf("warning text of %d bytes, ending %q; want %d bytes, ending %q",
					len(w.Text), w.Text[max(0, len(w.Text)-40):], len(want), want[len(want)-40:])
			}
		})
	}
}
