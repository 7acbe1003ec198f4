package psql

import (
	"strconv"
	"strings"
)

// Aligned tables (psql's default format): a header, a separator line
// whose "+" mark where the columns end, and rows cut at those columns.

// tableAt reports whether an aligned table starts at line i: a header
// line, then its separator, with titles also a centred title line first.
// It returns the header's line and the column ends, in the parser's
// room for them (valid until the next call).
func (p *parser) tableAt(i int, titles bool) (hdr int, ends []int, ok bool) {
	if p.seen.kind == lineTable {
		p.seen = seen{} // the ends it found are the ones written next
	}
	l := p.line(i)
	if l == "" || l[0] != ' ' && (!titles || l != p.set.titled) {
		// A header's line, or a title's, starts with a space; but a
		// title as wide as its table, which psql does not centre.
		return 0, nil, false
	}
	if l[0] == ' ' && p.has(i+1) && p.isHeader(i, i+1) {
		if ends = columns(p.line(i+1), p.ends); ends != nil {
			p.ends = ends
			return i, ends, true
		}
	}
	if titles && p.has(i+2) && p.isHeader(i+1, i+2) && (l == p.set.titled || centred(l, p.line(i+2)) && p.titleLine(l)) {
		if ends = columns(p.line(i+2), p.ends); ends != nil {
			p.ends = ends
			return i + 1, ends, true
		}
	}
	return 0, nil, false
}

// titleLine reports whether l, centred over a table, is its title: the
// title set (\pset title, \C), or any line but one that reads as a
// whole statement, which is one psql -a echoed with the blanks that
// centre it (found by an outside tester) unless a statement echoed before
// it waits for its output, whose title it then is.
func (p *parser) titleLine(l string) bool {
	t := trimBlank(l)
	if t == trimBlank(p.set.titled) && t != "" || !(startsSQL(t) && strings.HasSuffix(t, ";")) {
		return true
	}
	return p.accepting() != nil
}

// centred reports whether title is centred over a table whose rule is
// sep, as psql centres a table's title (\d's "Table ..."): as many blanks
// before it as half the room its width leaves, none when it is as wide or
// wider. A statement psql -a echoed with blanks before it, over its
// output, is not.
func centred(title, sep string) bool {
	t := strings.TrimLeft(title, " ")
	tw, w := width(t), width(sep)
	want := 0
	if tw < w {
		want = (w - tw) / 2
	}
	return len(title)-len(t) == want
}

// isHeader reports whether line h is an aligned table's header over the
// separator on line s: as wide, with "|" where it has "+".
func (p *parser) isHeader(h, s int) bool {
	hl, sl := p.line(h), p.line(s)
	if len(hl) < 2 || hl[0] != ' ' || len(sl) == 0 || sl[0] != '-' {
		return false // every header line starts with a space
	}
	// As wide as the separator; or narrower, the blanks psql pads its
	// last column with stripped (an editor, a terminal's copy and paste,
	// git's whitespace fixes): its last column's name then ends within.
	if w := width(hl); w > len(sl) || w < len(sl) && hl[len(hl)-1] == ' ' {
		return false
	}
	ends := columns(sl, p.ends)
	if ends == nil {
		return false
	}
	p.ends = ends
	p.offs = offsets(hl, ends[:len(ends)-1], p.offs)
	for _, o := range p.offs {
		if o < 0 || o >= len(hl) || hl[o] != '|' {
			return false
		}
	}
	return true
}

// columns reads an aligned table's separator line ("---+-----") into
// where each column ends: the display column of each "+", then the line's
// width, into ends' room. It returns nil for any other line.
func columns(sep string, ends []int) []int {
	if len(sep) == 0 || sep[0] != '-' || sep[len(sep)-1] != '-' {
		return nil
	}
	ends = ends[:0]
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
		if start < len(line) && line[start] != ' ' && line[start] != '.' {
			// The border's space before the value; '.' where a value
			// of \pset format wrapped goes on from the line before.
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
		t := v
		if m != '.' {
			t = trimRight(v) // a value that wraps fills its column: no padding
		}
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

// alignedTable reads an aligned table starting at line p.i: its title,
// header and rows, then the empty line psql prints after it.
func (p *parser) alignedTable(i int) {
	var hdr int
	var ends []int
	if s := p.seenAt(i, lineTable); s != nil {
		hdr, ends = s.hdr, p.ends
	} else {
		hdr, ends, _ = p.tableAt(i, true)
	}
	box := &tableBox{}
	t := &box.Table
	t.Format = "aligned"
	if hdr > i {
		t.Title = strings.TrimSpace(p.line(i))
	}
	// The columns' names and the values of the rows ahead, in one
	// allocation.
	n := p.rowsAhead(hdr + 2)
	block := p.alignedColumns(t, hdr, ends, make([]string, (n+1)*len(ends)))
	left := p.flags(len(ends))
	j, multi := p.alignedRows(box, hdr+2, ends, left, block)
	unpad(t.Rows, left, multi)
	end := j - 1
	if p.has(j) && p.line(j) == "" {
		end = j // the empty line psql prints after a table
		j++
	}
	if t.RowCount != nil && *t.RowCount != len(t.Rows) {
		p.warn(end, "aligned table footer counts "+strconv.Itoa(*t.RowCount)+" rows, but "+strconv.Itoa(len(t.Rows))+" were read")
	}
	p.addTable(i, end, t)
	p.i = j
}

// alignedColumns reads the column names from the header on line hdr,
// into the start of block when they fit, and returns the rest of block.
func (p *parser) alignedColumns(t *Table, hdr int, ends []int, block []string) []string {
	var ok bool
	p.cells, p.marks, p.scratch, ok = splitAligned(p.line(hdr), ends, p.cells, p.marks, p.flags(len(ends)), p.scratch)
	if !ok {
		p.cells = strings.Split(p.line(hdr), "|")
	}
	if k := len(p.cells); k <= len(ends) {
		t.Columns, block = block[:k:k], block[len(ends):]
	} else {
		t.Columns = make([]string, k)
	}
	for k, c := range p.cells {
		t.Columns[k] = strings.TrimSpace(c)
	}
	return block
}

// flags is the parser's room for n flags, all false, valid until the
// next call.
func (p *parser) flags(n int) []bool {
	if cap(p.left) < n {
		p.left = make([]bool, n)
	}
	p.left = p.left[:n]
	clear(p.left)
	return p.left
}

// rowsAhead is the number of lines from line j before the footer or the
// empty line after the table, up to maxRowsAhead: room for as many rows.
func (p *parser) rowsAhead(j int) int {
	n := 0
	for k := j; n < maxRowsAhead && p.has(k); k++ {
		l := p.line(k)
		if _, isFooter := footerCount(l); isFooter || l == "" {
			break
		}
		n++
	}
	return n
}

// maxRowsAhead bounds the lines of a table looked at ahead of its rows,
// and the rows whose values are allocated at once.
const maxRowsAhead = 4096

// alignedRows reads the rows of b's table from line j to its footer or
// the empty line after it, their values into block (room for the rows
// up to rowsAhead), and returns the line after them and whether a value
// went on over several lines; left gathers the columns a value shows are
// left-aligned.
func (p *parser) alignedRows(b *tableBox, j int, ends []int, left []bool, block []string) (int, bool) {
	t := &b.Table
	t.Rows = make([][]string, 0, len(block)/max(len(ends), 1))
	var row []string
	var cont []byte // the marks of the row being continued
	multi := false  // a value went on over several lines
	for p.has(j) {
		if j&(maxRowsAhead-1) == 0 {
			p.pass(j - 1) // the line before may be warned of after the loop
		}
		l := p.line(j)
		if n, isFooter := footerCount(l); isFooter && cont == nil {
			b.setCount(n)
			j++
			break
		}
		if l == "" {
			if cont != nil || len(ends) != 1 || !p.emptyValues(j, len(t.Rows)) {
				break
			}
			t.Rows = append(t.Rows, []string{""})
			j++
			continue
		}
		// A new row's values go straight into its place in block.
		dst := p.cells[:0]
		if cont == nil {
			if len(block) < len(ends) {
				block = make([]string, min(max(64, len(t.Rows)), maxRowsAhead)*len(ends))
			}
			dst = block[:0:len(ends)]
		}
		var cells []string
		var ok bool
		cells, p.marks, p.scratch, ok = splitAligned(l, ends, dst, p.marks, left, p.scratch)
		if !ok {
			if cells, ok = p.looseRow(l, len(ends)); !ok {
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
			ok = false // its values are not in block
		}
		switch {
		case cont == nil && ok:
			row, block = cells, block[len(ends):]
		case cont == nil:
			row = cells
		default:
			p.cells = cells
			multi = true
			continueRow(row, cells, cont)
		}
		cont = p.goesOn()
		if cont == nil {
			t.Rows = append(t.Rows, row)
		}
		j++
	}
	if cont != nil {
		t.Rows = append(t.Rows, row)
	}
	return j, multi
}

// emptyValues reports whether the empty line j of a one-column table,
// after its rows read so far, is a row: an empty value whose line lost
// the blanks psql printed (stripped on its way into a post or a
// repository), as the footer ahead shows by counting it and every line
// up to it as rows. Without a footer it is the end of the table.
func (p *parser) emptyValues(j, rows int) bool {
	for k := j; k < j+maxRowsAhead && p.has(k); k++ {
		if n, isFooter := footerCount(p.line(k)); isFooter {
			return n == rows+k-j
		}
	}
	return false
}

// looseRow splits a row that does not line up with the separator (a wide
// character psql measured otherwise, or a value holding "|") on " | ",
// reporting whether that gives n values.
func (p *parser) looseRow(l string, n int) ([]string, bool) {
	cells := strings.Split(l, " | ")
	p.marks = p.marks[:0]
	for k := range cells {
		cells[k] = strings.TrimSpace(cells[k])
		p.marks = append(p.marks, ' ')
	}
	return cells, len(cells) == n
}

// continueRow adds the values of the next line of a row to it, as its
// marks say: "+" after a value that goes on after a newline, "." after
// one that wraps.
func continueRow(row, cells []string, cont []byte) {
	for k := range row {
		switch cont[k] {
		case '+':
			row[k] += "\n" + cells[k]
		case '.':
			row[k] += cells[k] // the text goes on where the '.' is: its blanks are its own
		}
	}
}

// goesOn returns a copy of the marks of the line just split when a value
// in it goes on on the next line, or nil.
func (p *parser) goesOn() []byte {
	for _, m := range p.marks {
		if m != ' ' {
			return append([]byte(nil), p.marks...)
		}
	}
	return nil
}

// unpad drops the padding before the values of the right-aligned columns
// (those left does not mark): splitAligned keeps it, as a column is known
// to be left-aligned only once a value shows it.
func unpad(rows [][]string, left []bool, multi bool) {
	for k, l := range left {
		if l {
			continue
		}
		for _, r := range rows {
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
