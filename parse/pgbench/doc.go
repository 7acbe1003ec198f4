// Package pgbench reads what a pgbench run printed (9.5 to 18): its
// banner, the progress lines, the summary (transactions, latency, TPS,
// failures and retries), each script's figures and per-statement
// latencies.
//
// ParseSeq yields a record a progress line and message as it reads them,
// and the summary at the end (seq.go; JSON in json.go); Parse is the fold
// of the same reading into a Run. The parser dispatches each line
// (parser.go) to the reader of its part: the summary's keys (summary.go)
// and the scripts' (script.go) through tables of handlers, progress
// (progress.go); a line it does not understand is a Warning, and input
// that is not pgbench's, a summary cut short or two runs' summaries are
// errors.
package pgbench
