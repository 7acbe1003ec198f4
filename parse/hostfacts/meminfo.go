package hostfacts

import (
	"io"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// Memory is what /proc/meminfo says: each line's number by its key, in
// KiB for the lines the kernel prints in "kB" (all but the huge page
// counts), as a count for the others.
type Memory struct {
	KiB    map[string]uint64 `json:"kib"`
	Counts map[string]uint64 `json:"counts,omitempty"` // HugePages_Total, ...
}

// TotalKiB is the memory the kernel manages (MemTotal), or false.
func (m Memory) TotalKiB() (uint64, bool) {
	n, ok := m.KiB["MemTotal"]
	return n, ok
}

// Meminfo reads a copy of /proc/meminfo. A line that is not "Key:
// N" or "Key: N kB" is a warning; input without a MemTotal line is not
// /proc/meminfo, an error.
func Meminfo(r io.Reader, source string) (Memory, []parse.Warning, error) {
	m := Memory{KiB: map[string]uint64{}}
	var warns []parse.Warning
	l := parse.NewLines(r, source)
	for l.Next() {
		if l.Line() > maxLines {
			return Memory{}, nil, parse.Errorf(source, l.Line(), "more than %d lines; a /proc/meminfo has a few dozen", maxLines)
		}
		text := l.Text()
		if strings.TrimSpace(text) == "" {
			continue
		}
		if msg := m.line(text); msg != "" {
			warns = append(warns, parse.Warning{Source: source, Line: l.Line(), Text: parse.Excerpt(text), Msg: msg})
		}
	}
	if err := l.Err(); err != nil {
		return Memory{}, nil, err
	}
	if _, ok := m.TotalKiB(); !ok {
		if l.Line() == 0 {
			return Memory{}, nil, parse.Errorf(source, 0, "empty input; expected /proc/meminfo")
		}
		return Memory{}, warns, parse.Errorf(source, 0, "not /proc/meminfo: no \"MemTotal: N kB\" line")
	}
	if len(m.Counts) == 0 {
		m.Counts = nil
	}
	return m, warns, nil
}

// line reads one line, returning why it was not understood, or "".
func (m *Memory) line(text string) string {
	key, value, ok := keyValue(text, ':')
	if !ok {
		return "want \"Key: N kB\""
	}
	if _, dup := m.KiB[key]; dup {
		return "a second " + num.Quote(key) + " line"
	}
	if _, dup := m.Counts[key]; dup {
		return "a second " + num.Quote(key) + " line"
	}
	digits, kb := strings.CutSuffix(value, " kB")
	n, ok := num.Uint(strings.TrimSpace(digits))
	switch {
	case !ok:
		return key + ": not a number: " + num.Quote(value)
	case kb:
		m.KiB[key] = n
	default:
		if m.Counts == nil {
			m.Counts = map[string]uint64{}
		}
		m.Counts[key] = n
	}
	return ""
}
