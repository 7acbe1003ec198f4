package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The size of a room: a file a reader takes in one sitting, a function
// that fits on a screen. A table of data (a slice, array or map literal)
// inside a function does not count towards its length: a long list of
// cases is easier to read in one place than split.
const (
	maxFileLines = 600
	maxFuncLines = 80
	// dataLines is how long a literal must be to count as a table of data.
	dataLines = 8
)

// TestLayoutSizes fails when a Go file of the module (tests included,
// generated files excepted) is longer than maxFileLines, or a function
// longer than maxFuncLines once its tables of data are left out.
func TestLayoutSizes(t *testing.T) {
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		problems, err := layoutProblems(path, rel)
		if err != nil {
			return err
		}
		files++
		for _, p := range problems {
			t.Error(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Errorf("checked %d Go files; the walk found too few", files)
	}
}

// layoutProblems reads one file and lists what is too long in it.
func layoutProblems(path, rel string) ([]string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if generated(src) {
		return nil, nil
	}
	fset := token.NewFileSet()
	f, err := goparser.ParseFile(fset, path, src, goparser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	var out []string
	if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
		out = append(out, fmt.Sprintf("%s: %d lines, more than %d: split it by topic", rel, n, maxFileLines))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		var name string
		switch fn := n.(type) {
		case *ast.FuncDecl:
			body, name = fn.Body, fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				name = recvName(fn.Recv.List[0].Type) + "." + name
			}
		case *ast.FuncLit:
			// A function literal counts as part of the function that
			// holds it: a closure is read with it.
			return true
		}
		if body == nil {
			return true
		}
		lines := funcLines(fset, body)
		if lines > maxFuncLines {
			out = append(out, fmt.Sprintf("%s:%d: %s is %d lines (tables of data left out), more than %d",
				rel, fset.Position(body.Pos()).Line, name, lines, maxFuncLines))
		}
		return true
	})
	return out, nil
}

// funcLines counts a body's lines, less those of the tables of data in it.
func funcLines(fset *token.FileSet, body *ast.BlockStmt) int {
	line := func(p token.Pos) int { return fset.Position(p).Line }
	total := line(body.Rbrace) - line(body.Lbrace) + 1
	ast.Inspect(body, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok || !isData(lit) {
			return true
		}
		if span := line(lit.Rbrace) - line(lit.Lbrace) + 1; span >= dataLines {
			total -= span
			return false
		}
		return true
	})
	return total
}

// isData says whether a literal is a list or a map: rows of data, not a
// single value being built.
func isData(lit *ast.CompositeLit) bool {
	switch lit.Type.(type) {
	case *ast.ArrayType, *ast.MapType:
		return true
	}
	return false
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	}
	return "?"
}

// generated reports the "Code generated ... DO NOT EDIT." line Go's
// tools agree on (go help generate).
func generated(src []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "package ") {
			return false
		}
		if strings.HasPrefix(l, "// Code generated ") && strings.HasSuffix(l, " DO NOT EDIT.") {
			return true
		}
	}
	return false
}

// TestLayoutRules checks the check itself on files made for it: a long
// function is found, the same length made of a table of data is not, and
// a generated file is left alone.
func TestLayoutRules(t *testing.T) {
	body := func(n int, line string) string { return strings.Repeat(line, n) }
	cases := []struct {
		name, src string
		want      []string
	}{
		{"long", "package p\n\nfunc f() {\n" + body(80, "\tprintln()\n") + "}\n",
			[]string{"x.go:3: f is 82 lines (tables of data left out), more than 80"}},
		{"fits", "package p\n\nfunc f() {\n" + body(78, "\tprintln()\n") + "}\n", nil},
		{"table", "package p\n\nfunc f() {\n\t_ = []int{\n" + body(100, "\t\t1,\n") + "\t}\n}\n", nil},
		{"method", "package p\n\ntype T struct{}\n\nfunc (t *T) m() {\n" + body(90, "\tprintln()\n") + "}\n",
			[]string{"x.go:5: T.m is 92 lines (tables of data left out), more than 80"}},
		{"file", "package p\n" + body(600, "\n"), []string{"x.go: 601 lines, more than 600: split it by topic"}},
		{"generated", "// Code generated by hand. DO NOT EDIT.\n\npackage p\n\nfunc f() {\n" + body(200, "\tprintln()\n") + "}\n", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.go")
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := layoutProblems(path, "x.go")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
