package sysbench

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// BenchmarkParse parses an hour's worth of a --report-interval=1 run,
// made from the real lines of the oltp-read-write-t4 fixture: its header,
// 3600 interval lines (the fixture's five in turn, their times renumbered
// 1s to 3600s) and its report.
func BenchmarkParse(b *testing.B) {
	real, err := os.ReadFile("testdata/oltp-read-write-t4.txt")
	if err != nil {
		b.Fatal(err)
	}
	var head, tail bytes.Buffer
	var intervals []string
	for _, l := range strings.SplitAfter(string(real), "\n") {
		switch _, rest, ok := strings.Cut(l, "s ] "); {
		case ok && strings.HasPrefix(l, "[ "):
			intervals = append(intervals, rest)
		case len(intervals) == 0:
			head.WriteString(l)
		default:
			tail.WriteString(l)
		}
	}
	in := head
	for i := 1; i <= 3600; i++ {
		fmt.Fprintf(&in, "[ %ds ] %s", i, intervals[i%len(intervals)])
	}
	in.Write(tail.Bytes())
	golden.Bench(b, in.Bytes())
	for b.Loop() {
		run, warns, err := Parse(bytes.NewReader(in.Bytes()), "bench")
		if err != nil || len(warns) > 0 || len(run.Intervals) != 3600 {
			b.Fatal(err, warns)
		}
	}
}
