package psql

import (
	"math"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// \timing's "Time:" lines.

// timeLine reads a Time: line, which ends its statement.
func (p *parser) timeLine(i int) {
	var t timeValue
	if s := p.seenAt(i, lineTime); s != nil {
		t = s.time
	} else {
		t, _ = parseTime(p.line(i))
	}
	if t.paren != "" && !t.agree {
		p.warn(i, "Time: the milliseconds and the duration in parentheses disagree")
	}
	st := p.open()
	if st == nil {
		st = p.newStmt(i)
	}
	p.flushPending(st)
	st.ms = t.ms
	st.TimeMs, st.TimeLine, st.EndLine = &st.ms, i+1, i+1
	st.closed = true
	p.cur = nil
}

// timeValue is a parsed Time: line.
type timeValue struct {
	ms    float64
	paren string // "01:01.235" when printed
	agree bool   // the two durations agree (to the millisecond)
}

// parseTime reads "Time: 12.345 ms" and "Time: 61234.567 ms (01:01.235)";
// psql adds the parenthesis from a second on, as mm:ss.sss, hh:mm:ss.sss
// or "N d hh:mm:ss.sss".
func parseTime(l string) (timeValue, bool) {
	var t timeValue
	if !strings.HasPrefix(l, "Time: ") {
		return t, false
	}
	s := l[len("Time: "):]
	sp := strings.IndexByte(s, ' ')
	if sp <= 0 || !strings.HasPrefix(s[sp:], " ms") {
		return t, false
	}
	figure := s[:sp]
	ms, err := num.ParseFloat(figure)
	if err != nil || !decimal(figure) {
		return t, false
	}
	t.ms = ms
	rest := s[sp+3:]
	if rest == "" {
		return t, true
	}
	if len(rest) < 4 || rest[0] != ' ' || rest[1] != '(' || rest[len(rest)-1] != ')' {
		return t, false
	}
	t.paren = rest[2 : len(rest)-1]
	d, ok := clock(t.paren)
	if !ok {
		return t, false
	}
	t.agree = math.Abs(d-ms) <= 1
	return t, true
}

// decimal reports whether s is digits with at most one ".", as psql
// prints durations.
func decimal(s string) bool {
	dot := false
	for i := 0; i < len(s); i++ {
		switch {
		case '0' <= s[i] && s[i] <= '9':
		case s[i] == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return s != "" && s != "."
}

// clock reads psql's "[N d ][hh:]mm:ss.sss" into milliseconds.
func clock(s string) (float64, bool) {
	var days float64
	if i := strings.Index(s, " d "); i >= 0 {
		d, err := strconv.ParseFloat(s[:i], 64)
		if err != nil || !decimal(s[:i]) {
			return 0, false
		}
		days, s = d, s[i+3:]
	}
	f := strings.Split(s, ":")
	if len(f) < 2 || len(f) > 3 || days > 0 && len(f) != 3 {
		return 0, false
	}
	var v [3]float64
	for k, x := range f {
		if !decimal(x) {
			return 0, false
		}
		n, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return 0, false
		}
		v[3-len(f)+k] = n
	}
	return ((days*24+v[0])*60+v[1])*60000 + v[2]*1000, true
}
