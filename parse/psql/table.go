package psql

import (
	"github.com/pgstudy/pgstudy/parse"
	"strconv"
	"strings"
)

// The tables of the other formats (expanded, unaligned), the footer, and
// how a table goes to its statement; aligned tables are in aligned.go.

// footerCount reads psql's "(N rows)" / "(1 row)" footer.
func footerCount(line string) (int, bool) {
	if len(line) < 7 || line[0] != '(' || line[len(line)-1] != ')' {
		return 0, false
	}
	s := line[1 : len(line)-1]
	var num string
	switch {
	case strings.HasSuffix(s, " rows"):
		num = s[:len(s)-5]
	case strings.HasSuffix(s, " row"):
		num = s[:len(s)-4]
	default:
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || num[0] == '+' || num[0] == '-' {
		return 0, false
	}
	return n, true
}

// isRecord reports whether line is an expanded record's header,
// "-[ RECORD 1 ]-----".
func isRecord(line string) bool {
	if !strings.HasPrefix(line, "-[ RECORD ") {
		return false
	}
	s := line[len("-[ RECORD "):]
	j := 0
	for j < len(s) && '0' <= s[j] && s[j] <= '9' {
		j++
	}
	return j > 0 && strings.HasPrefix(s[j:], " ]")
}

// tableBox is a table with room for its row count, in one allocation.
type tableBox struct {
	Table
	count int
}

// setCount sets the table's RowCount to n.
func (b *tableBox) setCount(n int) {
	b.count = n
	b.RowCount = &b.count
}

// addTable gives a table read from lines first to last to its statement.
func (p *parser) addTable(first, last int, t *Table) {
	st := p.forResult()
	p.flushPending(st)
	st.addResult(Result{Line: first + 1, EndLine: last + 1, Table: t})
	st.EndLine = max(st.EndLine, last+1)
}

// expandedTable reads an expanded (\x) table starting at line p.i.
func (p *parser) expandedTable(i int) {
	t := &Table{Format: "expanded", Columns: []string{}, Rows: [][]string{}}
	var row []string
	j := i
	for p.has(j) {
		if j&(maxRowsAhead-1) == 0 {
			p.pass(j - 1)
		}
		l := p.line(j)
		if isRecord(l) {
			if row != nil {
				t.Rows = append(t.Rows, row)
			}
			row = []string{}
			j++
			continue
		}
		bar := strings.Index(l, " |")
		if l == "" || bar < 0 {
			break
		}
		name := strings.TrimSpace(l[:bar])
		val := strings.TrimPrefix(l[bar+2:], " ")
		if name == "" && len(row) > 0 {
			row[len(row)-1] += "\n" + val
		} else {
			row = append(row, val)
			if len(t.Rows) == 0 {
				t.Columns = append(t.Columns, name)
			}
		}
		// A value going on on the next line ends with "+" there.
		if n := j + 1; strings.HasSuffix(val, "+") && p.has(n) {
			if next := p.line(n); nextCont(next) {
				v := row[len(row)-1]
				row[len(row)-1] = strings.TrimRight(v[:len(v)-1], " ")
			}
		}
		j++
	}
	if row != nil {
		t.Rows = append(t.Rows, row)
	}
	end := j - 1
	if p.has(j) && p.line(j) == "" {
		end = j
		j++
	}
	p.addTable(i, end, t)
	p.i = j
}

// nextCont reports whether l goes on with the value before it in an
// expanded table: nothing before its " |".
func nextCont(l string) bool {
	nb := strings.Index(l, " |")
	return nb >= 0 && strings.TrimSpace(l[:nb]) == ""
}

// footer reads a "(N rows)" line that no aligned table claimed: the end
// of an unaligned table, or an empty expanded one.
func (p *parser) footer(i int) {
	n, _ := footerCount(p.line(i))
	c := p.accepting()
	if c == nil || len(c.pending) == 0 {
		// An unaligned table whose header and rows were taken for the
		// continuation of a notice before it.
		if st := p.open(); st != nil && !p.expanded && (n > 0 || p.unaligned) && len(st.Results) == 0 && !st.failed {
			if m := p.stealRows(st, n+1); m != nil {
				st.pending = m
				c = st
			}
		}
	}
	if c == nil || len(c.pending) == 0 {
		box := &tableBox{Table: Table{Format: "expanded", Columns: []string{}, Rows: [][]string{}}}
		box.setCount(n)
		t := &box.Table
		if n != 0 {
			// psql prints a row count under its table, and none under
			// the records of \x but "(0 rows)": the table was printed in
			// a format or style psql did not say, whose values may be
			// read as psql's own lines (a Time: line).
			p.refuseUnread(i)
			return
		}
		end := i
		if n == 0 && p.has(i+1) && p.line(i+1) == "" {
			end = i + 1
		}
		p.addTable(i, end, t)
		p.i = end + 1
		return
	}
	if p.mayBeValue(i, c, n) && p.valueAhead(i, c) {
		// A value that reads as a row count: a row.
		c.pending = append(c.pending, pendLine{i, p.line(i)})
		p.i = i + 1
		return
	}
	pend := c.pending
	c.pending = nil
	if len(pend) == 1 && pend[0].s == "--" {
		// A result of no columns ("select;"): psql prints "--" and
		// the row count.
		box := &tableBox{Table: Table{Format: "aligned", Columns: []string{}, Rows: make([][]string, n)}}
		for k := range box.Rows {
			box.Rows[k] = []string{}
		}
		box.setCount(n)
		p.addTable(pend[0].i, i, &box.Table)
		p.i = i + 1
		return
	}
	if !p.unaligned && borderZero(pend, n) {
		p.refuseStyle(pend[1].i, `\pset border 0`)
		return
	}
	t := p.unalignedTable(pend, n)
	switch {
	case len(t.Rows) < n:
		// A value with a newline makes more lines than rows, never
		// fewer: some of its rows were read as psql's own lines.
		p.refuseUnread(i)
		return
	case len(t.Rows) > n:
		p.warn(i, "unaligned table footer counts "+strconv.Itoa(n)+" rows, but "+strconv.Itoa(len(t.Rows))+" lines were read (a value with a newline?)")
	}
	p.addTable(pend[0].i, i, t)
	p.i = i + 1
}

// unalignedTable is the unaligned table of the lines pend (its title,
// when psql said one was set, its header and rows), counted n rows.
func (p *parser) unalignedTable(pend []pendLine, n int) *Table {
	title := ""
	if len(pend) > 1 && p.set.titled != "" && pend[0].s == p.set.titled {
		// The title psql said was set, on the line above the header.
		title, pend = trimBlank(pend[0].s), pend[1:]
	}
	box := &tableBox{Table: Table{Format: "unaligned", Title: title, Columns: strings.Split(pend[0].s, p.sep), Rows: make([][]string, 0, len(pend)-1)}}
	box.setCount(n)
	t := &box.Table
	for _, l := range pend[1:] {
		row := strings.Split(l.s, p.sep)
		if len(row) != len(t.Columns) {
			p.warnText(l.i, l.s, "unaligned row with "+strconv.Itoa(len(row))+" fields under a header of "+strconv.Itoa(len(t.Columns)))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// noColumns reads a result of no column ("select;") on line i, "--",
// and its row count on the next, where no statement's output is being
// read (psql did not echo it), reporting whether it did; with an echo,
// footer reads it.
func (p *parser) noColumns(i int) bool {
	if c := p.accepting(); c != nil && c.SQL != "" || !p.has(i+1) {
		return false
	}
	if _, ok := footerCount(p.line(i + 1)); !ok {
		return false
	}
	st := p.accepting()
	if st == nil {
		st = p.newStmt(i)
	}
	st.pending = append(st.pending, pendLine{i, p.line(i)})
	p.i = i + 1 // footer reads the row count
	return true
}

// mayBeValue reports whether the row count n on line i may be a value of
// the result c is reading: it counts more rows than are above it, or
// \timing is on and no Time: line follows it.
func (p *parser) mayBeValue(i int, c *openStatement, n int) bool {
	if len(c.pending)-1 < n {
		return true
	}
	if !p.timing || !p.has(i+1) {
		return false
	}
	_, ok := parseTime(p.line(i + 1))
	return !ok
}

// refuseUnread refuses the row count on line i, under a table that was
// not read whole.
func (p *parser) refuseUnread(i int) {
	switch {
	case p.err != nil:
	case p.unaligned && p.accepting() == nil:
		p.err = parse.Errorf(p.source, i+1, "row count %q under an unaligned table whose statement psql did not echo: this parser reads unaligned output only with the statements echoed (psql -a or -e), which tell where a result starts", p.line(i))
	default:
		p.err = parse.Errorf(p.source, i+1, "row count %q under a table this parser did not read whole: it was printed in a format or style psql did not say (set under \\set QUIET, in a .psqlrc, or by psql -A, -t or --csv), and its values may be read as psql's own lines; print with psql's defaults (psql -X), or echo the meta-commands (psql -a)", p.line(i))
	}
}

// stealRows takes the last n continuation lines of the statement's last
// message back, as the lines of an unaligned table psql printed after it.
// Its lines after the first are the input's lines as they were, in its
// Text and its Raw.
func (p *parser) stealRows(st *openStatement, n int) []pendLine {
	if len(st.Messages) == 0 {
		return nil
	}
	m := &st.Messages[len(st.Messages)-1]
	first, last := m.Line-1, m.EndLine-1
	lines := strings.Split(m.Text, "\n")
	if last != p.i-1 || len(lines) != last-first+1 || len(lines) <= n {
		return nil // not all its lines are text, or too few
	}
	cut := last - n + 1
	rows := make([]pendLine, 0, n)
	for k, l := range lines[len(lines)-n:] {
		rows = append(rows, pendLine{i: cut + k, s: l})
	}
	m.Text = dropLines(m.Text, n)
	m.Raw = dropLines(m.Raw, n)
	m.EndLine = cut
	return rows
}

// dropLines is s without its last n lines, s having more.
func dropLines(s string, n int) string {
	for range n {
		s = s[:strings.LastIndexByte(s, '\n')]
	}
	return s
}
