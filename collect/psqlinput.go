package collect

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"strings"
)

// psqlScript is what psql is fed on standard input (psql -f -), in three
// parts. psql says where it is with marker lines on standard output:
// \prompt prints its text, flushes standard output and waits for a line
// of standard input, so each part but the first is sent when the marker
// that ends the one before has been seen, and the collector takes its
// snapshots in between, inside the session:
//
//  1. the settings, echoed; the session's backend PID (\gset, printed
//     with \echo as the "backend" marker); the "before" marker;
//  2. the answer to it, then the statement between \timing on and off,
//     echoed so that its Time: line follows it; the "after" marker;
//  3. the answer to that, then (15+) the flush of the session's
//     statistics, so that the next read of pg_stat_io sees them.
//
// Marker lines are "pgstudy:NAME TOKEN" ("pgstudy:backend TOKEN PID"),
// TOKEN a random one per run, so that no line of a result can pass for
// one; parse/psql reads them back.
type psqlScript struct {
	prologue, body, epilogue string
	token                    string
}

// String is the whole script, as psql read it.
func (s psqlScript) String() string { return s.prologue + s.body + s.epilogue }

// psqlAnswer is the line that answers a marker's \prompt.
const psqlAnswer = "go\n"

func psqlInput(sets []string, sql string, version int32, token string) psqlScript {
	var b strings.Builder
	b.WriteString("\\set ON_ERROR_STOP on\n\\set ECHO queries\n")
	for _, s := range sets {
		b.WriteString(s + ";\n")
	}
	b.WriteString("\\set ECHO none\nselect pg_backend_pid() as pgstudy_backend_pid \\gset\n")
	b.WriteString("\\echo pgstudy:backend " + token + " :pgstudy_backend_pid\n")
	b.WriteString(psqlMarker("before", token))
	s := psqlScript{prologue: b.String(), token: token}

	b.Reset()
	b.WriteString(psqlAnswer + "\\set ECHO queries\n\\timing on\n")
	sql = strings.TrimSpace(sql)
	b.WriteString(sql)
	if !terminated(sql) {
		// On a line of its own: the statement may end in a -- comment.
		b.WriteString("\n;")
	}
	b.WriteString("\n\\timing off\n\\set ECHO none\n")
	b.WriteString(psqlMarker("after", token))
	s.body = b.String()

	s.epilogue = psqlAnswer
	if version >= 150000 {
		s.epilogue += "select pg_stat_force_next_flush() \\g /dev/null\n"
	}
	return s
}

// psqlMarker is the \prompt that prints a marker line and waits.
func psqlMarker(name, token string) string {
	return "\\prompt 'pgstudy:" + name + " " + token + "\\n' pgstudy_go\n"
}

// newToken is a run's marker token: 16 hex digits.
func newToken() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
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
