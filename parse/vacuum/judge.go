package vacuum

import "github.com/pgstudy/pgstudy/parse/internal/psqlloc"

// A stderr log is judged by its first lines, so that an input of another
// kind (psql's output, say, of a session or of VACUUM VERBOSE, whose
// messages have the same "INFO:  " severities) is refused there, naming
// its first line without a severity, rather than read whole (a 239 MB
// file took 9 to 16 s) for no record or for records without numbers. A
// server log writes each message with its prefix and severity, and the
// further lines of a message after a tab: a line that has neither is not
// the server's (another program's, writing to the same stderr), and rare.
// So, among the first judgedLines lines that are neither blank nor
// tab-indented, the input is not a log once
//   - lines without a severity are at least 2, and more than those with
//     one, or
//   - one has no severity while a line's severity had no prefix, or psql's
//     "psql:FILE:N: ": psql's shape, whose messages' further lines have no
//     tab (a log with an empty log_line_prefix and another program's line
//     among its first is refused too).
//
// A server log without autovacuum entries is a log: no records, no error.

// judgedLines is how many lines judge a stderr log.
const judgedLines = 64

// startJudging starts judging the lines to come, in a stderr log; out is
// stopped when they are judged not a log's.
func (lr *logReader) startJudging(stderr bool, out *output) {
	if stderr {
		lr.judge, lr.stop = judgedLines, out
	}
}

// judgeLine judges a line that is neither blank nor tab-indented: one
// with a severity (labelled), and its prefix.
func (lr *logReader) judgeLine(labelled bool, prefix []byte) {
	lr.judge--
	if labelled {
		if len(prefix) == 0 {
			lr.bare = true
		} else if _, _, _, ok := psqlloc.Cut(transient(prefix)); ok {
			lr.bare = true
		}
	} else {
		lr.unlab++
	}
	if lr.unlab >= 2 && lr.unlab > lr.logLines || lr.bare && lr.unlab > 0 {
		lr.notLog, lr.stop.stopped, lr.judge = true, true, 0
	}
}
