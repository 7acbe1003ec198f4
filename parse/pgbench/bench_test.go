package pgbench

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// BenchmarkParse parses an hour's worth of a -P 1 run, made from the
// real lines of the tpcb-r fixture: the banner, 3600 progress lines (the
// fixture's five in turn, their times renumbered 1.0 s to 3600.0 s) and the
// -r summary.
func BenchmarkParse(b *testing.B) {
	stdout, err1 := os.ReadFile("testdata/tpcb-r.stdout.txt")
	stderr, err2 := os.ReadFile("testdata/tpcb-r.stderr.txt")
	if err1 != nil || err2 != nil {
		b.Fatal(err1, err2)
	}
	var progress []string
	for _, l := range strings.Split(string(stderr), "\n") {
		if _, rest, ok := strings.Cut(l, " s, "); ok && strings.HasPrefix(l, "progress: ") {
			progress = append(progress, rest)
		}
	}
	var in bytes.Buffer
	for i := 1; i <= 3600; i++ {
		fmt.Fprintf(&in, "progress: %d.0 s, %s\n", i, progress[i%len(progress)])
	}
	in.Write(stdout)
	golden.Bench(b, in.Bytes())
	for b.Loop() {
		run, warns, err := Parse(bytes.NewReader(in.Bytes()), "bench")
		if err != nil || len(warns) > 0 || len(run.Progress) != 3600 || run.Summary == nil {
			b.Fatal(err, warns)
		}
	}
}
