package main

// indenter indents compact JSON as it is written, as json.Indent does with
// no prefix and an indent of two spaces, without holding the document:
// json.Encoder's SetIndent builds the indented copy in memory, which for a
// psql output of a million statements is ten times the input.
type indenter struct {
	w       *recordOut
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

// structural are the bytes the indenter acts on outside strings; a run
// of others (a number, true, false, null) is written at once.
var structural = [256]bool{'{': true, '}': true, '[': true, ']': true, ',': true, ':': true, '"': true, '\n': true}

// Write indents p, the next part of the document. A string's run of
// plain bytes, and a number's, is written at once: a byte at a time, the
// indenter cost as much as parsing the server log it wrote.
func (in *indenter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if in.inStr {
			if in.escaped {
				in.escaped = false
				in.w.WriteByte(p[0])
				p = p[1:]
				continue
			}
			i := 0
			for i < len(p) && p[i] != '"' && p[i] != '\\' {
				i++
			}
			if i == len(p) {
				in.w.Write(p)
				break
			}
			in.w.Write(p[:i+1])
			if p[i] == '\\' {
				in.escaped = true
			} else {
				in.inStr = false
			}
			p = p[i+1:]
			continue
		}
		c := p[0]
		if c == '\n' { // the Encoder's end of a value; the caller ends lines
			p = p[1:]
			continue
		}
		if in.opened {
			in.opened = false
			if c == '}' || c == ']' { // {} and [] stay on one line
				in.depth--
				in.w.WriteByte(c)
				p = p[1:]
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
			i := 1
			for i < len(p) && !structural[p[i]] {
				i++
			}
			in.w.Write(p[:i])
			p = p[i:]
			continue
		}
		p = p[1:]
	}
	return n, nil
}
