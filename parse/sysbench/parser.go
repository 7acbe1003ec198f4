package sysbench

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// The parser behind ParseSeq and Parse: the header, then each interval
// line (interval.go), then the report's sections (report.go). A line
// gives records (an interval, a message), a warning, or neither (a line
// of the header or the report, which are one record at the end).

type parser struct {
	source string
	// run holds the header and the report; the intervals and messages
	// are records, not kept.
	run     Run
	known   int
	section int
	// seen holds the report's lines already read, by section and key,
	// with their line numbers.
	seen       map[string]int
	sqlLine    int // where "SQL statistics:" is, or 0
	general    int // where "General statistics:" is, or 0
	totalLine  int // where the queries performed total is
	bannerLine int // where the banner is, or 0
	// firstMsg is the first message (msged: there was one), which the
	// error of a run that did not finish quotes.
	firstMsg Message
	msged    bool

	// lastTime is the time of the last interval (intervals: there was
	// one), which the next must be after.
	lastTime  float64
	intervals bool
	firstLen  int // the first interval's line, its "\n" included
	// ivs are the records of the last two interval lines: ivs[cur] is
	// the last one, held (when held) until the next line shows whether a
	// queue length line (--rate) completes it; the other may have been
	// yielded by the line just read.
	ivs  [2]Record
	cur  int
	held bool
	// other is the record of the line just read when it is not an
	// interval (a message, the summary).
	other Record

	// What the line just read gave: records (out[:nout]; a held interval
	// and the line's own), or a warning (w, when isWarn); firstWarn is
	// the input's first warning (warned: there was one), which input not
	// sysbench's is refused with.
	out       [2]*Record
	nout      int
	w         parse.Warning
	isWarn    bool
	firstWarn parse.Warning
	warned    bool
	// second: a second report was found (two runs' outputs appended to
	// one file), an error after the first run's report.
	second bool
	// unread: report lines ("section/key") that were there but whose
	// value was not understood, with their line (a report without them
	// is not cut short).
	unread map[string]int
}

func (p *parser) warn(n int, text, format string, args ...any) {
	p.w = parse.Warning{Source: p.source, Line: n, Text: parse.Excerpt(text), Msg: fmt.Sprintf(format, args...)}
	p.isWarn = true
	if !p.warned {
		p.firstWarn, p.warned = p.w, true
	}
}

// emit yields p.other, after the interval held, if any.
func (p *parser) emit() {
	p.release()
	p.out[p.nout] = &p.other
	p.nout++
}

// release yields the interval held, if any.
func (p *parser) release() {
	if p.held {
		p.out[p.nout] = &p.ivs[p.cur]
		p.nout++
		p.held = false
	}
}

// nextInterval is the slot of ivs an interval line is read into: not the
// held one's.
func (p *parser) nextInterval() int {
	if p.held {
		return p.cur ^ 1
	}
	return p.cur
}

// hold holds the interval read into ivs[k], after yielding the interval
// held before it.
func (p *parser) hold(k int) {
	p.release()
	p.cur, p.held = k, true
}

// message yields a line sysbench logged as FATAL, ALERT or WARNING.
func (p *parser) message(n int, s string) {
	if !p.msged {
		p.firstMsg, p.msged = Message{Line: n, Text: s}, true
	}
	p.other = Record{Kind: KindMessage, Line: n, Text: s}
	p.emit()
}

// lineBytes reads line n: an interval line from its bytes, which most
// lines of a long run are, any other as text.
func (p *parser) lineBytes(n int, b []byte) error {
	if !bytes.HasPrefix(b, intervalPrefix) {
		return p.line(n, string(b))
	}
	if p.section == sectionHistogram {
		p.section = sectionNone
	}
	if msg := p.interval(n, b); msg != "" {
		p.warn(n, string(b), "%s", msg)
	} else {
		p.known++
	}
	return nil
}

func (p *parser) line(n int, s string) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	msg, err := p.dispatch(n, s)
	if err != nil {
		return err
	}
	if msg != "" {
		p.warn(n, s, "%s", msg)
		return nil
	}
	p.known++
	return nil
}

func (p *parser) dispatch(n int, s string) (string, error) {
	if s[0] != ' ' && p.section == sectionHistogram {
		p.section = sectionNone
	}
	switch {
	case strings.HasPrefix(s, "FATAL: "), strings.HasPrefix(s, "ALERT: "), strings.HasPrefix(s, "WARNING: "):
		p.message(n, s)
		return "", nil
	case strings.HasPrefix(s, "sysbench "):
		return p.banner(n, strings.TrimPrefix(s, "sysbench ")), nil
	case s == "SQL statistics:" || s == "General statistics:":
		if p.general != 0 || (s == "SQL statistics:" && p.sqlLine != 0) {
			p.second = true
			return "", parse.Errorf(p.source, n, "a second report (the first starts on line %d): the input holds more than one sysbench run, or --report-checkpoints reports", p.reportStart())
		}
		if s == "SQL statistics:" {
			p.section, p.sqlLine = sectionSQL, n
			p.run.SQL = &SQL{}
		} else {
			p.section, p.general = sectionGeneral, n
		}
		return "", nil
	case s == "Latency (ms):":
		if p.general == 0 {
			return "\"Latency (ms):\" before \"General statistics:\"", nil
		}
		p.section = sectionLatency
		return "", nil
	case s == "Threads fairness:":
		if p.general == 0 {
			return "\"Threads fairness:\" before \"General statistics:\"", nil
		}
		p.section = sectionFairness
		return "", nil
	case strings.TrimSpace(s) == "value  ------------- distribution ------------- count":
		p.section = sectionHistogram
		return "", nil
	case s[0] == ' ' || s[0] == '\t':
		return p.sectionLine(n, strings.TrimSpace(s))
	}
	return p.header(s), nil
}

// banner reads "1.0.20 (using system LuaJIT 2.1.0-beta3)", on line n.
func (p *parser) banner(n int, v string) string {
	ver, rest, _ := strings.Cut(v, " ")
	lua, ok := strings.CutPrefix(rest, "(using ")
	lua, ok2 := strings.CutSuffix(lua, ")")
	if !ok || !ok2 || ver == "" || ver[0] < '0' || ver[0] > '9' {
		return "not a sysbench banner (\"sysbench 1.0.20 (using ...)\")"
	}
	if p.run.Version != "" {
		return "a second sysbench banner"
	}
	p.run.Version, p.run.LuaJIT, p.bannerLine = ver, lua, n
	return ""
}

// header reads the lines sysbench prints before and between the
// intervals and the report.
func (p *parser) header(s string) string {
	p.section = sectionNone
	intOf := func(dst **int, v string) string {
		c, ok := num.Count(v)
		if !ok || c > math.MaxInt32 {
			return "not a count"
		}
		if *dst != nil {
			return "repeats an earlier line"
		}
		i := int(c)
		*dst = &i
		return ""
	}
	if v, ok := strings.CutPrefix(s, "Number of threads: "); ok {
		return intOf(&p.run.Threads, v)
	}
	if v, ok := strings.CutPrefix(s, "Target transaction rate: "); ok {
		if v, ok := strings.CutSuffix(v, "/sec"); ok {
			return intOf(&p.run.TargetRatePerS, v)
		}
		return "want \"Target transaction rate: N/sec\""
	}
	if v, ok := strings.CutPrefix(s, "Report intermediate results every "); ok {
		if v, ok := strings.CutSuffix(v, " second(s)"); ok {
			return intOf(&p.run.ReportIntervalS, v)
		}
		return "want \"Report intermediate results every N second(s)\""
	}
	if v, ok := strings.CutPrefix(s, "Number of unfinished transactions on forced shutdown: "); ok {
		c, ok := num.Count(v)
		if !ok {
			return "not a count"
		}
		p.run.UnfinishedTransactions = &c
		return ""
	}
	switch {
	case s == "Running the test with following options:",
		s == "Initializing worker threads...",
		s == "Threads started!",
		s == "Debug mode enabled.",
		s == "Validation checks: on.",
		s == "Latency histogram (values are in milliseconds)",
		strings.HasPrefix(s, "Initializing random number generator from "),
		strings.HasPrefix(s, "Report checkpoint(s) at "),
		strings.HasPrefix(s, "Forcing shutdown in "):
		return ""
	}
	return "not a line of sysbench output"
}

// refuse is the error of input whose lines read, or its first n not
// understood (parse.StepSeq), hold none of sysbench's.
func (p *parser) refuse(n int) error {
	w := p.firstWarn
	return parse.Errorf(p.source, w.Line, "not sysbench output (%s is sysbench's): %s: %s", parse.NoLineOf(n), w.Msg, num.Quote(w.Text))
}

// finish checks what the whole input says; last is the last line's number.
func (p *parser) finish(last int) error {
	if p.known == 0 {
		if !p.warned {
			return parse.Errorf(p.source, 0, "empty input; expected sysbench output")
		}
		return p.refuse(0)
	}
	if p.general == 0 {
		why := ""
		if p.msged {
			m := p.firstMsg
			why = fmt.Sprintf("; line %d says %s", m.Line, num.Quote(m.Text))
		}
		return parse.Errorf(p.source, last, "input ends before sysbench's report (\"General statistics:\"): the run did not finish or the output is cut short%s", why)
	}
	secs := []int{sectionGeneral, sectionLatency, sectionFairness}
	if p.run.SQL != nil {
		secs = append([]int{sectionQueries, sectionSQL}, secs...)
	}
	start := p.reportStart()
	for _, sec := range secs {
		for _, key := range need[sec] {
			if _, ok := p.seen[sectionNames[sec]+"/"+key]; !ok {
				if n := p.unread[sectionNames[sec]+"/"+key]; n > 0 {
					return parse.Errorf(p.source, n, "the report that starts on line %d has its %q line under %q here, but its value is not understood (see the warning)",
						start, key, sectionNames[sec])
				}
				return parse.Errorf(p.source, last, "the report that starts on line %d has no %q line under %q; the output is cut short",
					start, key, sectionNames[sec])
			}
		}
	}
	if sql := p.run.SQL; sql != nil {
		sum, ok := add(sql.Reads, sql.Writes, sql.Other)
		if !ok || sum != sql.Total {
			return parse.Errorf(p.source, p.totalLine, "queries performed: total %d is not read + write + other (%d + %d + %d)", sql.Total, sql.Reads, sql.Writes, sql.Other)
		}
		if sql.Queries != sql.Total {
			return parse.Errorf(p.source, p.seen["SQL statistics/queries"], "queries: %d is not the queries performed total %d", sql.Queries, sql.Total)
		}
	}
	return nil
}

// add adds non-negative counts, reporting overflow.
func add(xs ...int64) (int64, bool) {
	var s int64
	for _, x := range xs {
		if x > math.MaxInt64-s {
			return 0, false
		}
		s += x
	}
	return s, true
}

// reportStart is the line where the final report starts.
func (p *parser) reportStart() int {
	if p.sqlLine != 0 {
		return p.sqlLine
	}
	return p.general
}

// summaryRecord yields the header and report, after the checks of
// finish: the report's line is the banner's, or its own first when
// there is no banner.
func (p *parser) summaryRecord() {
	run := p.run
	line := p.bannerLine
	if line == 0 {
		line = p.reportStart()
	}
	p.other = Record{Kind: KindSummary, Line: line, Run: &run}
	p.emit()
}
