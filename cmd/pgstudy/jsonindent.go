package main

import (
	"bufio"
)

// indenter indents compact JSON as it is written, as json.Indent does with
// no prefix and an indent of two spaces, without holding the document:
// json.Encoder's SetIndent builds the indented copy in memory, which for a
// psql output of a million statements is ten times the input.
type indenter struct {
	w       *bufio.Writer
	depth   int
	inStr   bool
	escaped bool
	opened  bool // the last token opened an object or array
}

func (in *indenter) newline() {
	in.w.WriteByte('\n')
	for range in.depth {
		in.w.WriteString("  ")
	}
}

func (in *indenter) Write(p []byte) (int, error) {
	for _, c := range p {
		if in.inStr {
			in.w.WriteByte(c)
			switch {
			case in.escaped:
				in.escaped = false
			case c == '\\':
				in.escaped = true
			case c == '"':
				in.inStr = false
			}
			continue
		}
		if c == '\n' { // the Encoder's end of a value; the caller ends lines
			continue
		}
		if in.opened {
			in.opened = false
			if c == '}' || c == ']' { // {} and [] stay on one line
				in.depth--
				in.w.WriteByte(c)
				continue
			}
			in.newline()
		}
		switch c {
		case '{', '[':
			in.w.WriteByte(c)
			in.depth++
			in.opened = true
		case '}', ']':
			in.depth--
			in.newline()
			in.w.WriteByte(c)
		case ',':
			in.w.WriteByte(c)
			in.newline()
		case ':':
			in.w.WriteString(": ")
		case '"':
			in.inStr = true
			in.w.WriteByte(c)
		default:
			in.w.WriteByte(c)
		}
	}
	return len(p), nil
}
