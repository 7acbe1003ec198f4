package explain

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/parse"
)

// textLines reads the input's lines for Text and strips what
// psql adds (see stripPsql). The lines are gathered into one string and
// handed out as parts of it: a string a line was the parser's largest
// cost after its figures. The plan's strings share that memory, as
// JSON's share its input's.
func textLines(r io.Reader, source string) ([]string, error) {
	l := parse.NewLines(r, source)
	var all strings.Builder
	if n, ok := r.(interface{ Len() int }); ok {
		all.Grow(n.Len() + 1) // the last line's "\n" may be added
	}
	for l.Next() {
		all.Write(l.Bytes())
		all.WriteByte('\n')
	}
	if err := l.Err(); err != nil {
		return nil, err
	}
	text := all.String()
	lines := make([]string, 0, l.Line())
	for text != "" {
		i := strings.IndexByte(text, '\n')
		lines, text = append(lines, text[:i]), text[i+1:]
	}
	stripPsql(lines, false)
	return lines, nil
}

// jsonInput reads the input for JSON, refusing binary input
// as parse.NewLines does, and strips what psql adds (see stripPsql).
func jsonInput(r io.Reader, source string) (string, error) {
	data, err := parse.ReadText(r, source)
	if err != nil {
		return "", err
	}
	first := strings.TrimLeft(data, " \t\r\n")
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	if strings.TrimSpace(first) != "QUERY PLAN" {
		return data, nil
	}
	lines := strings.Split(data, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	stripPsql(lines, true)
	return strings.Join(lines, "\n"), nil
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
