package sysbench

import (
	"io"
	"iter"

	"github.com/pgstudy/pgstudy/parse"
)

// Kind says what a Record is.
type Kind string

const (
	// KindInterval is a --report-interval line (with the queue length
	// line that follows it with --rate), in Record.Interval.
	KindInterval Kind = "interval"
	// KindMessage is a FATAL, ALERT or WARNING line, in Record.Text.
	KindMessage Kind = "message"
	// KindSummary is the run's header and final report, in Record.Run,
	// yielded at the end of the input once the checks of the whole run
	// pass.
	KindSummary Kind = "summary"
)

// Record is one record of ParseSeq: an interval or a message as it is
// read, or, last, the run's header and report. Kind says which of its
// fields is set. In JSON it is one flat object, "kind" and "line" and
// then the fields of its part (json.go): an interval's are Interval's, a
// message's "text", the summary's Run's (without the rows, which came as
// records), so that a table loaded from the records of `pgstudy parse
// sysbench --format jsonl` has a column a field and a row a record.
type Record struct {
	Kind Kind
	// Line is the line the record was read from; for the summary, the
	// banner's, or the report's first when there is no banner.
	Line     int
	Interval Interval // KindInterval
	Text     string   // KindMessage: the line as sysbench printed it
	// Run is the header and the report: its Intervals and Messages are
	// empty, as they came as records.
	Run *Run
}

// ParseSeq reads what a sysbench run printed as Parse does, but yields
// each interval and message as it reads it (an interval once the next
// line shows whether a queue length line completes it), and the header
// and report at the end, holding one line and the report: a run of any
// length reads in the memory of its longest line and its report. Parse is
// the fold of the same reading. The checks of the whole run (a report
// missing, cut short, or whose totals disagree) are the sequence's last
// error, naming the file and the line, after the records read before it.
// Lines not understood go to warn (when not nil) as they come; those
// before the first line of sysbench's wait for it (parse.Judged of them
// refuse the input at once), so that input that is not sysbench's gives
// its warnings and then its error, the last pair. A consumer that stops
// ends the reading.
func ParseSeq(r io.Reader, source string, warn func(parse.Warning)) iter.Seq2[Record, error] {
	return parse.StepSeq(func() parse.Stepper[Record] { return newReader(r, source, 0) }, warn)
}

// reader reads a sysbench output a line at a time, for ParseSeq and
// Parse: each Next stops at a record or at a line not understood, and at
// the end after the report; an error (the reader's, a second report, a
// report missing or cut short) ends it.
type reader struct {
	l     *parse.Lines
	p     parser
	i     int   // the record of the line's (p.out) handed out
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
	p.isWarn = false
	if r.i+1 < p.nout { // a line's second record
		r.i++
		return true
	}
	p.nout, r.i = 0, 0
	for !r.done && r.l.Next() {
		if r.limit > 0 && r.l.Offset() > r.limit {
			r.done, r.err = true, parse.HeldTooLong(p.source, r.l.Line(), "sysbench")
			return false
		}
		if err := p.lineBytes(r.l.Line(), r.l.Bytes()); err != nil {
			r.done, r.err = true, err
			p.release() // the interval before the bad line
			// Two runs appended to one file: the first run's report,
			// when whole, is a record before the error.
			if p.second && p.finish(r.l.Line()-1) == nil {
				p.summaryRecord()
			}
			return p.nout > 0
		}
		if p.nout > 0 || p.isWarn {
			return true
		}
	}
	if r.done {
		return false
	}
	r.done = true
	p.release()
	if r.err = r.l.Err(); r.err == nil {
		if r.err = p.finish(r.l.Line()); r.err == nil {
			p.summaryRecord()
		}
	} else if p.finish(r.l.Line()-1) == nil {
		// A report whole before a bad line (one too long, binary data)
		// is a record before the error.
		p.summaryRecord()
	}
	return p.nout > 0
}

// cur is the record Next stopped at.
func (r *reader) cur() *Record { return r.p.out[r.i] }

// Record, Warning, Started and End make the reader a parse.Stepper.
func (r *reader) Record() Record     { return *r.cur() }
func (r *reader) Started() bool      { return r.p.known > 0 }
func (r *reader) End() error         { return r.err }
func (r *reader) Refuse(n int) error { return r.p.refuse(n) }

func (r *reader) Warning() *parse.Warning {
	if r.p.isWarn {
		return &r.p.w
	}
	return nil
}
