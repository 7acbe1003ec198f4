package psql

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

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

// columns reads an aligned table's separator line ("---+-----") into
// where each column ends: the display column of each "+", then the line's
// width. It returns nil for any other line.
func columns(sep string) []int {
	if len(sep) == 0 || sep[0] != '-' || sep[len(sep)-1] != '-' {
		return nil
	}
	var ends []int
	for i := 0; i < len(sep); i++ {
		switch sep[i] {
		case '-':
		case '+':
			if sep[i-1] != '-' || sep[i+1] != '-' {
				return nil
			}
			ends = append(ends, i)
		default:
			return nil
		}
	}
	return append(ends, len(sep))
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

// runeWidth is the number of terminal columns psql gives a character:
// 0 for combining marks, 2 for East Asian wide ones, else 1.
func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r >= 0x1100 && (r <= 0x115f ||
		r >= 0x2e80 && r <= 0xa4cf && r != 0x303f ||
		r >= 0xac00 && r <= 0xd7a3 ||
		r >= 0xf900 && r <= 0xfaff ||
		r >= 0xfe30 && r <= 0xfe6f ||
		r >= 0xff00 && r <= 0xff60 ||
		r >= 0xffe0 && r <= 0xffe6 ||
		r >= 0x1f300 && r <= 0x1f64f ||
		r >= 0x1f900 && r <= 0x1f9ff ||
		r >= 0x20000 && r <= 0x3fffd):
		return 2
	}
	return 1
}

// isASCII reports whether s is all ASCII, where a byte is a column.
func isASCII(s string) bool {
	for len(s) >= 8 {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// width is the display width of s.
func width(s string) int {
	if isASCII(s) {
		return len(s)
	}
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

// offsets maps display columns of s to byte offsets: want must be
// increasing; it returns for each the byte offset where that column
// starts, len(s) past the end, or -1 when a wide character straddles it.
func offsets(s string, want []int, out []int) []int {
	out = out[:0]
	if isASCII(s) {
		for _, c := range want {
			out = append(out, min(c, len(s)))
		}
		return out
	}
	col, k := 0, 0
	for i, r := range s {
		for k < len(want) && want[k] <= col {
			if want[k] == col {
				out = append(out, i)
			} else {
				out = append(out, -1)
			}
			k++
		}
		if k == len(want) {
			return out
		}
		col += runeWidth(r)
	}
	for ; k < len(want); k++ {
		if want[k] == col {
			out = append(out, len(s))
		} else if want[k] > col {
			out = append(out, len(s))
		} else {
			out = append(out, -1)
		}
	}
	return out
}

// splitAligned splits one line of an aligned table (border 1) at the
// column ends found by columns. Each value is returned without the
// border's space before it and the padding after it, but with the spaces
// before it (padding in a right-aligned column); mark[i] is
// the character psql put after value i: ' ', '+' when the value goes on
// with a newline on the next line, '.' when it wraps; left[i] is set when
// value i shows it is left-aligned (padding after it). ok is false when
// the line does not have a '|' where the separator has its '+'.
func splitAligned(line string, ends []int, cells []string, mark []byte, left []bool, scratch []int) ([]string, []byte, []int, bool) {
	cells, mark = cells[:0], mark[:0]
	ascii := isASCII(line)
	var offs []int
	if !ascii {
		// The display columns needed: each column's end, and the column
		// before it, where the mark is.
		n := 2 * len(ends)
		if cap(scratch) < 2*n {
			scratch = make([]int, 0, 2*n)
		}
		want := scratch[:0]
		for _, e := range ends {
			want = append(want, e-1, e)
		}
		offs = offsets(line, want, scratch[n:n])
	}
	start, col := 0, 0 // the border's space before the value, in bytes and columns
	for k, e := range ends {
		var markAt, end int
		if ascii {
			markAt, end = min(e-1, len(line)), min(e, len(line))
		} else {
			markAt, end = offs[2*k], offs[2*k+1]
		}
		last := k == len(ends)-1
		if markAt < 0 || end < 0 {
			return cells, mark, scratch, false
		}
		if !last && (end >= len(line) || line[end] != '|') {
			return cells, mark, scratch, false
		}
		if start < len(line) && line[start] != ' ' {
			return cells, mark, scratch, false
		}
		m := byte(' ')
		valEnd := markAt
		if markAt < len(line) {
			switch line[markAt] {
			case '+', '.':
				m = line[markAt]
			case ' ':
				if last {
					valEnd = len(line)
				}
			default:
				if !last {
					return cells, mark, scratch, false
				}
				valEnd = len(line) // the value runs over: psql measured it otherwise
			}
		} else {
			valEnd = len(line)
		}
		v := ""
		if start+1 < valEnd {
			v = line[start+1 : valEnd]
		}
		t := trimRight(v)
		if t != "" && !left[k] {
			// A right-aligned value fills its column to the end.
			if w := e - 1 - (col + 1); len(t) < len(v) || ascii && len(t) < w || !ascii && width(t) < w {
				left[k] = true
			}
		}
		cells = append(cells, t)
		mark = append(mark, m)
		start, col = end+1, e+1
	}
	return cells, mark, scratch, true
}

// trimLeft drops the padding before the values of a right-aligned
// column, line by line.
func trimLeft(v string) string {
	if strings.IndexByte(v, '\n') < 0 {
		return strings.TrimLeft(v, " ")
	}
	parts := strings.Split(v, "\n")
	for i := range parts {
		parts[i] = strings.TrimLeft(parts[i], " ")
	}
	return strings.Join(parts, "\n")
}

// trimRight drops the spaces at the end of s, eight at a time: a
// blank-padded char(n) column is long runs of them.
func trimRight(s string) string {
	const spaces = 0x2020202020202020
	n := len(s)
	for n >= 8 {
		w := uint64(s[n-8]) | uint64(s[n-7])<<8 | uint64(s[n-6])<<16 | uint64(s[n-5])<<24 |
			uint64(s[n-4])<<32 | uint64(s[n-3])<<40 | uint64(s[n-2])<<48 | uint64(s[n-1])<<56
		if w != spaces {
			break
		}
		n -= 8
	}
	for n > 0 && s[n-1] == ' ' {
		n--
	}
	return s[:n]
}

// tableAt reports whether an aligned table starts at line i: a header
// line, then its separator, with titles also a centred title line first.
// It returns the header's line and the column ends.
func (p *parser) tableAt(i int, titles bool) (hdr int, ends []int, ok bool) {
	if i+1 < len(p.lines) && p.isHeader(i, i+1) {
		if ends = columns(p.lines[i+1]); ends != nil {
			return i, ends, true
		}
	}
	if titles && i+2 < len(p.lines) && len(p.lines[i]) > 0 && p.lines[i][0] == ' ' && p.isHeader(i+1, i+2) {
		if ends = columns(p.lines[i+2]); ends != nil {
			return i + 1, ends, true
		}
	}
	return 0, nil, false
}

// isHeader reports whether line h is an aligned table's header over the
// separator on line s: as wide, with "|" where it has "+".
func (p *parser) isHeader(h, s int) bool {
	hl, sl := p.lines[h], p.lines[s]
	if len(hl) < 2 || hl[0] != ' ' || len(sl) == 0 || sl[0] != '-' || len(hl) < len(sl) {
		// Every header line starts with a space and is at least as many
		// bytes as the separator is columns.
		return false
	}
	if width(hl) != len(sl) {
		return false
	}
	ends := columns(sl)
	if ends == nil {
		return false
	}
	want := make([]int, len(ends)-1)
	copy(want, ends)
	offs := offsets(hl, want, nil)
	for _, o := range offs {
		if o < 0 || o >= len(hl) || hl[o] != '|' {
			return false
		}
	}
	return true
}

// alignedTable reads an aligned table starting at line p.i.
func (p *parser) alignedTable(i int) {
	hdr, ends, _ := p.tableAt(i, true)
	t := &Table{Format: "aligned"}
	if hdr > i {
		t.Title = strings.TrimSpace(p.lines[i])
	}
	left := make([]bool, len(ends))
	var ok bool
	p.cells, p.marks, p.scratch, ok = splitAligned(p.lines[hdr], ends, p.cells, p.marks, make([]bool, len(ends)), p.scratch)
	if !ok {
		p.cells = strings.Split(p.lines[hdr], "|")
	}
	t.Columns = make([]string, len(p.cells))
	for k, c := range p.cells {
		t.Columns[k] = strings.TrimSpace(c)
	}
	j := hdr + 2
	// Room for as many rows as there are lines before the footer or the
	// empty line after the table, in one block.
	n := 0
	for k := j; k < len(p.lines) && p.lines[k] != ""; k++ {
		if _, isFooter := footerCount(p.lines[k]); isFooter {
			break
		}
		n++
	}
	t.Rows = make([][]string, 0, n)
	block := make([]string, n*len(ends))
	var row []string
	var cont []byte // the marks of the row being continued
	multi := false  // a value went on over several lines
	for j < len(p.lines) {
		l := p.lines[j]
		if n, isFooter := footerCount(l); isFooter && cont == nil {
			t.RowCount = &n
			j++
			break
		}
		if l == "" {
			break
		}
		// A new row's values go straight into its place in block.
		dst := p.cells[:0]
		if cont == nil {
			if len(block) < len(ends) {
				block = make([]string, 64*len(ends))
			}
			dst = block[:0:len(ends)]
		}
		var cells []string
		cells, p.marks, p.scratch, ok = splitAligned(l, ends, dst, p.marks, left, p.scratch)
		if !ok {
			// A wide character psql measured otherwise, or a value holding
			// "|": split on " | " when that gives the right count.
			cells = strings.Split(l, " | ")
			p.marks = p.marks[:0]
			for k := range cells {
				cells[k] = strings.TrimSpace(cells[k])
				p.marks = append(p.marks, ' ')
			}
			if len(cells) != len(ends) {
				p.warn(j, "aligned table row that does not fit its header")
				if cont != nil {
					t.Rows = append(t.Rows, row)
					cont = nil
				}
				r := make([]string, len(ends))
				r[0] = l
				t.Rows = append(t.Rows, r)
				j++
				continue
			}
		}
		switch {
		case cont == nil && ok:
			row, block = cells, block[len(ends):]
		case cont == nil:
			row = cells
		default:
			p.cells = cells
			multi = true
			for k := range row {
				switch cont[k] {
				case '+':
					row[k] += "\n" + cells[k]
				case '.':
					row[k] += strings.TrimLeft(cells[k], " ")
				}
			}
		}
		cont = nil
		for _, m := range p.marks {
			if m != ' ' {
				cont = append(cont[:0], p.marks...)
				break
			}
		}
		if cont == nil {
			t.Rows = append(t.Rows, row)
		}
		j++
	}
	if cont != nil {
		t.Rows = append(t.Rows, row)
	}
	for k, l := range left {
		if l {
			continue
		}
		for _, r := range t.Rows {
			if v := r[k]; v != "" && v[0] == ' ' {
				if multi {
					r[k] = trimLeft(v)
					continue
				}
				n := 1
				for n < len(v) && v[n] == ' ' {
					n++
				}
				r[k] = v[n:]
			}
		}
	}
	end := j - 1
	if j < len(p.lines) && p.lines[j] == "" {
		end = j // the empty line psql prints after a table
		j++
	}
	if t.RowCount != nil && *t.RowCount != len(t.Rows) {
		p.warn(end, "aligned table footer counts "+strconv.Itoa(*t.RowCount)+" rows, but "+strconv.Itoa(len(t.Rows))+" were read")
	}
	p.addTable(i, end, t)
	p.i = j
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
