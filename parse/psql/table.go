package psql

import (
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

// addTable gives a table read from lines first to last to its statement.
func (p *parser) addTable(first, last int, t *Table) {
	st := p.forResult()
	p.flushPending(st)
	st.Results = append(st.Results, Result{Line: first + 1, EndLine: last + 1, Table: t})
	st.EndLine = max(st.EndLine, last+1)
}

// expandedTable reads an expanded (\x) table starting at line p.i.
func (p *parser) expandedTable(i int) {
	t := &Table{Format: "expanded", Columns: []string{}, Rows: [][]string{}}
	var row []string
	j := i
	for j < len(p.lines) {
		l := p.lines[j]
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
		if n := j + 1; n < len(p.lines) && strings.HasSuffix(val, "+") {
			if nb := strings.Index(p.lines[n], " |"); nb >= 0 && strings.TrimSpace(p.lines[n][:nb]) == "" {
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
	if j < len(p.lines) && p.lines[j] == "" {
		end = j
		j++
	}
	p.addTable(i, end, t)
	p.i = j
}

// footer reads a "(N rows)" line that no aligned table claimed: the end
// of an unaligned table, or an empty expanded one.
func (p *parser) footer(i int) {
	n, _ := footerCount(p.lines[i])
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
		t := &Table{Format: "expanded", Columns: []string{}, Rows: [][]string{}, RowCount: &n}
		if n != 0 {
			p.warn(i, "row count with no table before it")
		}
		end := i
		if i+1 < len(p.lines) && p.lines[i+1] == "" && n == 0 {
			end = i + 1
		}
		p.addTable(i, end, t)
		p.i = end + 1
		return
	}
	pend := c.pending
	c.pending = nil
	t := &Table{Format: "unaligned", Columns: strings.Split(p.lines[pend[0]], p.sep), Rows: make([][]string, 0, len(pend)-1), RowCount: &n}
	for _, j := range pend[1:] {
		row := strings.Split(p.lines[j], p.sep)
		if len(row) != len(t.Columns) {
			p.warn(j, "unaligned row with "+strconv.Itoa(len(row))+" fields under a header of "+strconv.Itoa(len(t.Columns)))
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) != n {
		p.warn(i, "unaligned table footer counts "+strconv.Itoa(n)+" rows, but "+strconv.Itoa(len(t.Rows))+" lines were read (a value with a newline?)")
	}
	p.addTable(pend[0], i, t)
	p.i = i + 1
}

// stealRows takes the last n continuation lines of the statement's last
// message back, as the lines of an unaligned table psql printed after it.
func (p *parser) stealRows(st *openStatement, n int) []int {
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
	lines = lines[:len(lines)-n]
	m.Text = strings.Join(lines, "\n")
	m.EndLine = cut
	m.Raw = p.join(first, cut-1)
	rows := make([]int, 0, n)
	for j := cut; j <= last; j++ {
		rows = append(rows, j)
	}
	return rows
}
