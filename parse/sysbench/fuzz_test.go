package sysbench

import (
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// seeds are the fuzzers' inputs beside the real outputs: other tests'
// intervals, --rate's queue lines, a histogram, a report without SQL.
var seeds = []string{
	"",
	"sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n",
	"[ 1s ] thds: 2 eps: 99.00 lat (ms,95%): 1.01\n[ 1s ] queue length: 0 concurrency: 1\n",
	"       value  ------------- distribution ------------- count\n       0.985 |****  150\n",
	"General statistics:\n    total time: 1s\n    total number of events: 1\nLatency (ms):\n min: 1\n avg: 1\n max: 1\n percentile stats: disabled\n sum: 1\nThreads fairness:\n events (avg/stddev): 1/0\n execution time (avg/stddev): 1/0\n",
	"FATAL: error\n",
}

func FuzzParse(f *testing.F) {
	golden.Fuzz(f, "", seeds, Parse, checkSysbench, nil)
}

// FuzzParseSeq: what ParseSeq yields folds into Parse's run, with the
// same warnings and error, and each record writes itself as
// encoding/json does.
func FuzzParseSeq(f *testing.F) {
	golden.FuzzSeq(f, "", seeds, Parse, ParseSeq, foldRecords)
}
