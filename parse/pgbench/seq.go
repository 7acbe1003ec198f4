package pgbench

import (
	"io"
	"iter"

	"github.com/pgstudy/pgstudy/parse"
)

// Kind says what a Record is.
type Kind string

const (
	// KindProgress is a -P line, in Record.Progress.
	KindProgress Kind = "progress"
	// KindMessage is a line pgbench logged, in Record.Text.
	KindMessage Kind = "message"
	// KindSummary is the run's banner and summary, in Record.Run, yielded
	// at the end of the input once the checks of the whole run pass.
	KindSummary Kind = "summary"
)

// Record is one record of ParseSeq: a progress line or a message as it is
// read, or, last, the run's summary. Kind says which of its fields is
// set. In JSON it is one flat object, "kind" and "line" and then the
// fields of its part (json.go): a progress line's are Progress's, a
// message's "text", the summary's Run's (without the rows, which came as
// records), so that a table loaded from the records of `pgstudy parse
// pgbench --format jsonl` has a column a field and a row a record.
type Record struct {
	Kind Kind
	// Line is the line the record was read from; for the summary, the
	// banner's (the first line pgbench prints on stdout), or the
	// summary's first when there is no banner, or the line that says the
	// run was aborted when there is neither.
	Line     int
	Progress Progress // KindProgress
	Text     string   // KindMessage: the line as pgbench logged it
	// Run is the summary's: Version, ServerVersion, Summary and Aborted;
	// its Progress and Messages are empty, as they came as records.
	Run *Run
}

// ParseSeq reads what a pgbench run printed as Parse does, but yields
// each progress line and message as it reads it, and the summary at the
// end, holding one line and the summary: a run of any length reads in
// the memory of its longest line and its summary. Parse is the fold of
// the same reading. The summary is yielded when the input has one (or a
// banner, or says the run was aborted: stderr alone, without any of
// them, gives no summary record), after the checks of the whole input
// (a summary cut short is the sequence's last error, naming the file and
// the line, after the records read before it). Lines not understood go
// to warn (when not nil) as they come; those before the first line of
// pgbench's wait for it (parse.Judged of them refuse the input at once),
// so that input that is not pgbench's gives its warnings and then its
// error, the last pair. A consumer that stops ends the reading.
func ParseSeq(r io.Reader, source string, warn func(parse.Warning)) iter.Seq2[Record, error] {
	return parse.StepSeq(func() parse.Stepper[Record] { return newReader(r, source, 0) }, warn)
}

// reader reads a pgbench output a line at a time, for ParseSeq and Parse:
// each Next stops at a record or at a line not understood, and at the
// end after the summary; an error (the reader's, a second run, a summary
// cut short) ends it.
type reader struct {
	l     *parse.Lines
	p     parser
	limit int64 // Parse's: the bytes it reads at most; 0 for no limit
	done  bool
	err   error
}

func newReader(r io.Reader, source string, limit int64) *reader {
	return &reader{l: parse.NewLines(r, source), p: parser{source: source, seen: map[string]int{}}, limit: limit}
}

// Next advances to the next record or warning; false at the end or on
// an error (End).
func (r *reader) Next() bool {
	p := &r.p
	p.has, p.isWarn = false, false
	for !r.done && r.l.Next() {
		if r.limit > 0 && r.l.Offset() > r.limit {
			r.done, r.err = true, parse.HeldTooLong(p.source, r.l.Line(), "pgbench")
			return false
		}
		if err := p.lineBytes(r.l.Line(), r.l.Bytes()); err != nil {
			r.done, r.err = true, err
			// Two runs appended to one file: the first run's summary, when
			// whole, is a record before the error.
			return p.second && p.finish(r.l.Line()-1) == nil && p.summaryRecord()
		}
		if p.has || p.isWarn {
			return true
		}
	}
	if r.done {
		return false
	}
	r.done = true
	if r.err = r.l.Err(); r.err == nil {
		r.err = p.finish(r.l.Line())
	}
	return r.err == nil && p.summaryRecord()
}

// Record, Warning, Started and End make the reader a parse.Stepper.
func (r *reader) Record() Record     { return r.p.rec }
func (r *reader) Started() bool      { return r.p.known > 0 }
func (r *reader) End() error         { return r.err }
func (r *reader) Refuse(n int) error { return r.p.refuse(n) }

func (r *reader) Warning() *parse.Warning {
	if r.p.isWarn {
		return &r.p.w
	}
	return nil
}
