package psql

import "strings"

// lexer follows an echoed statement across lines the way psql's own lexer
// splits its input: a semicolon ends a statement only outside quotes,
// comments, dollar quotes and parentheses. (psql also keeps a semicolon
// inside BEGIN ATOMIC ... END; that is not followed here.)
type lexer struct {
	quote   byte   // '\'' or '"' while inside one
	escape  bool   // inside an E'...' string, where \' does not end it
	dollar  string // the open dollar quote's tag, "$$" or "$body$"
	comment int    // nesting depth of /* */ comments
	paren   int
	sql     bool // the statement being read has something besides comments
}

// sqlCut is the end of one statement within an echo: off is the byte
// offset just past its semicolon (or where a \g meta-command starts) in
// the line, sql whether the statement had any SQL.
type sqlCut struct {
	off int
	sql bool
}

func (x *lexer) reset() { *x = lexer{} }

// topLevel reports whether the lexer is outside quotes and comments.
func (x *lexer) topLevel() bool { return x.quote == 0 && x.dollar == "" && x.comment == 0 }

// sendsBuffer is the meta-commands that send the query buffer, which
// end a statement echoed by psql -a ("select 1 \g").
var sendsBuffer = map[string]bool{
	"g": true, "gx": true, "gset": true, "gexec": true, "gdesc": true,
	"crosstabview": true, "watch": true, "G": true,
}

// inertSQL are the bytes scan does nothing with outside quotes and
// comments, but note that the statement has SQL (or, white space, not
// even that): all but those that open or close something.
var inertSQL = func() (t [256]bool) {
	for c := range t {
		t[c] = true
	}
	for _, c := range []byte("-/'\"$();\\") {
		t[c] = false
	}
	return t
}()

// scan lexes one line, appending to cuts each statement that ends in it.
// It reports whether the line ends with the last statement complete: a cut
// was made and nothing but white space and comments follows it.
func (x *lexer) scan(line string, cuts []sqlCut) ([]sqlCut, bool) {
	cut := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case x.comment > 0:
			i = x.inComment(line, i)
		case x.quote != 0:
			i = x.inQuote(line, i)
		case x.dollar != "":
			i = x.inDollar(line, i)
		case x.sql && inertSQL[c]:
			// A run of bytes that change nothing once the statement
			// has SQL, passed over at once: most of an echo.
			for i+1 < len(line) && inertSQL[line[i+1]] {
				i++
			}
		default:
			switch c {
			case ' ', '\t', '\r', '\n', '\f', '\v':
			case '-':
				if i+1 < len(line) && line[i+1] == '-' {
					return cuts, cut && !x.sql && x.topLevel()
				}
				x.sql = true
			case '/':
				if i+1 < len(line) && line[i+1] == '*' {
					x.comment = 1
					i++
					continue
				}
				x.sql = true
			case '\'', '"', '$':
				i = x.openQuote(line, i)
			case '(':
				x.paren++
				x.sql = true
			case ')':
				if x.paren > 0 {
					x.paren--
				}
				x.sql = true
			case ';':
				if x.paren == 0 {
					cuts = append(cuts, sqlCut{off: i + 1, sql: x.sql})
					x.sql, cut = false, true
				} else {
					x.sql = true
				}
			case '\\':
				if i+1 < len(line) && line[i+1] == ';' { // \; is a semicolon that does not send
					i++
					x.sql = true
					continue
				}
				var sends bool
				if cuts, sends = x.metaCommand(line, i, cuts); sends {
					cut = true
				}
				// The rest of the line is the meta-command's.
				return cuts, cut && !x.sql && x.topLevel()
			default:
				x.sql = true
			}
		}
	}
	return cuts, cut && !x.sql && x.topLevel()
}

// inComment reads line[i] inside a /* */ comment, which nests; it returns
// the index of the last byte read.
func (x *lexer) inComment(line string, i int) int {
	c := line[i]
	if c == '*' && i+1 < len(line) && line[i+1] == '/' {
		x.comment--
		i++
	} else if c == '/' && i+1 < len(line) && line[i+1] == '*' {
		x.comment++
		i++
	}
	return i
}

// inQuote reads line[i] inside a quoted string or identifier, where a
// doubled quote (or a backslash in an E'...' string) escapes; it returns the
// index of the last byte read.
func (x *lexer) inQuote(line string, i int) int {
	c := line[i]
	if x.escape && c == '\\' {
		return i + 1
	}
	if c == x.quote {
		if i+1 < len(line) && line[i+1] == x.quote {
			return i + 1
		}
		x.quote, x.escape = 0, false
	}
	return i
}

// inDollar skips to the end of the open dollar quote, or of the line; it
// returns the index of the last byte read.
func (x *lexer) inDollar(line string, i int) int {
	j := strings.Index(line[i:], x.dollar)
	if j < 0 {
		return len(line)
	}
	i += j + len(x.dollar) - 1
	x.dollar = ""
	return i
}

// openQuote reads the quote, identifier quote or dollar quote that may
// open at line[i]; it returns the index of the last byte read.
func (x *lexer) openQuote(line string, i int) int {
	x.sql = true
	switch line[i] {
	case '\'':
		x.quote = '\''
		x.escape = i > 0 && (line[i-1] == 'e' || line[i-1] == 'E') && (i < 2 || !identByte(line[i-2]))
	case '"':
		x.quote = '"'
	case '$':
		if i == 0 || !identByte(line[i-1]) {
			if tag := dollarTag(line[i:]); tag != "" {
				x.dollar = tag
				i += len(tag) - 1
			}
		}
	}
	return i
}

// metaCommand reads the meta-command at line[i] (a backslash): one that
// sends the query buffer ends the statement there, and it reports so.
func (x *lexer) metaCommand(line string, i int, cuts []sqlCut) ([]sqlCut, bool) {
	j := i + 1
	for j < len(line) && (identByte(line[j]) && line[j] != '$') {
		j++
	}
	if !sendsBuffer[line[i+1:j]] {
		return cuts, false
	}
	cuts = append(cuts, sqlCut{off: i, sql: x.sql})
	x.sql = false
	return cuts, true
}

func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// dollarTag returns the dollar-quote opener s starts with ("$$",
// "$tag$"), or "".
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		c := s[j]
		if c == '$' {
			return s[:j+1]
		}
		if !(c == '_' || c >= 0x80 || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || j > 1 && '0' <= c && c <= '9') {
			return ""
		}
	}
	return ""
}

// keywords are the words an SQL statement starts with.
var keywords = newWordSet(`abort alter analyse analyze begin call checkpoint close cluster comment
	commit copy create deallocate declare delete discard do drop end execute explain fetch grant import
	insert listen load lock merge move notify prepare reassign refresh reindex release reset revoke
	rollback savepoint security select set show start table truncate unlisten update vacuum values with`)

// wordSet is a set of words of ASCII letters, found in any case without
// a copy or a hash: the parser asks it of most lines, where a map's hash
// of the word cost more than these few comparisons.
type wordSet [26][]string // by first letter: the words, in lower case

func newWordSet(words string) *wordSet {
	var s wordSet
	for _, w := range strings.Fields(words) {
		s[w[0]-'a'] = append(s[w[0]-'a'], w)
	}
	return &s
}

// has reports whether w, ASCII letters, is one of the set's words in any
// case ("Select" too).
func (s *wordSet) has(w string) bool {
	if w == "" {
		return false
	}
	c := w[0] | 0x20
	if c < 'a' || c > 'z' {
		return false
	}
	for _, k := range s[c-'a'] {
		if len(k) == len(w) && foldEqual(k, w) {
			return true
		}
	}
	return false
}

// hasCased reports whether w is one of the set's words all in lower or
// all in upper case, as psql echoes SQL ("select", "SELECT", not "Select").
func (s *wordSet) hasCased(w string) bool {
	return s.has(w) && (w[0] >= 'a' && allIn(w, 'a', 'z') || w[0] <= 'Z' && allIn(w, 'A', 'Z'))
}

// foldEqual reports whether lower-case k and w, ASCII letters as long
// as k, are one word in any case.
func foldEqual(k, w string) bool {
	for j := range len(k) {
		if k[j] != w[j]|0x20 {
			return false
		}
	}
	return true
}

// allIn reports whether every byte of w is from lo to hi.
func allIn(w string, lo, hi byte) bool {
	for j := range len(w) {
		if w[j] < lo || w[j] > hi {
			return false
		}
	}
	return true
}

// startsSQL reports whether a line looks like the first line of an
// echoed statement: its first word an SQL keyword all in lower or all in
// upper case, or "(" then such a word, or a comment.
func startsSQL(line string) bool {
	s := trimBlank(line)
	if strings.HasPrefix(s, "--") || strings.HasPrefix(s, "/*") {
		return true
	}
	if strings.HasPrefix(s, "(") {
		s = s[1:]
		for s != "" && (s[0] == ' ' || s[0] == '\t' || s[0] == '(') {
			s = s[1:]
		}
	}
	j := wordEnd(s)
	if j == 0 || !keywords.hasCased(s[:j]) {
		return false
	}
	if j == len(s) {
		return true
	}
	switch s[j] {
	case ' ', '\t', '(', ';':
		return true
	}
	return false
}

// wordEnd is the length of the ASCII letters s starts with.
func wordEnd(s string) int {
	j := 0
	for j < len(s) && ('a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z') {
		j++
	}
	return j
}

// trimBlank is s without the spaces and tabs it starts with: what
// strings.TrimLeft(s, " \t") gives, without the set it makes each call.
func trimBlank(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

// isComment reports whether a line holds only the start of a comment.
func isComment(line string) bool {
	s := trimBlank(line)
	return strings.HasPrefix(s, "--") || strings.HasPrefix(s, "/*")
}
