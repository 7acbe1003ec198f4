package main

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/pgstudy/pgstudy"

// allowed is the dependency direction of the design: which of our
// packages each may import. A package's own sub-packages are always
// allowed.
var allowed = map[string][]string{
	"samples": {},
	"collect": {"samples"},
	"parse":   {},
	"analyze": {"samples", "parse"},
	"render":  {"analyze"},
}

// allowedInside are single packages of another room a package may import
// besides: render writes its output folders through samples/outdir, the
// one place that decides what pgstudy may replace (collect uses it too);
// collect writes facts through analyze/facts.
var allowedInside = map[string][]string{
	"render": {module + "/samples/outdir"},
	// collect computes each run's facts when it commits the run, with the
	// one definition the analysis uses for captures without them.
	"collect": {module + "/analyze/facts"},
}

// onlyOthers are packages that may import, besides the standard library
// and what their room allows, only these packages of others: the study
// schema, which collect and analyze share, reads text and nothing else.
var onlyOthers = map[string][]string{
	module + "/samples/study": {"go.yaml.in/yaml/v3"},
}

// TestDependencyDirection fails when a package imports against the
// direction in DESIGN.md, when parse uses anything but the standard
// library, or when a parser imports another: parse and its sub-packages
// import only parse and parse/internal/..., so that each source's parser
// stands alone.
func TestDependencyDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard,Imports", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type pkg struct {
		ImportPath string
		Standard   bool
		Imports    []string
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		top := topOf(p.ImportPath)
		rule, ok := allowed[top]
		if !ok || strings.HasSuffix(p.ImportPath, "_test") {
			continue
		}
		checked++
		for _, imp := range p.Imports {
			if dep := topOf(imp); dep != "" && dep != top && !slices.Contains(rule, dep) && !slices.Contains(allowedInside[top], imp) {
				t.Errorf("%s imports %s, against the design (%s may import %v)", p.ImportPath, imp, top, rule)
			}
			foreign := !strings.HasPrefix(imp, module) && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".")
			if top == "parse" && foreign {
				t.Errorf("%s imports %s: parse uses the standard library only", p.ImportPath, imp)
			}
			if only, ok := onlyOthers[p.ImportPath]; ok && foreign && !slices.Contains(only, imp) {
				t.Errorf("%s imports %s: it may import only %v besides the standard library and samples", p.ImportPath, imp, only)
			}
			if top == "parse" && strings.HasPrefix(imp, module+"/") && !parseMayImport(p.ImportPath, imp) {
				t.Errorf("%s imports %s: a parser imports only parse and parse/internal/...", p.ImportPath, imp)
			}
		}
	}
	if checked < 3 {
		t.Errorf("checked %d packages; go list found too few of ours", checked)
	}
}

// parseMayImport reports whether pkg, in parse, may import imp of ours:
// parse itself, parse/internal/..., and nothing else (the helpers under
// internal may not import a parser either). The one exception is between
// test helpers: golden, which only tests import, times its benchmarks
// with parsetest's.
func parseMayImport(pkg, imp string) bool {
	if pkg == module+"/parse/internal/golden" && imp == module+"/parse/parsetest" {
		return true
	}
	return imp == module+"/parse" || strings.HasPrefix(imp, module+"/parse/internal/") && pkg != module+"/parse"
}

// topOf is the top-level folder of one of our packages, or "" for others.
func topOf(path string) string {
	rest, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	top, _, _ := strings.Cut(rest, "/")
	return top
}

// TestReadersCannotRun: the packages that read captures (and everything
// they import, ours or not) cannot start a process or load code, so
// nothing found in a capture (a command, a study's shell steps, SQL) can be
// run by analyze, check, report or plot. Only collect runs commands.
func TestReadersCannotRun(t *testing.T) {
	for _, pkg := range []string{"samples", "samples/study", "parse/...", "analyze", "render"} {
		out, err := exec.Command("go", "list", "-deps", "../../"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list %s: %d packages; too few", pkg, len(deps))
		}
		for _, banned := range []string{"os/exec", "plugin"} {
			if slices.Contains(deps, banned) {
				t.Errorf("%s depends on %s: a capture's reader must not be able to run anything", pkg, banned)
			}
		}
	}
}
