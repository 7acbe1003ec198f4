// Package sysbench reads what a sysbench run printed: its banner and
// options, the interval lines (--report-interval), and the final report
// (SQL statistics, latency, the histogram, threads fairness).
//
// ParseSeq yields a record an interval line and message as it reads them,
// and the header and report at the end (seq.go; JSON in json.go); Parse
// is the fold of the same reading into a Run. The parser (parser.go) reads
// the header, then each interval line (interval.go), then the report's
// sections (report.go); a line it does not understand is a Warning, and
// input that is not sysbench's, a missing or cut-short report, numbers
// that disagree and two reports are errors.
package sysbench
