// Command gencapture writes a synthetic capture for measuring the analysis
// (scripts/measure-analyze):
//
//	go run ./analyze/internal/gencapture/cmd/gencapture -runs 100000 -runs-per-part 1000 -o DIR
//
// It is internal to the analysis's benchmarks: not a pgstudy command.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/pgstudy/pgstudy/analyze/internal/gencapture"
)

func main() {
	var opt gencapture.Options
	var out string
	flag.IntVar(&opt.Runs, "runs", 1000, "timed runs")
	flag.IntVar(&opt.Samples, "samples", 10, "diskstats snapshots during each run, besides before and after (-1: none)")
	flag.IntVar(&opt.RunsPerPart, "runs-per-part", 1, "runs committed together as one part per table (1: a part per run, as collect writes)")
	flag.Uint64Var(&opt.Seed, "seed", 1, "seed of the numbers")
	flag.BoolVar(&opt.Settings, "settings", false, "also the servers row and pg_settings per configuration and round, as collect reads them")
	flag.BoolVar(&opt.NoFacts, "no-facts", false, "leave out the runs' facts, as collectors before them did (the analysis computes them)")
	flag.StringVar(&opt.Host, "host", "", "the machine's hostname the capture records (default bench-vm-1)")
	flag.StringVar(&out, "o", "", "capture folder to create (empty or absent)")
	flag.Parse()
	if out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gencapture [-runs N] [-samples N] [-runs-per-part N] [-seed N] [-settings] [-host NAME] -o DIR")
		os.Exit(2)
	}
	start := time.Now()
	if err := gencapture.Generate(out, opt); err != nil {
		fmt.Fprintln(os.Stderr, "gencapture:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "gencapture: %d runs in %s (%.1f s)\n", opt.Runs, out, time.Since(start).Seconds())
}
