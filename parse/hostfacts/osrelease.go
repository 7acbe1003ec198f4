package hostfacts

import (
	"io"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// OS is what /etc/os-release says of the distribution: each variable by
// its name (PRETTY_NAME, ID, VERSION_ID, ...), unquoted.
type OS struct {
	Vars map[string]string `json:"vars"`
}

// PrettyName is the distribution's name for display ("Debian GNU/Linux 12
// (bookworm)"), or "" when the file has none.
func (o OS) PrettyName() string { return o.Vars["PRETTY_NAME"] }

// OSRelease reads a copy of /etc/os-release (os-release(5)): KEY=value
// lines, the value bare or in single or double quotes (in double quotes a
// backslash escapes $, ", \ and `), with blank lines and "#" comments. A
// line that is none of these is a warning; input without a variable is
// not an os-release file, an error.
func OSRelease(r io.Reader, source string) (OS, []parse.Warning, error) {
	o := OS{Vars: map[string]string{}}
	var warns []parse.Warning
	l := parse.NewLines(r, source)
	for l.Next() {
		if l.Line() > maxLines {
			return OS{}, nil, parse.Errorf(source, l.Line(), "more than %d lines; an os-release file has a few dozen", maxLines)
		}
		text := l.Text()
		if s := strings.TrimSpace(text); s == "" || s[0] == '#' {
			continue
		}
		key, value, ok := keyValue(text, '=')
		if ok && strings.ContainsAny(key, " \t") {
			ok = false
		}
		if ok {
			value, ok = unquote(value)
		}
		if !ok {
			warns = append(warns, parse.Warning{Source: source, Line: l.Line(), Text: parse.Excerpt(text), Msg: "want KEY=value or KEY=\"value\""})
			continue
		}
		o.Vars[key] = value
	}
	if err := l.Err(); err != nil {
		return OS{}, nil, err
	}
	if len(o.Vars) == 0 {
		if l.Line() == 0 {
			return OS{}, nil, parse.Errorf(source, 0, "empty input; expected /etc/os-release")
		}
		return OS{}, warns, parse.Errorf(source, 0, "not an os-release file: no KEY=value line")
	}
	return o, warns, nil
}

// unquote takes a value out of its quotes; false for a quote not closed.
func unquote(v string) (string, bool) {
	if v == "" || (v[0] != '"' && v[0] != '\'') {
		return v, true
	}
	q := v[0]
	if len(v) < 2 || v[len(v)-1] != q {
		return "", false
	}
	v = v[1 : len(v)-1]
	if q == '\'' || !strings.Contains(v, `\`) {
		return v, true
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("$\"\\`", v[i+1]) >= 0 {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String(), true
}
