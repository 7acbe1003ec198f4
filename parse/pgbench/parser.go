package pgbench

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// The parser behind ParseSeq and Parse: a line goes by how it starts
// (dispatch) to the reader of its kind, in the file of its topic:
// summary.go for the report's "key: value" lines, script.go for the
// per-script blocks and statement latencies, progress.go for the -P
// lines. A line gives a record (a progress line, a message), a warning,
// or neither (a line of the summary, which is a record at the end).

type parser struct {
	source string
	// run holds the banner, the summary and Aborted; the progress lines
	// and messages are records, not kept.
	run   Run
	known int            // lines understood
	seen  map[string]int // summary keys already read, with their line
	// unread: summary keys whose line was there but its value not
	// understood, with their line (a summary without them is not cut
	// short).
	unread map[string]int
	first  int // the summary's first line
	// bannerLine and abortLine are the lines of the banner and of the
	// first "Run was aborted", for the summary record's line.
	bannerLine, abortLine int
	// second: the input holds a second run (two outputs appended to one
	// file), an error after the first run's summary.
	second bool

	script *Script // the "SQL script N" block being read
	// stmtValid says statement lines are being read; stmtCols is their
	// number of count columns (0, 1 or 2) after the latency.
	stmtValid bool
	stmtCols  int

	// lastTime is the time of the last progress line (progressed: there
	// was one), which the next must be after.
	lastTime   float64
	progressed bool

	// What the line just read gave: a record (rec, when has) or a
	// warning (w, when isWarn); firstWarn is the input's first warning
	// (warned: there was one), which input not pgbench's is refused with.
	rec       Record
	has       bool
	w         parse.Warning
	isWarn    bool
	firstWarn parse.Warning
	warned    bool
}

func (p *parser) warn(n int, text, format string, args ...any) {
	p.w = parse.Warning{Source: p.source, Line: n, Text: parse.Excerpt(text), Msg: fmt.Sprintf(format, args...)}
	p.isWarn = true
	if !p.warned {
		p.firstWarn, p.warned = p.w, true
	}
}

// setRecord starts the record of line n, of kind k, its fields zero. The
// pointers of the last (a message's text) are cleared only when set: the
// record is in the heap, where storing a pointer, nil too, runs the write
// barrier while the collector marks, and a progress line was 5% slower.
func (p *parser) setRecord(k Kind, n int) {
	if p.rec.Text != "" || p.rec.Run != nil {
		p.rec.Text, p.rec.Run = "", nil
	}
	p.rec.Kind, p.rec.Line, p.rec.Progress = k, n, Progress{}
}

// message yields a line pgbench logged.
func (p *parser) message(n int, text string) {
	p.setRecord(KindMessage, n)
	p.rec.Text, p.has = text, true
	if strings.Contains(text, "Run was aborted") && !p.run.Aborted {
		p.run.Aborted, p.abortLine = true, n
	}
}

// lineBytes reads line n: a progress line from its bytes, which most
// lines of a long run are, any other as text.
func (p *parser) lineBytes(n int, b []byte) error {
	if !bytes.HasPrefix(b, progressPrefix) {
		return p.line(n, string(b))
	}
	p.stmtValid = false
	if msg := p.progress(n, b); msg != "" {
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
	// Statement lines: "   %11.3f  %10d %s", indented.
	if p.stmtValid && (s[0] == ' ' || s[0] == '\t') {
		if msg := p.statement(s); msg != "" {
			p.warn(n, s, "%s", msg)
		} else {
			p.known++
		}
		return nil
	}
	p.stmtValid = false
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

// dispatch reads one line that is not a statement line; it returns why
// the line is not understood, or an error that ends the parse.
func (p *parser) dispatch(n int, s string) (string, error) {
	switch {
	case strings.HasPrefix(s, "pgbench: "), strings.HasPrefix(s, "client "),
		strings.HasPrefix(s, "Run was aborted"):
		p.message(n, s)
		return "", nil
	case strings.HasPrefix(s, "starting vacuum..."):
		rest := strings.TrimPrefix(s, "starting vacuum...")
		if rest != "" && rest != "end." {
			p.message(n, rest)
		}
		return "", nil
	case strings.HasPrefix(s, "pgbench (") && strings.HasSuffix(s, ")"):
		return p.banner(n, strings.TrimSuffix(strings.TrimPrefix(s, "pgbench ("), ")")), nil
	case strings.HasPrefix(s, "SQL script "):
		return p.scriptHeader(n, s)
	case strings.HasPrefix(s, " - "):
		if p.script == nil {
			return "a per-script line outside a \"SQL script\" block", nil
		}
		return p.scriptLine(strings.TrimPrefix(s, " - ")), nil
	}
	if strings.HasPrefix(s, "statement latencies in milliseconds") {
		return p.statementHeader(s), nil
	}
	if isInitLine(s) {
		p.message(n, s)
		return "", nil
	}
	return p.summaryLine(n, s)
}

// banner reads "15.18 (Debian 15.18-0+deb12u1)" or "16.1, server 15.4",
// on line n.
func (p *parser) banner(n int, v string) string {
	if p.run.Version != "" {
		return "a second pgbench banner"
	}
	if i := strings.LastIndex(v, ", server "); i >= 0 {
		p.run.Version, p.run.ServerVersion = v[:i], v[i+len(", server "):]
	} else {
		p.run.Version = v
	}
	if p.run.Version == "" || (p.run.Version[0] < '0' || p.run.Version[0] > '9') {
		p.run.Version, p.run.ServerVersion = "", ""
		return "not a pgbench version banner"
	}
	p.bannerLine = n
	return ""
}

// refuse is the error of input whose lines read, or its first n not
// understood (parse.StepSeq), hold none of pgbench's.
func (p *parser) refuse(n int) error {
	w := p.firstWarn
	return parse.Errorf(p.source, w.Line, "not pgbench output (%s is pgbench's): %s: %s", parse.NoLineOf(n), w.Msg, num.Quote(w.Text))
}

// finish checks what the whole input says; last is the last line's number.
func (p *parser) finish(last int) error {
	if p.known == 0 {
		if !p.warned {
			return parse.Errorf(p.source, 0, "empty input; expected pgbench output")
		}
		return p.refuse(0)
	}
	sum := p.run.Summary
	if sum == nil {
		return nil
	}
	first := p.first
	if first == 0 {
		first = last
	}
	for _, need := range []string{
		"transaction type", "scaling factor", "query mode", "number of clients",
		"number of threads", "number of transactions actually processed",
	} {
		if _, ok := p.seen[need]; !ok {
			if n, ok := p.unread[need]; ok {
				return parse.Errorf(p.source, n, "the summary that starts on line %d has its %q line here, but its value is not understood (see the warning)", first, need)
			}
			return parse.Errorf(p.source, last, "the summary that starts on line %d has no %q line; the output is cut short", first, need)
		}
	}
	if sum.Transactions > 0 && sum.TPS == nil && sum.TPSIncludingConnections == nil {
		if n, ok := p.unread["tps"]; ok {
			return parse.Errorf(p.source, n, "the summary that starts on line %d has its tps line here, but its value is not understood (see the warning)", first)
		}
		return parse.Errorf(p.source, last, "the summary that starts on line %d ends before its tps line; the output is cut short", first)
	}
	return nil
}

// summaryRecord makes the summary record, when the input has a banner, a
// summary or says the run was aborted; false when it has none of them.
func (p *parser) summaryRecord() bool {
	run := p.run
	if run.Version == "" && run.Summary == nil && !run.Aborted {
		return false
	}
	line := p.bannerLine
	if line == 0 {
		line = p.first
	}
	if line == 0 {
		line = p.abortLine
	}
	p.rec, p.has = Record{Kind: KindSummary, Line: line, Run: &run}, true
	return true
}
