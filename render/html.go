// report.html: the report in one file that needs nothing else.

package render

import (
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot/vg"
)

// htmlPolicy is report.html's Content-Security-Policy: it may load no
// script, font, frame or anything else over the network; its images are
// data: URIs and its style is inline. A browser that reads the file keeps
// to it even if a name from a capture were to slip through unescaped.
const htmlPolicy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

// htmlStyle is report.html's style: the system's fonts (none fetched), a
// column that fits a phone, tables that scroll sideways inside their box
// rather than widen the page, figures scaled down to the column, and
// print without breaking a figure or a row across pages.
const htmlStyle = `body{margin:0 auto;max-width:52rem;padding:.5rem 1rem 2rem;color:#1a1a1a;background:#fff;` +
	`font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",Arial,sans-serif;overflow-wrap:break-word}
h1{font-size:1.6rem;line-height:1.25}
h2{font-size:1.3rem;margin-top:2.2rem;border-bottom:1px solid #ddd}
h3{font-size:1.1rem;margin-top:1.6rem}
code{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.88em;background:#f3f3f3;padding:0 .2em;overflow-wrap:anywhere}
ul ul{margin:0}
.table{overflow-x:auto;margin:.8rem 0}
table{border-collapse:collapse;font-size:.88rem}
th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
figure{margin:1.5rem 0}
figure img{display:block;max-width:100%;height:auto}
figcaption{font-size:.9rem;font-style:italic;color:#444}
@media print{body{max-width:none;padding:0;font-size:10pt}.table{overflow:visible}figure,tr{break-inside:avoid}h1,h2,h3{break-after:avoid}}
`

// html writes d as one HTML document that needs nothing else: each
// figure inline as a data: URI of its SVG (svg gives a figure's file), the
// style inline, no script, no font or anything else fetched. Every text
// is escaped.
func (d doc) html(w io.Writer, svg func(Figure) ([]byte, error)) error {
	bw := &errWriter{w: w}
	title := "Report"
	for _, b := range d {
		if h, ok := b.(heading); ok && h.level == 1 {
			title = h.plain()
			break
		}
	}
	bw.printf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	bw.printf("<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", htmlPolicy)
	bw.printf("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	bw.printf("<meta name=\"generator\" content=\"pgstudy\">\n<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n",
		htmlText(title), htmlStyle)
	for _, b := range d {
		switch b := b.(type) {
		case heading:
			bw.printf("<h%d>%s</h%d>\n", b.level, b.html(), b.level)
		case paragraph:
			bw.printf("<p>%s</p>\n", b.html())
		case list:
			htmlList(bw, b)
		case grid:
			htmlGrid(bw, view(b))
		case figureBlock:
			if bw.err != nil {
				break
			}
			src, err := svg(b.Figure)
			if err != nil {
				return fmt.Errorf("figure %s: %w", b.Name, err)
			}
			htmlFigure(bw, b.Figure, src)
		}
	}
	bw.printf("</main>\n</body>\n</html>\n")
	return bw.err
}

// htmlText is text from anywhere made safe as HTML text or an attribute's
// value: on one line, no control character, <, >, &, ' and " escaped.
func htmlText(s string) string { return html.EscapeString(PlainText(s)) }

// html is the line in HTML, its text escaped.
func (l line) html() string {
	var b strings.Builder
	for _, s := range l {
		switch s.kind {
		case codeSpan:
			b.WriteString("<code>" + htmlText(strings.Join(strings.Fields(PlainText(s.text)), " ")) + "</code>")
		case strongSpan:
			b.WriteString("<strong>" + htmlText(s.text) + "</strong>")
		default:
			b.WriteString(htmlText(s.text))
		}
	}
	return b.String()
}

func htmlList(bw *errWriter, l list) {
	bw.printf("<ul>\n")
	for _, it := range l {
		bw.printf("<li>%s", it.html())
		if len(it.sub) > 0 {
			bw.printf("\n<ul>\n")
			for _, s := range it.sub {
				bw.printf("<li>%s</li>\n", s.html())
			}
			bw.printf("</ul>\n")
		}
		bw.printf("</li>\n")
	}
	bw.printf("</ul>\n")
}

// htmlGrid writes a table in a box of its own that scrolls sideways on a
// narrow screen; numbers are aligned right.
func htmlGrid(bw *errWriter, v view) {
	class := func(j int) string {
		if j < len(v.numeric) && v.numeric[j] {
			return ` class="num"`
		}
		return ""
	}
	bw.printf("<div class=\"table\"><table>\n<thead><tr>")
	for j, h := range v.headers {
		bw.printf("<th%s>%s</th>", class(j), htmlText(h))
	}
	bw.printf("</tr></thead>\n<tbody>\n")
	for _, row := range v.rows {
		bw.printf("<tr>")
		for j, c := range row {
			bw.printf("<td%s>%s</td>", class(j), htmlText(c))
		}
		bw.printf("</tr>\n")
	}
	bw.printf("</tbody>\n</table></div>\n")
}

// htmlFigure writes a figure as an image whose source is its SVG file, in
// a data: URI: a browser runs no script and loads nothing from an SVG it
// shows as an image. Its width and height are the figure's, in CSS
// pixels, scaled down to fit the column.
func htmlFigure(bw *errWriter, f Figure, svg []byte) {
	width, height := f.width, f.height
	if width == 0 {
		width, height = figureWidth, figureHeight
	}
	px := func(l vg.Length) int { return int(math.Round(l.Points() * 96 / 72)) }
	bw.printf("<figure><img src=\"data:image/svg+xml;base64,%s\" alt=\"%s\" width=\"%d\" height=\"%d\">\n<figcaption>%s</figcaption></figure>\n",
		base64.StdEncoding.EncodeToString(svg), htmlText(f.Title), px(width), px(height), htmlText(f.Caption))
}
