package hostfacts

import (
	"io"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// CPUs is what /proc/cpuinfo says of the machine's processors.
type CPUs struct {
	Processors int `json:"processors"` // "processor" lines
	// ModelName is the first processor's "model name", which x86 prints;
	// empty where the kernel prints none (most ARM kernels).
	ModelName string `json:"model_name,omitempty"`
}

// CPUInfo reads a copy of /proc/cpuinfo: blocks of "key\t: value" lines,
// one per processor, separated by blank lines. A line without a ":" is a
// warning; input without a "processor" line is not /proc/cpuinfo, an
// error.
func CPUInfo(r io.Reader, source string) (CPUs, []parse.Warning, error) {
	var (
		c     CPUs
		model bool
		warns []parse.Warning
	)
	l := parse.NewLines(r, source)
	for l.Next() {
		if l.Line() > maxLines {
			return CPUs{}, nil, parse.Errorf(source, l.Line(), "more than %d lines; a /proc/cpuinfo has a few dozen per processor", maxLines)
		}
		text := l.Text()
		if strings.TrimSpace(text) == "" {
			continue
		}
		key, value, ok := keyValue(text, ':')
		switch {
		case !ok:
			warns = append(warns, parse.Warning{Source: source, Line: l.Line(), Text: parse.Excerpt(text), Msg: "want \"key: value\""})
		case key == "processor":
			c.Processors++
		case key == "model name" && !model:
			c.ModelName, model = value, true
		}
	}
	if err := l.Err(); err != nil {
		return CPUs{}, nil, err
	}
	if c.Processors == 0 {
		if l.Line() == 0 {
			return CPUs{}, nil, parse.Errorf(source, 0, "empty input; expected /proc/cpuinfo")
		}
		return CPUs{}, warns, parse.Errorf(source, 0, "not /proc/cpuinfo: no \"processor\" line")
	}
	return c, warns, nil
}
