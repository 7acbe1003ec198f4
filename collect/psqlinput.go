package collect

import (
	"regexp"
	"strings"
)

// psqlInput is what psql is fed: its timing on, the settings, the
// statement. Queries are echoed so that each Time: line follows its
// statement in the output.
func psqlInput(sets []string, sql string, version int32) []byte {
	var b strings.Builder
	b.WriteString("\\set ON_ERROR_STOP on\n\\set ECHO queries\n\\timing on\n")
	for _, s := range sets {
		b.WriteString(s + ";\n")
	}
	sql = strings.TrimSpace(sql)
	b.WriteString(sql)
	if !terminated(sql) {
		// On a line of its own: the statement may end in a -- comment.
		b.WriteString("\n;")
	}
	b.WriteString("\n")
	if version >= 150000 {
		b.WriteString("\\timing off\n\\set ECHO none\nselect pg_stat_force_next_flush() \\g /dev/null\n")
	}
	return []byte(b.String())
}

// terminated reports whether SQL ends with a semicolon that psql will see:
// one outside quotes, dollar quotes and comments.
func terminated(sql string) bool {
	last := byte(0)
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(sql[i+1:], c)
			if j < 0 {
				return false
			}
			i += j + 1
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return last == ';'
			}
			i += j
			continue
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return false
			}
			i += j + 3
			continue
		case c == '$':
			if m := dollarTag.FindString(sql[i:]); m != "" {
				j := strings.Index(sql[i+len(m):], m)
				if j < 0 {
					return false
				}
				i += len(m) + j + len(m) - 1
			}
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			last = c
		}
	}
	return last == ';'
}

var dollarTag = regexp.MustCompile(`^\$([A-Za-z_][A-Za-z_0-9]*)?\$`)
