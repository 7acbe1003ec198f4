package pgbench

import (
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// seeds are the fuzzers' inputs beside the real outputs: the other
// versions' wordings, a progress line's options, cut summaries.
var seeds = []string{
	"",
	"starting vacuum...end.\n",
	"progress: 1.0 s, 100.0 tps, lat 9.950 ms stddev -nan, lag 0.100 ms, 4 skipped\n",
	"pgbench (17.2, server 15.4)\nRun was aborted; the above results are incomplete.\n",
	"transaction type: x\nscaling factor: 1\nquery mode: simple\nnumber of clients: 1\nnumber of threads: 1\nnumber of transactions actually processed: 0/10\n",
	"tps = 485.143289 (including connections establishing)\ntps = 496.476346 (excluding connections establishing)\n",
	"statement latencies in milliseconds:\n         0.003  \\set aid random(1, 100000 * :scale)\n",
	"SQL script 1: a\n - 5 transactions (50.0% of total)\n",
}

func FuzzParse(f *testing.F) {
	golden.Fuzz(f, "", seeds, Parse, checkPgbench, nil)
}

// FuzzParseSeq: what ParseSeq yields folds into Parse's run, with the
// same warnings and error, and each record writes itself as
// encoding/json does.
func FuzzParseSeq(f *testing.F) {
	golden.FuzzSeq(f, "", seeds, Parse, ParseSeq, foldRecords)
}
