package psql

import (
	"regexp"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/foreign"
)

// Output in another language is refused (see package foreign): these are
// the psql parser's hooks into that look-up.

// footerShape is psql's row count footer in any language: "(1 row)",
// "(3 filas)", "(1 行)", "(1개 행)"; englishFooter is the English one.
var (
	footerShape   = regexp.MustCompile(`^\([0-9]+ ?[^\s()0-9][^()]{0,30}\)$`)
	englishFooter = regexp.MustCompile(`^\([0-9]+ rows?\)$`)
)

// englishTime reports whether l is psql's English Time: line with a
// decimal point, the evidence that psql itself printed in English.
func englishTime(l string) bool {
	_, ok := parseTime(l)
	return ok && !strings.Contains(l, ",")
}

// commaTime reports whether l is psql's Time: line with a decimal comma:
// its milliseconds, and its clock's seconds past one second ("Time:
// 1103,360 ms (00:01,103)").
func commaTime(l string) bool {
	if !strings.Contains(l, ",") || strings.Contains(l, ".") {
		return false
	}
	_, ok := parseTime(strings.ReplaceAll(l, ",", "."))
	return ok
}

// lookForeign looks at line i, l, taken as psql's or the server's: a
// server's label in another language ("ERREUR:  ") refuses the input at
// once, whatever psql's language; the first line of psql's own in another
// language is noted, for foreignError.
func (p *parser) lookForeign(i int, l string) {
	if lang, ok := foreign.Label(l); ok {
		if p.err == nil {
			p.err = foreign.PsqlError(p.source, i+1, lang, l)
		}
		return
	}
	if !p.pointTime && strings.HasPrefix(l, "Time: ") && commaTime(l) {
		// psql's English Time: line with the decimal comma of another
		// LC_NUMERIC: every statement's time would be lost. (After a
		// Time: line with a point, it is a user's value.)
		if p.err == nil {
			p.err = foreign.PsqlError(p.source, i+1, "a decimal comma: LC_NUMERIC", l)
		}
		return
	}
	if p.foreign != nil || p.english {
		return // the first is noted; or it would be a user's value
	}
	if lang, ok := foreign.PsqlLine(l); ok {
		p.foreign = &parse.Warning{Source: p.source, Line: i + 1, Text: parse.Excerpt(l), Msg: lang}
	}
}

// foreignError is the refusal, at the end of the input, of psql's own
// lines in another language: its Time: lines would be lost. A line only
// shaped like psql's in another language ("Durée : 21,820 ms", "(2
// Zeilen)") is a user's value when psql's own lines are English ("Timing
// is on.", an English Time: line or row count, anywhere in the input):
// then it is read as the value it is.
func (p *parser) foreignError() error {
	if f := p.foreign; f != nil && !p.english {
		return foreign.PsqlError(f.Source, f.Line, f.Msg, f.Text)
	}
	return nil
}

// mayBeForeign is a cheap test of a line taken as output: whether it could
// be a Time: line or a message label in another language ("Temps : 2,052
// ms", "ERREUR:  ..."), so that only those are looked up.
func mayBeForeign(l string) bool {
	i := strings.IndexByte(l, ':')
	if i <= 0 || i > 40 || i+2 >= len(l) {
		return false
	}
	next := l[i+1]
	if next == ' ' {
		next = l[i+2]
	}
	return next >= '0' && next <= '9' || strings.HasPrefix(l[i:], ":  ")
}
