package explain

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/parse"
)

// planLines hands out the lines of a text plan as parts of the text
// ReadText read, split as parse.Lines splits them (a trailing "\r"
// dropped), with what psql adds stripped (see stripPsql). Unframed text,
// what the server returns, is cut a line at a time as it is read: a
// string a line, and then a slice of them, were the parser's largest
// costs after its figures. The plan's strings share the text's memory,
// as JSON's share its input's. Its state is offsets, not strings: a
// string stored at every line ran the write barrier while the collector
// marked.
type planLines struct {
	text       string   // the whole text
	lines      []string // the lines, when psql's frame was stripped
	pos        int      // the offset in text of the next line
	start, end int      // the last line handed out is text[start:end]
	n          int      // the number of the last line handed out
}

// newPlanLines is the lines of text: a value, which its reader holds in
// its own state rather than in an allocation of its own.
func newPlanLines(text string) planLines {
	p := planLines{text: text}
	if framed(text) {
		for pos := 0; pos < len(text); {
			start, end, next := cutLine(text, pos)
			p.lines = append(p.lines, text[start:end])
			pos = next
		}
		stripPsql(p.lines, false)
	}
	return p
}

// next is the next line; false at the end.
func (p *planLines) next() (string, bool) {
	if p.lines != nil {
		if p.n == len(p.lines) {
			return "", false
		}
		p.n++
		return p.lines[p.n-1], true
	}
	if p.pos >= len(p.text) {
		return "", false
	}
	p.start, p.end, p.pos = cutLine(p.text, p.pos)
	p.n++
	return p.text[p.start:p.end], true
}

// line is the last line handed out.
func (p *planLines) line() string {
	if p.lines != nil {
		return p.lines[p.n-1]
	}
	return p.text[p.start:p.end]
}

// cutLine finds the line that starts at offset pos of text: it is
// text[start:end], without its "\n" or "\r\n", and the next starts at
// next.
func cutLine(text string, pos int) (start, end, next int) {
	end = len(text)
	next = end
	if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
		end, next = pos+i, pos+i+1
	}
	if end > pos && text[end-1] == '\r' {
		end--
	}
	return pos, end, next
}

// framed reports whether the first line that is not blank is psql's
// "QUERY PLAN" header.
func framed(text string) bool {
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		if s := strings.TrimSpace(line); s != "" {
			return s == "QUERY PLAN"
		}
		text = rest
	}
	return false
}

// Parse reads EXPLAIN output in either format, told apart by its first
// character that is not white space, after psql's "QUERY PLAN" header and
// the dashes under it if it has them: '[' or '{' is JSON, anything else
// text. The input is read once: a file of known size into memory of its
// size (a reader that hid its size, to peek at the first character, cost
// a copy of the input and room for another).
func Parse(r io.Reader, source string) (*Plan, []parse.Warning, error) {
	r, err := judgeStart(r, source)
	if err != nil {
		return nil, nil, err
	}
	data, err := parse.ReadText(r, source)
	if err != nil {
		return nil, nil, err
	}
	data = strings.TrimPrefix(data, "\ufeff") // a UTF-8 byte order mark, as some editors write
	if isJSON(data) {
		return parseJSON(data, source)
	}
	return parseText(data, source)
}

// judgedBytes is how much of an input larger than it Parse reads to
// judge its first line before it reads the whole.
const judgedBytes = 64 << 10

// judgeStart refuses an input larger than judgedBytes whose first line is
// not a plan's, from its first judgedBytes: a file of another kind named
// by mistake was read whole, up to 256 MiB, to be refused at its first
// line. It returns the reader to read the whole input from (what it read,
// then the rest). An input in memory, or of a known size within
// judgedBytes, is read whole as it is: the analysis reads its plans from
// strings.
func judgeStart(r io.Reader, source string) (io.Reader, error) {
	if _, inMemory := r.(io.WriterTo); inMemory {
		return r, nil
	}
	if size := parse.Size(r); size >= 0 && size <= judgedBytes {
		return r, nil
	}
	head := make([]byte, judgedBytes)
	n, err := io.ReadFull(r, head)
	head = head[:n]
	if err != nil { // all of it (or a read error, which reading it again gives)
		return io.MultiReader(bytes.NewReader(head), r), nil
	}
	rest := io.MultiReader(bytes.NewReader(head), r)
	i := bytes.LastIndexByte(head, '\n')
	if i < 0 || bytes.IndexByte(head, 0) >= 0 {
		return rest, nil // ReadText judges it
	}
	text := string(head[:i+1])
	if isJSON(text) {
		return rest, nil
	}
	var se *parse.SyntaxError
	if _, _, err := parseText(text, source); errors.As(err, &se) && strings.HasPrefix(se.Msg, notFirstLine) {
		return nil, err
	}
	return rest, nil
}

// isJSON reports whether the plan in data starts with '[' or '{'.
func isJSON(data string) bool {
	const blank = " \t\r\n"
	s := strings.TrimLeft(data, blank)
	if framed(s) {
		_, s, _ = strings.Cut(s, "\n")
		if line, rest, _ := strings.Cut(s, "\n"); isDashes(line) {
			s = rest
		}
		s = strings.TrimLeft(s, blank)
	}
	return s != "" && (s[0] == '[' || s[0] == '{')
}

// jsonInput strips what psql adds (see stripPsql) around the input for
// JSON, data, which parse.ReadText read.
func jsonInput(data string) string {
	first := strings.TrimLeft(data, " \t\r\n")
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	if strings.TrimSpace(first) != "QUERY PLAN" {
		return data
	}
	lines := strings.Split(data, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	stripPsql(lines, true)
	return strings.Join(lines, "\n")
}

// stripPsql blanks or strips, in place and so keeping line numbers, what
// psql adds around a query's result: the "QUERY PLAN" header, the dashes
// under it (aligned format), the "(N rows)" footer, the space that starts
// every aligned row and, in JSON (continuation is true), the "+" that ends
// every aligned line continued on the next.
func stripPsql(lines []string, continuation bool) {
	first := -1
	for i, s := range lines {
		if strings.TrimSpace(s) != "" {
			first = i
			break
		}
	}
	if first < 0 || strings.TrimSpace(lines[first]) != "QUERY PLAN" {
		return
	}
	lines[first] = ""
	end := len(lines)
	for i := len(lines) - 1; i > first; i-- {
		s := strings.TrimSpace(lines[i])
		if s == "" {
			continue
		}
		if isRowCount(s) {
			lines[i] = ""
			end = i
		}
		break
	}
	if first+1 >= end || !isDashes(lines[first+1]) {
		return // unaligned: psql -A without -t
	}
	width := utf8.RuneCountInString(strings.TrimRight(lines[first+1], " "))
	lines[first+1] = ""
	for i := first + 2; i < end; i++ {
		s := strings.TrimPrefix(lines[i], " ")
		if strings.HasSuffix(s, "+") && (continuation || utf8.RuneCountInString(s) == width-1) {
			s = strings.TrimRight(s[:len(s)-1], " ")
		}
		lines[i] = s
	}
}

func isDashes(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "-") == ""
}

// isRowCount reports whether s is psql's footer: "(1 row)", "(19 rows)".
func isRowCount(s string) bool {
	rest, ok := strings.CutPrefix(s, "(")
	if !ok {
		return false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	return i > 0 && (rest[i:] == " row)" || rest[i:] == " rows)")
}

// lineText is line n (1-based) of data, without its line break.
func lineText(data string, n int) string {
	for i := 1; i < n; i++ {
		j := strings.IndexByte(data, '\n')
		if j < 0 {
			return ""
		}
		data = data[j+1:]
	}
	if j := strings.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return strings.Clone(strings.TrimSuffix(data, "\r")) // not the whole input's memory
}

// firstWord is the start of data, for an error message.
func firstWord(data string) string {
	if i := strings.IndexAny(data, " \t\r\n"); i >= 0 {
		data = data[:i]
	}
	const max = 40
	if len(data) > max {
		data = data[:max]
		for len(data) > 0 && !utf8.ValidString(data) {
			data = data[:len(data)-1]
		}
	}
	return data
}

// shorten cuts a line for an error message.
func shorten(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	for i := max; i > 0; i-- {
		if s[i]&0xC0 != 0x80 {
			return s[:i] + "..."
		}
	}
	return s[:max]
}
