package psql

import (
	"strings"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/parse"
)

// Tables drawn in a style other than psql's default, known by their
// shape where no "Border style is" line said so: a .psqlrc that sets
// \pset border or linestyle between \set QUIET 1 and \set QUIET 0 (a
// common idiom) prints none. Their rows would be misread as an unaligned
// table or as lines of text. The shapes are those of the capture-style-*
// fixtures; old-ascii, which differs from ascii in a value of several
// lines only, is not known by its shape (its rows are warned of).

// refuseStyle refuses line i, output of a table drawn with setting.
func (p *parser) refuseStyle(i int, setting string) {
	p.err = parse.Errorf(p.source, i+1, "a result drawn with %s, a table style this parser does not read: print with psql's defaults (psql -X, or \\pset border 1 and \\pset linestyle ascii)", setting)
}

// drawnStyle is the \pset that drew line i, l, when l is a line
// only another table style draws: a frame of border 2 ("+---+------+")
// over a line that starts with "|", a rule of linestyle unicode
// ("───┼──────", "┌───┬──────┐"), an expanded record's title in either
// ("+-[ RECORD 1 ]--+", "─[ RECORD 1 ]"); "" for any other line.
func (p *parser) drawnStyle(i int) string {
	l := p.line(i)
	if len(l) < 3 {
		return ""
	}
	switch {
	case l[0] == '+':
		if strings.HasPrefix(l, "+-[ RECORD ") ||
			l[len(l)-1] == '+' && strings.Trim(l, "+-") == "" && p.has(i+1) && strings.HasPrefix(p.line(i+1), "|") {
			return `\pset border 2`
		}
	case l[0] == 0xe2 && isBoxDrawing(l): // U+2500 to U+257F start with 0xe2 in UTF-8
		return `\pset linestyle unicode`
	}
	return ""
}

// isBoxDrawing reports whether l starts with a box-drawing character
// (U+2500 to U+257F) and is all of them and spaces, or is the title of
// an expanded record in linestyle unicode.
func isBoxDrawing(l string) bool {
	r, _ := utf8.DecodeRuneInString(l)
	if !box(r) {
		return false
	}
	if i := strings.Index(l, "[ RECORD "); i > 0 && strings.Trim(l[:i], "─┌├") == "" {
		return true
	}
	for _, r := range l {
		if r != ' ' && !box(r) {
			return false
		}
	}
	return true
}

func box(r rune) bool { return r >= 0x2500 && r <= 0x257f }

// borderZero reports whether pend, the lines of a result before a footer
// counting n rows, is a table of \pset border 0: a header, then a rule of
// runs of "-" a space apart as wide as the header, then more lines than
// rows (the rule is none). An unaligned table whose first value is a run
// of dashes has as many lines as rows.
func borderZero(pend []pendLine, n int) bool {
	return len(pend) >= 2 && len(pend)-1 > n && dashRule(pend[0].s, pend[1].s)
}

// dashRule reports whether rule is shaped as a rule of \pset border 0
// under hdr: runs of "-" a space apart, as wide as the header or wider.
func dashRule(hdr, rule string) bool {
	return rule != "" && rule[0] == '-' && rule[len(rule)-1] == '-' && !strings.Contains(rule, "  ") &&
		strings.Trim(rule, "- ") == "" && width(strings.TrimRight(hdr, " ")) <= len(rule)
}

// resultLine reports whether line i, of kind k, a kind psql prints of
// its own (a Time: line, a message, a statement's echo or a comment, a
// tag), is a line of the result being read: a value of an unaligned
// table ("---", "Time: 1.000 ms", "ERROR:  x"), between the result's
// first line and its footer, where psql prints nothing of its own
// (valueAhead); or the rule of a table of \pset border 0 under its header
// ("-- -----"), which otherLine refuses. With \timing on, psql echoes
// nothing between a statement's echo and its Time: line: a line there
// that reads as an echo, a tag or a meta-command's is output, even the
// first ("-----", the header of a column of that name). Without a footer
// (\pset footer off, tuples only) a value is not told from psql's lines.
func (p *parser) resultLine(i int, k lineKind) bool {
	c := p.accepting()
	if c == nil {
		return false
	}
	if p.timing && c.SQL != "" && (k == lineSQL || k == lineMetaEcho || k == lineMetaResp || k == lineTag && len(c.pending) > 0) {
		return true
	}
	if len(c.pending) == 0 || c.copyOut {
		// COPY's data has no row count to look for: the echo copyEnds
		// found ends it (a row count of the next statement's counted
		// the lines of both, and every statement after a COPY without
		// \timing was read as its data; found by an outside tester).
		return false
	}
	if len(c.pending) == 1 && !p.unaligned && borderZeroRule(c.pending[0].s, p.line(i)) {
		return true
	}
	return p.valueAhead(i, c)
}

// valueAhead reports whether line i is a row of the result c is reading
// (its header and the rows before i pending): whether a row count
// follows that counts it. A row count that counts fewer rows than are
// above it is a value too ("(3 rows)" one line under the header), and
// so is a Time: line, but then the count must be exact: psql prints
// Time: after the row count, and the lines under a Time: line are the
// next statement's, whose row count would count the lines of two.
// (Values with newlines make more lines than rows: counts that are not
// exact are taken only where no Time: line is crossed.) The next
// statement's echo, or a blank line, ends the look.
func (p *parser) valueAhead(i int, c *openStatement) bool {
	_, crossed := parseTime(p.line(i))
	for k := i + 1; k <= i+maxRowsAhead && p.has(k); k++ {
		l := p.line(k)
		if n, ok := footerCount(l); ok {
			switch rows := len(c.pending) - 1 + k - i; {
			case rows == n, rows > n && !crossed:
				return true
			case rows > n:
				return false
			}
			continue // a value that reads as a row count
		}
		if _, ok := parseTime(l); ok {
			crossed = true
			continue
		}
		if l == "" || !p.timing && startsSQL(l) && !strings.HasPrefix(l, "--") {
			return false // the statement's end, or the next one's echo
		}
	}
	return false
}

// psqlOwn reports whether k is a kind of line psql prints of its own,
// which a value of an unaligned table may look like.
func psqlOwn(k lineKind) bool {
	switch k {
	case lineTime, lineMessage, lineField, lineTag, lineMetaResp, lineMetaEcho, lineSQL, lineHidden, lineHiddenEnd, lineRecord:
		return true
	}
	return false
}

// borderZeroRule reports whether rule, under hdr, is the rule of a table
// of \pset border 0 with two columns or more: runs of "-" a space apart,
// as wide as the header or wider, the header blank where the rule is.
func borderZeroRule(hdr, rule string) bool {
	if !dashRule(hdr, rule) || !strings.Contains(rule, " ") || !isASCII(hdr) {
		return false
	}
	for g := range len(rule) {
		if rule[g] == ' ' && g < len(hdr) && hdr[g] != ' ' {
			return false
		}
	}
	return true
}
