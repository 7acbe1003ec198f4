package psql

import (
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// The settings that change how psql's output reads, followed from psql's
// answers to its meta-commands ("Output format is unaligned.", setting in
// meta.go) and from the meta-commands themselves as psql -a echoes them,
// which it does under \set QUIET too, where it prints no answer. Output
// whose values cannot be told from psql's own lines (a Time: line, a row
// count, a command tag) is refused where the setting that prints it is
// made: every format but aligned, wrapped and unaligned; tuples only; and
// unaligned output without row counts. Settings made quietly and not
// echoed are not seen: a row count with no table before it is then
// refused (footer).

// formats are the names \pset format takes.
var formats = []string{"aligned", "asciidoc", "csv", "html", "latex", "latex-longtable", "troff-ms", "unaligned", "wrapped"}

// setFormat follows \pset format name, made on line i.
func (p *parser) setFormat(i int, name string) {
	switch name {
	case "aligned", "wrapped":
		p.unaligned, p.wrapped = false, name == "wrapped"
	case "unaligned":
		p.unaligned, p.wrapped = true, false
		p.checkFooter(i)
	default:
		p.refuseSetting(i, `\pset format `+name)
	}
}

// refuseSetting refuses the output after line i, printed with setting.
func (p *parser) refuseSetting(i int, setting string) {
	if p.err == nil {
		p.err = parse.Errorf(p.source, i+1, "psql prints its output with %s from here, which this parser does not read: its values cannot be told from psql's own lines (a Time: line, a row count, a command tag); print with psql's defaults (psql -X), aligned or unaligned with row counts", setting)
	}
}

// refuseTuples refuses the output of \t (tuples only), made on line i.
func (p *parser) refuseTuples(i int) {
	p.refuseSetting(i, `\t (tuples only: tables without header or row count)`)
}

// checkFooter refuses unaligned output without row counts, from line i:
// with \pset footer off, or expanded (\x), which prints none.
func (p *parser) checkFooter(i int) {
	switch {
	case p.unaligned && p.footerOff:
		p.refuseSetting(i, `\pset footer off in the unaligned format`)
	case p.unaligned && p.expanded:
		p.refuseSetting(i, `\x (expanded, without row counts) in the unaligned format`)
	}
}

// echoed follows the meta-command cmd that psql -a echoed on line i.
func (p *parser) echoed(i int, cmd string) {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return
	}
	args := f[1:]
	for k := range args {
		args[k] = unquote(args[k])
	}
	switch f[0] {
	case `\a`:
		if p.unaligned {
			p.setFormat(i, "aligned")
		} else {
			p.setFormat(i, "unaligned")
		}
	case `\H`:
		p.setFormat(i, "html") // or back from it, which was refused
	case `\t`:
		if on, ok := boolArg(args, true); ok && on {
			p.refuseTuples(i)
		}
	case `\x`:
		if on, ok := boolArg(args, !p.expanded); ok {
			p.expanded = on
			p.checkFooter(i)
		}
	case `\f`:
		if len(args) > 0 {
			p.sep = args[0]
		}
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
		if on, ok := boolArg(args, true); ok && on {
			p.refuseTuples(i)
		}
	case "footer":
		if on, ok := boolArg(args, p.footerOff); ok {
			p.footerOff = !on
			p.checkFooter(i)
		}
	case "expanded":
		if on, ok := boolArg(args, !p.expanded); ok {
			p.expanded = on
			p.checkFooter(i)
		}
	case "recordsep":
		if len(args) > 0 && val != "\n" {
			p.refuseSetting(i, `\pset recordsep `+args[0])
		}
	case "fieldsep":
		if len(args) > 0 {
			p.sep = val
		}
	}
}

// formatNamed is the format that name (or an abbreviation of one
// format's name, as psql takes it) names.
func formatNamed(name string) (string, bool) {
	found := ""
	for _, f := range formats {
		if f == strings.ToLower(name) {
			return f, true
		}
		if name != "" && strings.HasPrefix(f, strings.ToLower(name)) {
			if found != "" {
				return "", false // ambiguous: psql refuses it
			}
			found = f
		}
	}
	return found, found != ""
}

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

// unquote undoes the single quotes of a meta-command's argument, and
// the \t of a tab within them ('\t', a common field separator).
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], `\t`, "\t")
	}
	return s
}
