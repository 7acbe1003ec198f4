package psql

import (
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// The settings that change how psql's output reads, followed from psql's
// answers to its meta-commands ("Output format is unaligned.", setting in
// meta.go) and from the meta-commands themselves as psql -a echoes them,
// which it does under \set QUIET too, where it prints no answer. Output
// whose values cannot be told from psql's own lines (a Time: line, a row
// count, a command tag) is refused at its first line, naming the setting
// that prints it and where it was made: every format but aligned,
// wrapped and unaligned; tuples only; unaligned output without row
// counts; a record separator other than a newline; a title that reads
// as one of psql's lines. A setting made and undone before any output is
// no matter. Settings made quietly and not echoed are not seen: a row
// count with no table read whole before it is then refused (footer), as
// is a table of another format by its shape (formatShape).

// outSettings is the state of psql's output settings the parser follows.
type outSettings struct {
	format    string // "aligned", "wrapped", "unaligned" or another (\pset format)
	tuples    bool   // \t
	footerOff bool   // \pset footer off
	recordSep string // \pset recordsep, "" for a newline
	title     string // \pset title (\C) when it reads as psql's own line
	titled    string // \pset title (\C) as psql prints it, "" when unset or not seen
	// unread names the setting that prints output this parser cannot
	// read, "" for none; unreadLine is where it was made.
	unread     string
	unreadLine int
}

// settingChanged follows a change made on line i: unread names what, of
// the settings now, prints output that cannot be read.
func (p *parser) settingChanged(i int) {
	s := &p.set
	p.unaligned = s.format == "unaligned"
	what := ""
	switch {
	case s.format != "aligned" && s.format != "wrapped" && s.format != "unaligned":
		what = `\pset format ` + s.format
	case s.tuples:
		what = `\t (tuples only: tables without header or row count)`
	case s.recordSep != "":
		what = `\pset recordsep ` + s.recordSep
	case s.title != "":
		what = `\pset title ` + strconv.Quote(s.title) + `, which reads as one of psql's own lines`
	case p.unaligned && s.footerOff:
		what = `\pset footer off in the unaligned format`
	case p.unaligned && p.expanded:
		what = `\x (expanded, without row counts) in the unaligned format`
	}
	if what != s.unread {
		s.unread, s.unreadLine = what, i
	}
}

// refuseUnreadable refuses line i, output printed while a setting it
// cannot be read with is on.
func (p *parser) refuseUnreadable(i int) {
	if p.err == nil {
		p.err = parse.Errorf(p.source, i+1, "output printed with %s (set on line %d), which this parser does not read: its values cannot be told from psql's own lines (a Time: line, a row count, a command tag); print with psql's defaults (psql -X), aligned or unaligned with row counts", p.set.unread, p.set.unreadLine+1)
	}
}

// refuseShape refuses line i, the first of a table psql printed in
// format f, known by its shape: where psql said so, the setting is named.
func (p *parser) refuseShape(i int, f string) {
	switch {
	case p.set.unread != "":
		p.refuseUnreadable(i)
	case p.err == nil:
		p.err = parse.Errorf(p.source, i+1, "a table printed with \\pset format %s (set quietly: known by its shape), which this parser does not read: print with psql's defaults (psql -X), aligned or unaligned with row counts", f)
	}
}

// setFormat follows \pset format name, made on line i.
func (p *parser) setFormat(i int, name string) {
	p.set.format = name
	p.settingChanged(i)
}

// echoed follows the meta-command cmd that psql -a echoed on line i.
func (p *parser) echoed(i int, cmd string) {
	name, rest, _ := strings.Cut(cmd, " ")
	args := metaArgs(rest)
	switch name {
	case `\a`:
		if p.set.format == "unaligned" {
			p.setFormat(i, "aligned")
		} else {
			p.setFormat(i, "unaligned")
		}
	case `\H`:
		if p.set.format == "html" {
			p.setFormat(i, "aligned")
		} else {
			p.setFormat(i, "html")
		}
	case `\t`:
		p.pset(i, "tuples_only", args)
	case `\x`:
		p.pset(i, "expanded", args)
	case `\f`:
		p.pset(i, "fieldsep", args)
	case `\C`:
		p.pset(i, "title", args)
	case `\pset`:
		if len(args) > 0 {
			p.pset(i, args[0], args[1:])
		}
	}
}

// pset follows \pset name args, echoed on line i.
func (p *parser) pset(i int, name string, args []string) {
	val := ""
	if len(args) > 0 {
		val = args[0]
	}
	s := &p.set
	switch name {
	case "format":
		if f, ok := formatNamed(val); ok {
			p.setFormat(i, f)
		}
	case "border":
		if val != "" {
			p.border = styleOf(val, "1", `\pset border `+val)
		}
	case "linestyle":
		switch {
		case val == "":
		case strings.HasPrefix("ascii", val):
			p.lineStyle = ""
		default:
			p.lineStyle = `\pset linestyle ` + val
		}
	case "tuples_only":
		if on, ok := boolArg(args, !s.tuples); ok {
			s.tuples = on
		}
	case "footer":
		if on, ok := boolArg(args, s.footerOff); ok {
			s.footerOff = !on
		}
	case "expanded":
		if on, ok := boolArg(args, !p.expanded); ok {
			p.expanded = on
		}
	case "fieldsep":
		if len(args) > 0 {
			p.sep = val
		}
	case "recordsep":
		if len(args) > 0 {
			s.recordSep = ""
			if val != "\n" {
				s.recordSep = strconv.Quote(val)
			}
		}
	case "title":
		p.setTitle(val)
	}
	p.settingChanged(i)
}

// setTitle follows a table title: one that reads as one of psql's own
// lines ("Time: 1.0 ms", "SET") is printed above each table.
func (p *parser) setTitle(t string) {
	p.set.title, p.set.titled = "", t
	if l := strings.TrimSpace(t); l != "" && ownLine(l) {
		p.set.title = t
	}
}

// ownLine reports whether l reads as a line psql prints of its own.
func ownLine(l string) bool {
	_, time := parseTime(l)
	_, foot := footerCount(l)
	_, msg := messageStart(l)
	return time || foot || msg || isTag(l) || isMetaResp(l) || isRecord(l) || startsSQL(l) || l[0] == '\\' || l[0] == '-'
}

// formatNamed is the format that name (or an abbreviation of one
// format's name, as psql takes it) names.
func formatNamed(name string) (string, bool) {
	name = strings.ToLower(name)
	found := ""
	for _, f := range formats {
		if f == name {
			return f, true
		}
		if name != "" && strings.HasPrefix(f, name) {
			if found != "" {
				return "", false // ambiguous: psql refuses it
			}
			found = f
		}
	}
	return found, found != ""
}

// formats are the names \pset format takes.
var formats = []string{"aligned", "asciidoc", "csv", "html", "latex", "latex-longtable", "troff-ms", "unaligned", "wrapped"}

// boolArg reads the on or off of a meta-command's argument, or toggle
// when it has none; false when psql would not take it.
func boolArg(args []string, toggle bool) (on, ok bool) {
	if len(args) == 0 {
		return toggle, true
	}
	switch strings.ToLower(args[0]) {
	case "on", "true", "yes", "1", "t", "y":
		return true, true
	case "off", "false", "no", "0", "f", "n", "of":
		return false, true
	}
	return false, false
}

// metaArgs splits a meta-command's arguments as psql does: at blanks
// outside single quotes, the quotes undone, and within them the escapes
// \t and \n (a tab, a common field separator) and a doubled quote.
func metaArgs(s string) []string {
	var args []string
	var b strings.Builder
	in, has := false, false
	for k := 0; k < len(s); k++ {
		c := s[k]
		switch {
		case c == '\'' && in && k+1 < len(s) && s[k+1] == '\'':
			b.WriteByte('\'')
			k++
		case c == '\'':
			in, has = !in, true
		case in && c == '\\' && k+1 < len(s):
			k++
			switch s[k] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(s[k])
			}
		case !in && (c == ' ' || c == '\t'):
			if b.Len() > 0 || has {
				args = append(args, b.String())
				b.Reset()
				has = false
			}
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() > 0 || has {
		args = append(args, b.String())
	}
	return args
}

// formatShape is the format that printed line l, when l is a line only
// another format prints (its table's first): set quietly and not echoed,
// it is known by this.
func formatShape(l string) string {
	switch {
	case strings.HasPrefix(l, `\begin{tabular}`):
		return "latex"
	case strings.HasPrefix(l, `\begin{longtable}`):
		return "latex-longtable"
	case strings.HasPrefix(l, `<table border=`):
		return "html"
	case l == ".LP" || l == ".TS":
		return "troff-ms"
	case strings.HasPrefix(l, `[options="header"`) || strings.HasPrefix(l, `[cols="`):
		return "asciidoc"
	}
	return ""
}

// printed reports whether a line of kind k is output a setting prints:
// not a blank line, a meta-command's echo or answer, a Time: line or a
// message.
func printed(k lineKind) bool {
	switch k {
	case lineBlank, lineMetaEcho, lineMetaResp, lineTime, lineMessage, lineField, lineHidden, lineHiddenEnd:
		return false
	}
	return true
}

// echoLines is the lines the echoed meta-command cmd prints whatever they
// read as: \echo's text (a line, and one more for each newline it
// holds); 0 for any other, and for \echo -n, whose text the next output
// goes on from.
func echoLines(cmd string) int {
	name, rest, _ := strings.Cut(cmd, " ")
	if name != `\echo` {
		return 0
	}
	args := metaArgs(rest)
	if len(args) > 0 && args[0] == "-n" {
		return 0
	}
	return 1 + strings.Count(strings.Join(args, " "), "\n")
}
