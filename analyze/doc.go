// Package analyze turns captures into results: statistics of the timings
// against a baseline, disk figures with iostat's definitions, vacuum and
// WAL figures, plans, settings that differ, the guards that catch a bad
// study, and the series each figure of a report draws, so that render
// only draws. It reads captures through samples and their raw text
// through parse; it never runs anything a capture holds.
//
// Analyze goes through these steps:
//
//  1. loadCapture (load.go, loaddisk.go) reads each capture's tables,
//     decodes the study it stored (study.go, through samples/study) and
//     makes one Run per run: its time, disk counters over the timed
//     statement, statistics deltas, plan, vacuum figures, the server's
//     own I/O from its cgroup's counters (attribution.go), each from the
//     raw text through a parser of parse; what a parser warns of is kept
//     for a finding.
//  2. addCapture keeps the runs the exclusions and rounds leave, one host
//     per capture (two of one host stay apart).
//  3. Groups per host, test and configuration: timings with their
//     intervals and ratios to the baseline (timing.go, through stats),
//     throughput (throughput.go), disk figures (disk.go, through iostat;
//     the limits held against them, declared or measured: ceiling.go),
//     vacuum and WAL (vacuum.go, io.go), plans (plans.go), settings that
//     differ (settings.go); per run, pg_aios's I/O in flight (aios.go)
//     and EXPLAIN ANALYZE's figures (explainanalyze.go).
//  4. The guards (guards.go and the files beside what they read) turn
//     what looks wrong into findings, each with its runs.
//  5. On demand: Tables (tables.go) gives every result as a table.Table,
//     and the figure series (figures.go, sweep.go, units.go) what each
//     figure draws.
package analyze
