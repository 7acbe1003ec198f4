// The report's content, built once and written as Markdown and as HTML.

package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/table"
)

// A doc is a document as a list of blocks: the words are chosen where it
// is built (report.go, setup.go), and each writer (markdown here, html in
// html.go) only marks them up and escapes what they hold. Text in a doc is
// plain text, never markup: a name from a capture is escaped by whichever
// writer writes it.
type doc []block

// block is a heading, paragraph, list, grid or figureBlock.
type block interface{ isBlock() }

type (
	heading struct {
		level int // 1 to 6
		line
	}
	paragraph struct{ line }
	list      []item
	grid      view // a table as a person reads it
	// figureBlock is a figure with its caption; its file is
	// figures/NAME.svg.
	figureBlock struct{ Figure }
)

func (heading) isBlock()     {}
func (paragraph) isBlock()   {}
func (list) isBlock()        {}
func (grid) isBlock()        {}
func (figureBlock) isBlock() {}

// item is a list item, with items of its own under it.
type item struct {
	line
	sub []line
}

// spanKind is how a span is shown.
type spanKind uint8

const (
	textSpan   spanKind = iota // running text
	codeSpan                   // shown as it is, in a fixed font: a statement, a command line
	strongSpan                 // running text set off: a finding's severity
)

// span is a run of text shown one way.
type span struct {
	kind spanKind
	text string
}

// line is the text of a heading, paragraph, list item or caption.
type line []span

// words is a line of running text, formatted as fmt.Sprintf does.
func words(format string, args ...any) line {
	return line{{textSpan, fmt.Sprintf(format, args...)}}
}

// text appends running text, formatted as fmt.Sprintf does.
func (l line) text(format string, args ...any) line {
	return append(l, span{textSpan, fmt.Sprintf(format, args...)})
}

// code appends s in a code span.
func (l line) code(s string) line { return append(l, span{codeSpan, s}) }

// strong appends s set off.
func (l line) strong(s string) line { return append(l, span{strongSpan, s}) }

// plain is the line's text without markup, for a one-line title.
func (l line) plain() string {
	var b strings.Builder
	for _, s := range l {
		b.WriteString(s.text)
	}
	return PlainText(b.String())
}

func (d *doc) heading(level int, l line) { *d = append(*d, heading{level, l}) }
func (d *doc) para(l line)               { *d = append(*d, paragraph{l}) }

// list adds items as a list, and nothing when there is none.
func (d *doc) list(items []item) {
	if len(items) > 0 {
		*d = append(*d, list(items))
	}
}

// lines adds lines as a list of items.
func (d *doc) lines(ls []line) {
	items := make([]item, len(ls))
	for i, l := range ls {
		items[i] = item{line: l}
	}
	d.list(items)
}

// tables adds each table under a heading of the given level, with its
// note below; a table with a pivot is spread wide, a table with groups is
// one grid per group under a heading one level down. An empty table is a
// line that says so, so that a reader knows none was found.
func (d *doc) tables(tables []table.Table, level int) error {
	for _, t := range tables {
		if err := t.Check(); err != nil {
			return err
		}
		d.heading(level, words("%s", t.Title))
		if t.Note != "" {
			d.para(words("%s", t.Note))
		}
		if len(t.Rows) == 0 {
			d.para(words("None."))
			continue
		}
		for _, part := range groupsOf(t) {
			if part.heading != "" {
				d.heading(level+1, words("%s", part.heading))
			}
			*d = append(*d, grid(viewOf(part.t)))
		}
	}
	return nil
}

// markdown writes d as GitHub-flavoured Markdown, blocks apart by a blank
// line; figures are images of figures/NAME.svg.
func (d doc) markdown(w io.Writer) error {
	bw := &errWriter{w: w}
	for i, b := range d {
		if i > 0 {
			bw.printf("\n")
		}
		switch b := b.(type) {
		case heading:
			bw.printf("%s %s\n", strings.Repeat("#", b.level), b.markdown())
		case paragraph:
			bw.printf("%s\n", b.markdown())
		case list:
			for _, it := range b {
				bw.printf("- %s\n", it.markdown())
				for _, s := range it.sub {
					bw.printf("  - %s\n", s.markdown())
				}
			}
		case grid:
			markdownGrid(bw, view(b))
		case figureBlock:
			bw.printf("![%s](figures/%s.svg)\n\n*%s*\n", markdownText(b.Title), b.Name, markdownText(b.Caption))
		}
	}
	return bw.err
}

// markdown is the line in Markdown, its text escaped.
func (l line) markdown() string {
	var b strings.Builder
	for _, s := range l {
		switch s.kind {
		case codeSpan:
			b.WriteString("`" + codeText(s.text) + "`")
		case strongSpan:
			b.WriteString("**" + markdownText(s.text) + "**")
		default:
			b.WriteString(markdownText(s.text))
		}
	}
	return b.String()
}

// markdownGrid writes a table, numbers aligned right.
func markdownGrid(bw *errWriter, v view) {
	bw.printf("|")
	for _, c := range v.headers {
		bw.printf(" %s |", markdownText(c))
	}
	bw.printf("\n|")
	for _, right := range v.numeric {
		if right {
			bw.printf("---:|")
		} else {
			bw.printf("---|")
		}
	}
	bw.printf("\n")
	for _, row := range v.rows {
		bw.printf("|")
		for _, c := range row {
			bw.printf(" %s |", markdownText(c))
		}
		bw.printf("\n")
	}
}

// markdownTables writes tables as GitHub-flavoured Markdown (doc.tables).
func markdownTables(w io.Writer, tables []table.Table, level int) error {
	var d doc
	if err := d.tables(tables, level); err != nil {
		return err
	}
	return d.markdown(w)
}
