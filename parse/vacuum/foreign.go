package vacuum

import (
	"strings"
	"unsafe"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/foreign"
)

// Output in another language is refused (see package foreign): these are
// the collector's hooks into that look-up.

// lookForeign notes line as the first in another language if it is one: a
// line the parser did not understand, or a message it skips.
func (s *collector) lookForeign(line int, text string) {
	if s.foreign != nil {
		return
	}
	if lang, ok := foreign.ServerLine(text); ok {
		s.foreign = &parse.Warning{Source: s.source, Line: line, Text: parse.Excerpt(text), Msg: "server " + lang}
	} else if lang, ok := foreign.PsqlLine(text); ok {
		s.foreign = &parse.Warning{Source: s.source, Line: line, Text: parse.Excerpt(text), Msg: "psql " + lang}
	}
}

// foreignError is the refusal of the input when a line of it was in
// another language: its records would be missing, not wrong, and nothing
// else would say so.
func (s *collector) foreignError() error {
	if f := s.foreign; f != nil {
		if lang, ok := strings.CutPrefix(f.Msg, "psql "); ok {
			return foreign.PsqlError(s.source, f.Line, lang, f.Text)
		}
		return foreign.ServerError(s.source, f.Line, strings.TrimPrefix(f.Msg, "server "), f.Text)
	}
	return nil
}

// transient is b as a string without a copy, for a lookup that keeps no
// part of it (lookForeign clones what it keeps): a log's lines are many,
// and a copy of each would be most of what reading one costs.
func transient(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
