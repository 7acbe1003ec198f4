package psql

import (
	"slices"
	"strings"
)

// psql's meta-commands: their echo, their answers ("Timing is on."), the
// lines they print and the settings they change for the lines after them.

// metaTakes gives line i, of kind k, to the echoed meta-command before
// it, as its answer or its output, reporting whether it did: a statement,
// another meta-command or a Time: line ends the meta-command, and a
// message goes to it as a message.
func (p *parser) metaTakes(i int, k lineKind) bool {
	line := p.line(i)
	if p.echoLeft > 0 || p.metaTable {
		// \echo's text, or the table a meta-command printed, up to
		// the blank line after it.
		p.echoLeft--
		p.metaTable = p.metaTable && line != ""
		p.metaOut = append(p.metaOut, line)
		p.meta.EndLine = i + 1
		return true
	}
	switch k {
	case lineSQL, lineMetaEcho, lineTime:
		p.closeMeta()
		return false
	case lineMessage:
		return false
	case lineTable:
		p.metaTable = true
		p.metaOut = append(p.metaOut, line)
		p.meta.EndLine = i + 1
	case lineMetaResp:
		if p.echoLeft > 0 || p.metaTable {
			break
		}
		p.meta.Response = append(p.meta.Response, line)
		p.meta.EndLine = i + 1
		p.setting(i, line)
	default:
		p.metaOut = append(p.metaOut, line)
		p.meta.EndLine = i + 1
	}
	return true
}

// metaBox is a meta-command's answer that psql did not echo, with room
// for the line it is, in one allocation.
type metaBox struct {
	Meta
	resp [1]string
}

// metaResp reads an answer to a meta-command that psql did not echo.
func (p *parser) metaResp(i int) {
	p.closeStmt()
	p.flushBlock()
	l := p.line(i)
	box := &metaBox{Meta: Meta{Line: i + 1, EndLine: i + 1}, resp: [1]string{l}}
	box.Response = box.resp[:]
	p.addMeta(&box.Meta)
	p.setting(i, l)
}

// metaEcho reads an echoed meta-command ("\timing on"), which takes the
// lines after it.
func (p *parser) metaEcho(i int) {
	if c := p.accepting(); c != nil && !c.copyOut {
		// psql -a echoes no meta-command between a statement and its
		// output: this is output (a row). A COPY's data that copyEnds
		// ended here, before it, is not (found by an outside tester:
		// a \! after a COPY without \timing went into its data).
		c.pending = append(c.pending, pendLine{i, p.line(i)})
		return
	}
	p.closeStmt()
	p.flushBlock()
	p.meta = &Meta{Line: i + 1, EndLine: i + 1, Command: p.line(i)}
	p.addMeta(p.meta)
	p.echoLeft, p.metaTable = echoLines(p.line(i)), false
	p.echoed(i, p.line(i))
	if name, rest, _ := strings.Cut(p.line(i), " "); (name == `\set` || name == `\unset`) && strings.TrimSpace(rest) != "" {
		// It prints nothing: the lines after it are the next
		// statement's output, which \set ECHO none leaves unechoed.
		p.closeMeta()
	}
}

// closeMeta gives the open meta-command its output, gathered in the
// parser's room (one allocation, not one a doubling of it: \! cat
// prints many lines), without its trailing blank lines.
func (p *parser) closeMeta() {
	if m := p.meta; m != nil {
		out := p.metaOut
		for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
			out = out[:len(out)-1]
		}
		if len(out) > 0 {
			m.Output = slices.Clone(out)
		}
		clear(p.metaOut) // the room keeps no part of the input
		p.metaOut = p.metaOut[:0]
		p.meta = nil
	}
}

// setting follows the answers to meta-commands that change how later
// output reads: line i.
func (p *parser) setting(i int, line string) {
	switch {
	case line == "Timing is on.":
		p.timing = true
	case line == "Timing is off.":
		p.timing = false
	case strings.HasPrefix(line, "Output format is "):
		p.setFormat(i, strings.TrimSuffix(line[len("Output format is "):], "."))
	case strings.HasPrefix(line, "Tuples only is "):
		p.set.tuples = line == "Tuples only is on."
		p.settingChanged(i)
	case strings.HasPrefix(line, "Default footer is "):
		p.set.footerOff = line == "Default footer is off."
		p.settingChanged(i)
	case strings.HasPrefix(line, `Title is "`) && strings.HasSuffix(line, `".`):
		p.setTitle(line[len(`Title is "`) : len(line)-2])
		p.settingChanged(i)
	case line == "Title is unset.":
		p.setTitle("")
		p.settingChanged(i)
	case strings.HasPrefix(line, "Expanded display is "):
		p.expanded = line == "Expanded display is on."
		p.settingChanged(i)
	case strings.HasPrefix(line, "Record separator is "):
		p.set.recordSep = ""
		if line != "Record separator is <newline>." {
			p.set.recordSep = strings.TrimSuffix(line[len("Record separator is "):], ".")
		}
		p.settingChanged(i)
	case strings.HasPrefix(line, `Field separator is "`) && strings.HasSuffix(line, `".`):
		p.sep = line[len(`Field separator is "`) : len(line)-2]
	case strings.HasPrefix(line, "Border style is "):
		p.border = styleOf(line, "Border style is 1.", `\pset border `+strings.TrimSuffix(line[len("Border style is "):], "."))
	case strings.HasPrefix(line, "Line style is "):
		p.lineStyle = styleOf(line, "Line style is ascii.", `\pset linestyle `+strings.TrimSuffix(line[len("Line style is "):], "."))
	}
}

// styleOf is "" for psql's default table style (line is def), else the
// setting that drew line's style, for the refusal of its tables.
func styleOf(line, def, setting string) string {
	if line == def {
		return ""
	}
	return setting
}

// styledTable refuses line i, k, output of a table drawn in a style other
// than psql's default (\pset border 0 or 2, \pset linestyle unicode or
// old-ascii): its columns and rows would be misread.
func (p *parser) styledTable(i int, k lineKind) bool {
	style := p.border
	if style == "" {
		style = p.lineStyle
	}
	switch {
	case style == "" || p.unaligned:
		return false
	case k == lineTable, k == lineRecord, k == lineFooter, k == lineField, k == lineUnknown:
		p.refuseStyle(i, style)
		return true
	}
	return false
}

// metaResps are the beginnings of psql's answers to meta-commands.
var metaResps = []string{
	"Timing is ", "Output format is ", "Expanded display is ", "Border style is ", "Target width is ",
	"Field separator ", "Record separator is ", "Default footer is ", "Line style is ", "Null display is ",
	"Locale-adjusted numeric output is ", "Pager ", "Table attributes ", "Title is ", "Tuples only is ",
	"Unicode border line style is ", "Unicode column line style is ", "Unicode header line style is ",
	"Expanded header width is ", "You are connected to ", "You are now connected to ",
}

func isMetaResp(l string) bool {
	if len(l) < 10 || l[len(l)-1] != '.' {
		return false
	}
	switch l[0] {
	case 'B', 'D', 'E', 'F', 'L', 'N', 'O', 'P', 'R', 'T', 'U', 'Y':
	default:
		return false
	}
	for _, r := range metaResps {
		if strings.HasPrefix(l, r) {
			return true
		}
	}
	return false
}
