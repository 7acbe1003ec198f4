// Package render writes results for people and programs: tables as
// Markdown, CSV and JSON from their column spec, figures as SVG and PNG,
// the report's prose, and the report folder. It formats and draws; it
// computes nothing: every number comes from analyze.
//
// A table is written in steps:
//
//  1. analyze builds a table.Table: columns with a key, a title, a unit
//     and a kind, rows of typed values (nil for unknown), and, for a long
//     table whose data names become columns for people, a pivot.
//  2. Markdown and HTML (document.go) make a view of it (view.go: the
//     pivot spread wide), each cell's text from its column's kind
//     (cells.go), escaped by the writer (text.go for Markdown).
//  3. CSV and JSON write the long form by key, numbers as numbers, unknown
//     as empty or null; keys are checked unique and snake_case first.
//
// A figure is made in steps:
//
//  1. analyze chooses and summarises what it shows, for one host
//     (Analysis.Ratios, Reads, Positions, DiskThroughput, QPSRounds,
//     Sweeps...): every number is computed there.
//  2. Its file here, fig_KIND.go, lays that out on panels with the kit:
//     axes and ticks (kit_axes.go), marks (kit_marks.go), legends
//     (kit_legend.go), configurations' names as drawn (kit_labels.go),
//     texts and number formats (kit_text.go).
//  3. Figure.draw places the title, legend and panels on a canvas, and
//     Figure.write encodes it as SVG (every text as its glyphs' outlines,
//     kit_svg.go) or PNG.
//  4. WriteFigure writes each file whole or not at all.
//
// The report (report.go) ties them together: its content is built once as
// a doc (document.go), with the setup's sentences (setup.go), the
// findings, the tables and the figures, and written from it as report.md
// and, when asked, as report.html (html.go), into a folder pgstudy owns
// (folder.go, through samples/outdir).
package render
