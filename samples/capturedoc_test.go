package samples

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

var updateDoc = flag.Bool("update", false, "rewrite the tables of docs/CAPTURE.md from schema.go")

const (
	docFile  = "../docs/CAPTURE.md"
	docBegin = "<!-- tables: made from samples/schema.go by go test ./samples -run TestCaptureDoc -update -->"
	docEnd   = "<!-- end of tables -->"
)

// TestCaptureDoc: docs/CAPTURE.md documents every table and column of the
// format as schema.go defines them (its types and comments), so that the
// documentation cannot drift from the format; every column has a meaning.
func TestCaptureDoc(t *testing.T) {
	got, missing := captureTables(t)
	for _, m := range missing {
		t.Errorf("schema.go: column %s has no comment saying what it holds", m)
	}
	doc, err := os.ReadFile(docFile)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok1 := strings.Cut(string(doc), docBegin)
	_, tail, ok2 := strings.Cut(rest, docEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the markers %q and %q", docFile, docBegin, docEnd)
	}
	want := head + docBegin + "\n" + got + docEnd + tail
	if *updateDoc {
		if err := os.WriteFile(docFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != string(doc) {
		t.Errorf("%s's tables differ from schema.go: run go test ./samples -run TestCaptureDoc -update", docFile)
	}
}

// captureTables writes the Markdown of every table, and lists the
// columns without a comment.
func captureTables(t *testing.T) (string, []string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "schema.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]*ast.GenDecl{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			types[g.Specs[0].(*ast.TypeSpec).Name.Name] = g
		}
	}
	var b strings.Builder
	var missing []string
	for _, tb := range Tables {
		g := types[tb.Type.Name()]
		if g == nil {
			t.Fatalf("schema.go has no type %s", tb.Type.Name())
		}
		fmt.Fprintf(&b, "### %s\n\n%s\n\n", tb.Name, oneParagraph(g.Doc.Text()))
		fmt.Fprintf(&b, "Parts: %s.\n\n", partsOf(&tb))
		b.WriteString("| column | type | null | what it holds |\n|---|---|---|---|\n")
		st := g.Specs[0].(*ast.TypeSpec).Type.(*ast.StructType)
		i := 0
		for _, field := range st.Fields.List {
			for range field.Names {
				c := tb.cols[i]
				i++
				what := oneParagraph(field.Doc.Text() + " " + field.Comment.Text())
				if what == "" {
					what = commonColumns[c.name]
				}
				if what == "" {
					missing = append(missing, tb.Name+"."+c.name)
				}
				null := "no"
				if c.nullable {
					null = "yes"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.name, typeNames[c.kind], null, strings.ReplaceAll(what, "|", `\|`))
			}
		}
		b.WriteString("\n")
	}
	return b.String(), missing
}

// commonColumns say what the columns every table shares hold.
var commonColumns = map[string]string{
	"capture_id": "The capture's random id: the same in every row of a capture, so that many captures' rows can be told apart.",
	"run_id":     "The run the row is of (runs.run_id): the join key between the tables of runs.",
}

// typeNames are the Parquet types of each kind, as DuckDB, Spark and
// Trino name them.
var typeNames = map[kind]string{
	kindString:  "STRING (UTF-8 byte array)",
	kindBool:    "BOOLEAN",
	kindInt32:   "INT32",
	kindInt64:   "INT64",
	kindFloat64: "DOUBLE",
	kindTime:    "TIMESTAMP (INT64 microseconds, UTC)",
}

// partsOf says how a table's parts are named.
func partsOf(t *Table) string {
	switch {
	case t.Name == "raw_bytes":
		return "one per run part (`rNNNNNN`, `rFIRST-LAST`) that holds values that are not UTF-8, and one per session (`sNNN`) for the session's"
	case t.perRun():
		return "named after runs: `rNNNNNN.parquet` as committed, `rFIRST-LAST.parquet` once compacted"
	}
	return "one per session, `sNNN.parquet`"
}

// oneParagraph joins a comment's lines into one.
func oneParagraph(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
